#include "hloroof/collective_kind.h"

namespace hloroof {

std::string_view collective_kind_name(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::kAllReduce:
      return "all-reduce";
    case CollectiveKind::kAllGather:
      return "all-gather";
    case CollectiveKind::kReduceScatter:
      return "reduce-scatter";
    case CollectiveKind::kAllToAll:
      return "all-to-all";
    case CollectiveKind::kRaggedAllToAll:
      return "ragged-all-to-all";
    case CollectiveKind::kCollectivePermute:
      return "collective-permute";
    case CollectiveKind::kCollectiveBroadcast:
      return "collective-broadcast";
    case CollectiveKind::kSend:
      return "send";
    case CollectiveKind::kRecv:
      return "recv";
  }
  return "?";
}

std::optional<CollectiveKind> collective_kind_from_name(std::string_view name) {
  for (int k = 0; k <= static_cast<int>(CollectiveKind::kRecv); ++k) {
    const auto kind = static_cast<CollectiveKind>(k);
    if (collective_kind_name(kind) == name) return kind;
  }
  return std::nullopt;
}

}  // namespace hloroof
