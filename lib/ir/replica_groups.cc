#include "hloroof/replica_groups.h"

#include <algorithm>

#include "hloroof/absl_compat.h"

namespace hloroof {

int64_t DeviceIds::size() const {
  if (!is_iota()) return static_cast<int64_t>(listed.size());
  int64_t n = 1;
  for (int64_t d : iota_dims) n *= d;  // checked against a limit when parsed
  return n;
}

int64_t DeviceIds::at(int64_t k) const {
  return is_iota() ? iota_element(iota_dims, iota_transpose, k) : listed[static_cast<size_t>(k)];
}

std::vector<int64_t> DeviceIds::expand() const {
  if (!is_iota()) return listed;
  const int64_t n = size();
  std::vector<int64_t> out(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) out[static_cast<size_t>(k)] = at(k);
  return out;
}

bool operator==(const DeviceIds& a, const DeviceIds& b) {
  if (a.is_iota() == b.is_iota()) {
    if (!a.is_iota()) return a.listed == b.listed;
    if (a.iota_dims == b.iota_dims && a.iota_transpose == b.iota_transpose) return true;
  }
  const int64_t n = a.size();
  if (n != b.size()) return false;
  for (int64_t k = 0; k < n; ++k) {
    if (a.at(k) != b.at(k)) return false;
  }
  return true;
}

int64_t iota_size(absl::Span<const int64_t> dims, int64_t limit) {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0 || (d > 0 && n > limit / d)) return -1;
    n *= d;
  }
  return n;
}

int64_t ReplicaGroups::group_count() const {
  return form != Form::kList ? num_groups : static_cast<int64_t>(groups.size());
}

int64_t ReplicaGroups::size_of_groups(int64_t participants) const {
  if (form != Form::kList) return group_size;
  if (groups.empty()) return participants;
  return static_cast<int64_t>(groups.front().size());
}

int64_t ReplicaGroups::largest_group() const {
  if (form != Form::kList) return group_size;
  size_t largest = 0;
  for (const std::vector<int64_t>& g : groups) largest = std::max(largest, g.size());
  return static_cast<int64_t>(largest);
}

int64_t ReplicaGroups::id_count() const {
  // Iota and mesh forms: num_groups * group_size was checked against kMaxIotaDevices when
  // parsed.
  if (form != Form::kList) return num_groups * group_size;
  int64_t n = 0;
  for (const std::vector<int64_t>& g : groups) n += static_cast<int64_t>(g.size());
  return n;
}

int64_t ReplicaGroups::id_at(int64_t g, int64_t k) const {
  if (form == Form::kList) return groups[static_cast<size_t>(g)][static_cast<size_t>(k)];
  const int64_t position = iota_element(iota_dims, iota_transpose, g * group_size + k);
  return form == Form::kMesh && !mesh_devices.empty() ? mesh_devices.at(position) : position;
}

std::vector<int64_t> ReplicaGroups::group(int64_t g) const {
  if (form == Form::kList) return groups[static_cast<size_t>(g)];
  std::vector<int64_t> members(static_cast<size_t>(group_size));
  for (int64_t k = 0; k < group_size; ++k) members[static_cast<size_t>(k)] = id_at(g, k);
  return members;
}

absl::StatusOr<std::vector<std::vector<int64_t>>> ReplicaGroups::expand(int64_t max_ids) const {
  if (form == Form::kList) return groups;
  if (id_count() > max_ids) {
    return absl::ResourceExhaustedError(
        str_cat("replica groups [", num_groups, ",", group_size, "] name ", id_count(),
                " device ids, more than the ", max_ids, " that may be listed"));
  }
  std::vector<std::vector<int64_t>> out;
  out.reserve(static_cast<size_t>(num_groups));
  for (int64_t g = 0; g < num_groups; ++g) out.push_back(group(g));
  return out;
}

int64_t iota_element(absl::Span<const int64_t> dims, absl::Span<const int64_t> perm,
                     int64_t position) {
  // `position` indexes the transposed array (dims in the order perm gives) row-major; its
  // value is the row-major offset of the same element in the untransposed `dims`.
  const size_t rank = dims.size();
  int64_t value = 0;
  for (size_t i = rank; i-- > 0;) {
    const size_t source_dim = perm.empty() ? i : static_cast<size_t>(perm[i]);
    const int64_t extent = dims[source_dim];
    const int64_t index = extent == 0 ? 0 : position % extent;
    position = extent == 0 ? 0 : position / extent;
    int64_t stride = 1;
    for (size_t d = source_dim + 1; d < rank; ++d) stride *= dims[d];
    value += index * stride;
  }
  return value;
}

absl::StatusOr<std::vector<int64_t>> expand_iota(absl::Span<const int64_t> dims,
                                                 absl::Span<const int64_t> perm) {
  const size_t rank = dims.size();
  int64_t total = 1;
  for (int64_t d : dims) {
    if (d < 0) return absl::InvalidArgumentError(str_cat("negative iota dimension ", d));
    if (d > 0 && total > kMaxDevices / d) {
      return absl::InvalidArgumentError(
          str_cat("iota device list has more than ", kMaxDevices, " devices"));
    }
    total *= d;
  }
  if (!perm.empty()) {
    if (perm.size() != rank) {
      return absl::InvalidArgumentError(str_cat("transpose T(...) has ", perm.size(),
                                                " entries but the iota reshape has ", rank));
    }
    std::vector<bool> seen(rank, false);
    for (size_t i = 0; i < rank; ++i) {
      if (perm[i] < 0 || perm[i] >= static_cast<int64_t>(rank) ||
          seen[static_cast<size_t>(perm[i])]) {
        return absl::InvalidArgumentError("transpose T(...) is not a permutation of the dims");
      }
      seen[static_cast<size_t>(perm[i])] = true;
    }
  }
  std::vector<int64_t> out;
  out.reserve(static_cast<size_t>(total));
  for (int64_t n = 0; n < total; ++n) out.push_back(iota_element(dims, perm, n));
  return out;
}

}  // namespace hloroof
