// What a collective moves and between whom (docs/cost-conventions.md, "Collectives"): its kind,
// payload V, group size N, how its replica_groups ids name devices, and the groups (or a permute's
// pairs) as global device ids.
#include <algorithm>

#include "cost/cost_internal.h"
#include "hloroof/replica_groups.h"
#include "util/checked_math.h"

namespace hloroof::cost {
namespace {

// More device ids than this in one collective's groups are not listed (a malformed
// replica_count would otherwise exhaust memory); the group size is still reported.
constexpr int64_t kMaxListedDevices = int64_t{1} << 20;
// And over the whole module: 2^22 ids (32 MiB) and 4096 more for every collective, so that a
// module of many collectives over a large mesh (a few bytes of text each) lists ids in
// memory linear in its collectives, never 8 MiB for each of them.
constexpr int64_t kModuleListedDevices = int64_t{1} << 22;
constexpr int64_t kListedDevicesPerCollective = 4096;

std::optional<CollectiveKind> kind_of(Opcode op) {
  switch (op) {
    case Opcode::kAllReduce:
    case Opcode::kAllReduceStart:
      return CollectiveKind::kAllReduce;
    case Opcode::kAllGather:
    case Opcode::kAllGatherStart:
      return CollectiveKind::kAllGather;
    case Opcode::kReduceScatter:
      return CollectiveKind::kReduceScatter;
    case Opcode::kAllToAll:
      return CollectiveKind::kAllToAll;
    case Opcode::kRaggedAllToAll:
      return CollectiveKind::kRaggedAllToAll;
    case Opcode::kCollectivePermute:
    case Opcode::kCollectivePermuteStart:
      return CollectiveKind::kCollectivePermute;
    case Opcode::kCollectiveBroadcast:
      return CollectiveKind::kCollectiveBroadcast;
    case Opcode::kSend:
      return CollectiveKind::kSend;
    case Opcode::kRecv:
      return CollectiveKind::kRecv;
    default:
      return std::nullopt;
  }
}

// Ops that always carry use_global_device_ids (printed only when true).
bool has_global_ids_flag(CollectiveKind kind) {
  return kind == CollectiveKind::kAllReduce || kind == CollectiveKind::kAllGather ||
         kind == CollectiveKind::kReduceScatter;
}

const Shape& element_or_self(const Shape& shape, size_t index) {
  return shape.is_tuple() && shape.elements.size() > index ? shape.elements[index] : shape;
}

class PayloadMeter {
 public:
  explicit PayloadMeter(ShapeSizes& sizes) : sizes_(sizes) {}
  double leaves(const Shape& shape) {
    double bytes = 0;
    for_each_array_leaf(shape, [&](const Shape& leaf) { bytes += sizes_.array(leaf).padded; });
    return bytes;
  }
  double operands(const OpView& op) {
    double bytes = 0;
    for (size_t i = 0; i < op.operand_count(); ++i) bytes += leaves(*op.operand_shape(i));
    return bytes;
  }

 private:
  ShapeSizes& sizes_;
};

// Global device id of (replica, partition), as XLA numbers devices in flattened mode. Products
// of header counts and ids from the text may not fit: they saturate instead of wrapping.
struct DeviceGrid {
  int64_t replicas = 1;
  int64_t partitions = 1;
  int64_t id(int64_t replica, int64_t partition) const {
    return saturating_add(saturating_mul(replica, partitions), partition);
  }
};

// Expands `groups` (none, or no groups written: one group of every participant the mode names)
// into global device ids. Returns the group size; fills `out` unless the listing would be too
// long, which is known before anything is expanded (groups in iota form stay lazy).
int64_t expand_groups(CollectiveIdMode mode, const ReplicaGroups* written, const DeviceGrid& grid,
                      std::vector<std::vector<int64_t>>& out, Context& context) {
  int64_t participants = 0, repeats = 1, widen = 1;
  switch (mode) {
    case CollectiveIdMode::kCrossReplica:
      participants = grid.replicas;
      repeats = grid.partitions;
      break;
    case CollectiveIdMode::kCrossPartition:
      participants = grid.partitions;
      repeats = grid.replicas;
      break;
    case CollectiveIdMode::kCrossReplicaAndPartition:
      participants = grid.replicas;
      widen = grid.partitions;
      break;
    case CollectiveIdMode::kFlattenedId:
      participants = saturating_mul(grid.replicas, grid.partitions);
      break;
  }
  const bool everyone = written == nullptr || written->all_participants();
  const int64_t largest = saturating_mul(everyone ? participants : written->largest_group(), widen);
  const double listed = static_cast<double>(everyone ? participants : written->id_count()) *
                        static_cast<double>(widen) * static_cast<double>(repeats);
  context.listed_devices_budget =
      saturating_add(context.listed_devices_budget, kListedDevicesPerCollective);
  const int64_t budget =
      std::min(kMaxListedDevices,
               std::max<int64_t>(0, saturating_add(kModuleListedDevices,
                                                   context.listed_devices_budget) -
                                        context.listed_devices));
  if (listed > static_cast<double>(budget)) return largest;
  context.listed_devices += static_cast<int64_t>(listed);
  std::vector<std::vector<int64_t>> groups;
  if (!everyone) {
    absl::StatusOr<std::vector<std::vector<int64_t>>> expanded =
        written->expand(kMaxListedDevices);
    if (!expanded.ok()) return largest;
    groups = *std::move(expanded);
  }
  if (groups.empty()) {
    auto& all = groups.emplace_back(static_cast<size_t>(participants));
    for (int64_t k = 0; k < participants; ++k) all[static_cast<size_t>(k)] = k;
  }
  for (const auto& g : groups) {
    switch (mode) {
      case CollectiveIdMode::kCrossReplica:
        for (int64_t p = 0; p < grid.partitions; ++p) {
          auto& ids = out.emplace_back();
          for (int64_t r : g) ids.push_back(grid.id(r, p));
        }
        break;
      case CollectiveIdMode::kCrossPartition:
        for (int64_t r = 0; r < grid.replicas; ++r) {
          auto& ids = out.emplace_back();
          for (int64_t p : g) ids.push_back(grid.id(r, p));
        }
        break;
      case CollectiveIdMode::kCrossReplicaAndPartition: {
        auto& ids = out.emplace_back();
        for (int64_t r : g) {
          for (int64_t p = 0; p < grid.partitions; ++p) ids.push_back(grid.id(r, p));
        }
        break;
      }
      case CollectiveIdMode::kFlattenedId:
        out.push_back(g);
        break;
    }
  }
  return largest;
}

}  // namespace

bool performs_collective(const OpView& op) { return kind_of(op.opcode).has_value(); }

std::optional<CollectiveCost> collective_cost(const OpView& op, bool is_async, Context& context) {
  std::optional<CollectiveKind> kind = kind_of(op.opcode);
  if (!kind) return std::nullopt;
  const Instruction& i = *op.instruction;
  CollectiveCost c;
  c.kind = *kind;
  c.is_async = is_async;
  c.channel_id = i.channel_id();
  c.is_host_transfer = i.bool_attribute(AttrId::kIsHostTransfer);
  if (!c.channel_id) {
    c.id_mode = CollectiveIdMode::kCrossReplica;
  } else if (has_global_ids_flag(c.kind)) {
    c.id_mode = i.use_global_device_ids() ? CollectiveIdMode::kFlattenedId
                                          : CollectiveIdMode::kCrossReplicaAndPartition;
  } else {
    c.id_mode = CollectiveIdMode::kCrossPartition;
  }
  const ModuleAttributes& header = context.module.attributes();
  const DeviceGrid grid{std::max<int64_t>(1, header.replica_count),
                        std::max<int64_t>(1, header.num_partitions)};

  if (c.kind == CollectiveKind::kSend || c.kind == CollectiveKind::kRecv) {
    c.group_size = 2;
  } else if (c.kind == CollectiveKind::kCollectivePermute) {
    c.group_size = 2;
    // Expand each (source, target) like a group of two, then read the pairs back.
    ReplicaGroups pairs;
    if (const IntListList* p = i.source_target_pairs()) pairs.groups = *p;
    std::vector<std::vector<int64_t>> expanded;
    if (!pairs.groups.empty()) expand_groups(c.id_mode, &pairs, grid, expanded, context);
    for (const std::vector<int64_t>& pair : expanded) {
      if (pair.size() == 2) c.pairs.emplace_back(pair[0], pair[1]);
    }
    if (c.pairs.empty() && i.source_target_pairs() != nullptr &&
        !i.source_target_pairs()->empty()) {
      context.notes.push_back(std::string(i.name()) + ": too many devices to list its pairs");
    }
  } else {
    const ReplicaGroups* groups = i.replica_groups();
    if (c.id_mode == CollectiveIdMode::kFlattenedId &&
        (groups == nullptr || groups->all_participants())) {
      context.notes.push_back(std::string(i.name()) +
                              ": empty replica_groups with global device ids; taken as every "
                              "device");
    }
    c.group_size = expand_groups(c.id_mode, groups, grid, c.groups, context);
    if (c.groups.empty()) {
      context.notes.push_back(std::string(i.name()) +
                              ": too many devices to list its groups; group size only");
    }
  }

  PayloadMeter meter(context.sizes);
  switch (c.kind) {
    case CollectiveKind::kAllReduce:
    case CollectiveKind::kReduceScatter:
    case CollectiveKind::kCollectiveBroadcast:
      c.payload_bytes = meter.operands(op);  // the full (unreduced) buffer
      break;
    case CollectiveKind::kAllGather:
      // all-gather-start's result also holds its operands: only the gathered part counts.
      c.payload_bytes = meter.leaves(
          op.opcode == Opcode::kAllGatherStart ? element_or_self(*op.result, 1) : *op.result);
      break;
    case CollectiveKind::kAllToAll:
      c.payload_bytes = static_cast<double>(c.group_size) * meter.operands(op);
      break;
    case CollectiveKind::kRaggedAllToAll:
      // The output buffer bounds what arrives; the real sizes are only known at run time.
      if (const Shape* output = op.operand_shape(1)) {
        c.payload_bytes = static_cast<double>(c.group_size) * meter.leaves(*output);
      }
      break;
    case CollectiveKind::kCollectivePermute:
    case CollectiveKind::kSend:
      if (const Shape* data = op.operand_shape(0)) c.payload_bytes = meter.leaves(*data);
      break;
    case CollectiveKind::kRecv:
      c.payload_bytes = meter.leaves(element_or_self(*op.result, 0));
      break;
  }
  return c;
}

}  // namespace hloroof::cost
