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

}  // namespace hloroof
