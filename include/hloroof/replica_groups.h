// Replica groups of collectives (docs/hlo-text.md, "Attributes"), always expanded to explicit
// device lists so that the collective model can map each group onto physical links.
#ifndef HLOROOF_REPLICA_GROUPS_H_
#define HLOROOF_REPLICA_GROUPS_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace hloroof {

struct ReplicaGroups {
  enum class Form : uint8_t {
    kList,  // {{0,1},{2,3}}, or {} (one group of every participant)
    kIota,  // [G,S]<=[dims]T(perm)
    kMesh,  // mesh['x'=2,'y'=4] {'y'}
  };
  Form form = Form::kList;
  // The groups, expanded for every form. Empty means one group holding every participant.
  std::vector<std::vector<int64_t>> groups;
  // kIota: [num_groups, group_size] <= [iota_dims] T(iota_transpose).
  int64_t num_groups = 0;
  int64_t group_size = 0;
  std::vector<int64_t> iota_dims;
  std::vector<int64_t> iota_transpose;  // empty: identity

  // Size of every group; `participants` when all participants form one group. Groups of
  // different sizes (never produced by XLA) report the first group's size.
  int64_t size_of_groups(int64_t participants) const;
  friend bool operator==(const ReplicaGroups&, const ReplicaGroups&) = default;
};

// The most devices an iota list, mesh or tile assignment may describe (2^20, as many as a
// topology may hold): the device lists are expanded in memory when parsed, and no machine comes
// near this. Larger lists are refused at the text, before anything is expanded.
inline constexpr int64_t kMaxDevices = int64_t{1} << 20;

// Expands an iota device list: 0..N-1 (N = product of `dims`) reshaped to `dims`, transposed
// by `perm` (empty: identity), flattened. Errors when perm is not a permutation of the dims or
// N exceeds kMaxDevices.
absl::StatusOr<std::vector<int64_t>> expand_iota(absl::Span<const int64_t> dims,
                                                 absl::Span<const int64_t> perm);

}  // namespace hloroof

#endif  // HLOROOF_REPLICA_GROUPS_H_
