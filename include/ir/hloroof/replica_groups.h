// Replica groups of collectives (docs/hlo-text.md, "Attributes"). Groups written as lists are
// held as explicit device lists; groups in iota form (`[G,S]<=[dims]T(perm)`) and mesh groups
// (`mesh['x'=2,'y'=4] {'y'}`) keep a form as compact as their text, whatever their size, and
// their members are computed on demand: reading the group count and size costs nothing, and
// only a consumer that needs every id expands them.
#ifndef HLOROOF_REPLICA_GROUPS_H_
#define HLOROOF_REPLICA_GROUPS_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace hloroof {

// The most devices a mesh or a tile assignment may describe (2^20, as many as a topology may
// hold): those device lists are expanded in memory when parsed, and no machine comes near this.
// Larger lists are refused at the text, before anything is expanded.
inline constexpr int64_t kMaxDevices = int64_t{1} << 20;

// The most device ids replica groups in iota form may name (2^32). They are never expanded
// when parsed; the bound keeps every product of ids with the module's replica and partition
// counts far from overflow.
inline constexpr int64_t kMaxIotaDevices = int64_t{1} << 32;

// Device ids written one by one, or in iota form `[dims]T(perm)`: 0..N-1 (N the product of the
// dims) reshaped to the dims, transposed by perm and flattened, each id computed on demand
// (a tile assignment or mesh of 2^20 devices written in 20 bytes takes as little memory).
struct DeviceIds {
  std::vector<int64_t> listed;          // written one by one; empty in iota form
  std::vector<int64_t> iota_dims;       // iota form: the reshape; empty when listed
  std::vector<int64_t> iota_transpose;  // iota form: the permutation; empty: identity

  bool is_iota() const { return !iota_dims.empty(); }
  // The number of ids (the product of the dims in iota form, checked when parsed).
  int64_t size() const;
  bool empty() const { return size() == 0; }
  // Id `k`, 0 <= k < size(), in time linear in the rank.
  int64_t at(int64_t k) const;
  // Every id; the caller bounds size() first.
  std::vector<int64_t> expand() const;

  // The same ids in the same order, whatever the form (`<=[4]` is `0,1,2,3`).
  friend bool operator==(const DeviceIds& a, const DeviceIds& b);
};

// The number of ids of an iota list with `dims`; -1 when a dim is negative or the product
// passes `limit`.
int64_t iota_size(absl::Span<const int64_t> dims, int64_t limit);

struct ReplicaGroups {
  enum class Form : uint8_t {
    kList,  // {{0,1},{2,3}}, or {} (one group of every participant)
    kIota,  // [G,S]<=[dims]T(perm)
    kMesh,  // mesh['x'=2,'y'=4] {'y'}
  };
  Form form = Form::kList;
  // kList: the groups. Empty means one group holding every participant. Empty for kIota and
  // kMesh, whose groups are computed on demand (id_at, group, expand).
  std::vector<std::vector<int64_t>> groups;
  // kIota: [num_groups, group_size] <= [iota_dims] T(iota_transpose). kMesh: the same over
  // the positions of the mesh (each axis split at the sub-axes named, the axes not named
  // first: one group per combination of them), each position then mapped to its device by
  // mesh_devices.
  int64_t num_groups = 0;
  int64_t group_size = 0;
  std::vector<int64_t> iota_dims;
  std::vector<int64_t> iota_transpose;  // empty: identity
  DeviceIds mesh_devices;               // kMesh: the device at each position; empty: itself

  // True when no groups are written (`{}`): one group of every participant.
  bool all_participants() const { return form == Form::kList && groups.empty(); }
  // Groups written; 0 when all_participants().
  int64_t group_count() const;
  // Size of every group; `participants` when all participants form one group. Groups of
  // different sizes (never produced by XLA) report the first group's size.
  int64_t size_of_groups(int64_t participants) const;
  // The largest group; 0 when all_participants().
  int64_t largest_group() const;
  // Device ids written over all groups; 0 when all_participants().
  int64_t id_count() const;
  // Member `k` of group `g` (0 <= g < group_count(), 0 <= k < that group's size), in time
  // independent of the number of groups.
  int64_t id_at(int64_t g, int64_t k) const;
  // The members of group `g`.
  std::vector<int64_t> group(int64_t g) const;
  // Every group as explicit device lists (empty when all_participants()). Errors when they
  // would hold more than `max_ids` ids, before anything is expanded.
  absl::StatusOr<std::vector<std::vector<int64_t>>> expand(int64_t max_ids = kMaxDevices) const;

  friend bool operator==(const ReplicaGroups&, const ReplicaGroups&) = default;
};

// Expands an iota device list: 0..N-1 (N = product of `dims`) reshaped to `dims`, transposed
// by `perm` (empty: identity), flattened. Errors when perm is not a permutation of the dims or
// N exceeds kMaxDevices.
absl::StatusOr<std::vector<int64_t>> expand_iota(absl::Span<const int64_t> dims,
                                                 absl::Span<const int64_t> perm);

// Element `position` (0 <= position < N) of that list, in time linear in the rank, without
// expanding it. `dims` and `perm` must be valid (as expand_iota checks them).
int64_t iota_element(absl::Span<const int64_t> dims, absl::Span<const int64_t> perm,
                     int64_t position);

}  // namespace hloroof

#endif  // HLOROOF_REPLICA_GROUPS_H_
