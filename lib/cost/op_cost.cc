// Arithmetic on cost records and the names of the cost layer's enumerations.
#include <algorithm>

#include "hloroof/cost.h"

namespace hloroof {
namespace {

void add_matrix(absl::InlinedVector<MatrixFlops, 1>& to, const MatrixFlops& m) {
  for (MatrixFlops& existing : to) {
    if (existing.type == m.type) {
      existing.flops += m.flops;
      return;
    }
  }
  to.push_back(m);
}

SpaceBytes max_each(const SpaceBytes& a, const SpaceBytes& b) {
  return {std::max(a.device, b.device), std::max(a.on_chip, b.on_chip), std::max(a.host, b.host)};
}

SpaceBytes scale_space(const SpaceBytes& s, double factor) {
  return {s.device * factor, s.on_chip * factor, s.host * factor};
}

}  // namespace

SpaceBytes& SpaceBytes::operator+=(const SpaceBytes& other) {
  device += other.device;
  on_chip += other.on_chip;
  host += other.host;
  return *this;
}

double OpCost::matrix_flops() const {
  double sum = 0;
  for (const MatrixFlops& m : matrix) sum += m.flops;
  return sum;
}

PrimitiveType OpCost::matrix_type() const {
  const MatrixFlops* best = nullptr;
  for (const MatrixFlops& m : matrix) {
    if (best == nullptr || m.flops > best->flops) best = &m;
  }
  return best ? best->type : PrimitiveType::kInvalid;
}

OpCost& OpCost::operator+=(const OpCost& other) {
  flops += other.flops;
  transcendentals += other.transcendentals;
  for (const MatrixFlops& m : other.matrix) add_matrix(matrix, m);
  bytes_read += other.bytes_read;
  bytes_written += other.bytes_written;
  padded_read += other.padded_read;
  padded_written += other.padded_written;
  xla_flops += other.xla_flops;
  xla_transcendentals += other.xla_transcendentals;
  xla_bytes_accessed += other.xla_bytes_accessed;
  unknown_ops += other.unknown_ops;
  return *this;
}

OpCost OpCost::scaled(double factor) const {
  OpCost s = *this;
  s.flops *= factor;
  s.transcendentals *= factor;
  for (MatrixFlops& m : s.matrix) m.flops *= factor;
  s.bytes_read *= factor;
  s.bytes_written *= factor;
  s.padded_read = scale_space(padded_read, factor);
  s.padded_written = scale_space(padded_written, factor);
  s.xla_flops *= factor;
  s.xla_transcendentals *= factor;
  s.xla_bytes_accessed *= factor;
  return s;
}

OpCost max_each(const OpCost& a, const OpCost& b) {
  OpCost m;
  m.flops = std::max(a.flops, b.flops);
  m.transcendentals = std::max(a.transcendentals, b.transcendentals);
  m.matrix = a.matrix;
  for (const MatrixFlops& bm : b.matrix) {
    auto it = std::find_if(m.matrix.begin(), m.matrix.end(),
                           [&](const MatrixFlops& x) { return x.type == bm.type; });
    if (it == m.matrix.end()) {
      m.matrix.push_back(bm);
    } else {
      it->flops = std::max(it->flops, bm.flops);
    }
  }
  m.bytes_read = std::max(a.bytes_read, b.bytes_read);
  m.bytes_written = std::max(a.bytes_written, b.bytes_written);
  m.padded_read = max_each(a.padded_read, b.padded_read);
  m.padded_written = max_each(a.padded_written, b.padded_written);
  m.xla_flops = std::max(a.xla_flops, b.xla_flops);
  m.xla_transcendentals = std::max(a.xla_transcendentals, b.xla_transcendentals);
  m.xla_bytes_accessed = std::max(a.xla_bytes_accessed, b.xla_bytes_accessed);
  m.unknown_ops = a.unknown_ops + b.unknown_ops;
  return m;
}

std::string_view id_mode_name(CollectiveIdMode mode) {
  switch (mode) {
    case CollectiveIdMode::kCrossReplica:
      return "cross-replica";
    case CollectiveIdMode::kCrossPartition:
      return "cross-partition";
    case CollectiveIdMode::kCrossReplicaAndPartition:
      return "cross-replica-and-partition";
    case CollectiveIdMode::kFlattenedId:
      return "flattened-id";
  }
  return "unknown";
}

std::string_view trip_count_source_name(TripCountSource source) {
  switch (source) {
    case TripCountSource::kBackendConfig:
      return "backend_config";
    case TripCountSource::kDerived:
      return "derived";
    case TripCountSource::kAssumed:
      return "assumed";
  }
  return "unknown";
}

std::string_view cost_role_name(CostRole role) {
  switch (role) {
    case CostRole::kScheduled:
      return "scheduled";
    case CostRole::kFused:
      return "fused";
    case CostRole::kApplied:
      return "applied";
  }
  return "unknown";
}

const InstructionCost* ModuleCost::find(const Instruction* instruction) const {
  if (instruction == nullptr) return nullptr;
  const ComputationCost* c = find(instruction->parent());
  if (c == nullptr) return nullptr;
  const auto block = absl::MakeConstSpan(instructions).subspan(c->first_record, c->records);
  const auto position = static_cast<size_t>(instruction->position());
  // A block of every instruction is indexed by position; one of some (the collectives of a
  // fused computation without fused records) is searched, its positions increasing.
  const InstructionCost* record = nullptr;
  if (block.size() == instruction->parent()->instruction_count()) {
    record = &block[position];
  } else {
    auto it = std::lower_bound(block.begin(), block.end(), position,
                               [](const InstructionCost& r, size_t p) {
                                 return static_cast<size_t>(r.instruction->position()) < p;
                               });
    if (it != block.end()) record = &*it;
  }
  return record != nullptr && record->instruction == instruction ? record : nullptr;
}

const ComputationCost* ModuleCost::find(const Computation* computation) const {
  auto it = computation_index.find(computation);
  return it == computation_index.end() ? nullptr : &computations[it->second];
}

}  // namespace hloroof
