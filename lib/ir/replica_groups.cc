#include "hloroof/replica_groups.h"

#include "ir/strings.h"

namespace hloroof {

int64_t ReplicaGroups::size_of_groups(int64_t participants) const {
  if (groups.empty()) return participants;
  return static_cast<int64_t>(groups.front().size());
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
  std::vector<size_t> order(rank);
  if (perm.empty()) {
    for (size_t i = 0; i < rank; ++i) order[i] = i;
  } else {
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
      order[i] = static_cast<size_t>(perm[i]);
    }
  }
  // Row-major strides of the reshaped iota, then walk the transposed index space.
  std::vector<int64_t> stride(rank, 1);
  for (size_t i = rank; i-- > 1;) stride[i - 1] = stride[i] * dims[i];
  std::vector<int64_t> out;
  out.reserve(static_cast<size_t>(total));
  std::vector<int64_t> index(rank, 0);  // index in the transposed space
  for (int64_t n = 0; n < total; ++n) {
    int64_t source = 0;
    for (size_t i = 0; i < rank; ++i) source += index[i] * stride[order[i]];
    out.push_back(source);
    for (size_t i = rank; i-- > 0;) {
      if (++index[i] < dims[order[i]]) break;
      index[i] = 0;
    }
  }
  return out;
}

}  // namespace hloroof
