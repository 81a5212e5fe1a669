// The kinds of collective communication an HLO module can do, shared by the cost model (which
// finds them in the module) and the collective time models (which time them).
#ifndef HLOROOF_COLLECTIVE_KIND_H_
#define HLOROOF_COLLECTIVE_KIND_H_

#include <cstdint>
#include <optional>
#include <string_view>

namespace hloroof {

enum class CollectiveKind : uint8_t {
  kAllReduce,
  kAllGather,
  kReduceScatter,
  kAllToAll,
  kRaggedAllToAll,
  kCollectivePermute,
  kCollectiveBroadcast,
  kSend,
  kRecv,  // the last: collective_kind_from_name reads the kinds up to it
};

// The HLO opcode of the synchronous form: "all-gather", "send", ...
std::string_view collective_kind_name(CollectiveKind kind);
// The kind collective_kind_name names so; none for any other text.
std::optional<CollectiveKind> collective_kind_from_name(std::string_view name);

// Point-to-point transfers (collective-permute, send, recv) move data between pairs, not groups.
inline bool is_point_to_point(CollectiveKind kind) {
  return kind == CollectiveKind::kCollectivePermute || kind == CollectiveKind::kSend ||
         kind == CollectiveKind::kRecv;
}

}  // namespace hloroof

#endif  // HLOROOF_COLLECTIVE_KIND_H_
