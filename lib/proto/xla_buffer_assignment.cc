// read_xla_buffer_assignment: XLA's BufferAssignmentProto, per allocation.
#include <algorithm>
#include <limits>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "hloroof/hlo_proto.h"
#include "hloroof/absl_compat.h"
#include "proto/hlo.pb.h"
#include "proto/hlo_proto_internal.h"

namespace hloroof {

std::string_view XlaAllocation::kind() const {
  if (is_entry_parameter) return "parameter";
  if (maybe_live_out) return "output";
  if (is_constant) return "constant";
  if (is_thread_local) return "thread-local";
  return "temp";
}

absl::StatusOr<XlaBufferAssignment> read_xla_buffer_assignment(std::string_view bytes) {
  return ParsedHloProto(bytes).xla_buffer_assignment();
}

absl::StatusOr<XlaBufferAssignment> ParsedHloProto::xla_buffer_assignment() const {
  if (!refused_.empty()) return absl::InvalidArgumentError(refused_);
  if (messages_ == nullptr) {
    return absl::InvalidArgumentError(
        "the bytes are neither an xla.HloProto nor an xla.HloModuleProto");
  }
  const xla_proto::HloModuleProto& module = *messages_->read.module;
  const xla_proto::BufferAssignmentProto& proto = *messages_->read.assignment;
  // Instruction names by id, for buffers whose location names only the id (XLA since 2023);
  // made at the first such buffer (an HloModuleProto has none).
  absl::flat_hash_map<int64_t, std::string_view> names;
  bool named = false;
  auto name_of = [&](int64_t id) -> std::string_view {
    if (!named) {
      named = true;
      for (const auto& c : module.computations()) {
        for (const auto& i : c.instructions()) names.emplace(i.id(), i.name());
      }
    }
    auto n = names.find(id);
    return n != names.end() ? n->second : std::string_view();
  };
  // Each logical buffer's instruction name, interned once (a name is hashed once per buffer
  // that holds it, or once per instruction id): allocations then compare small numbers.
  std::vector<std::string_view> interned;
  absl::flat_hash_map<std::string_view, int> intern;
  absl::flat_hash_map<int64_t, int> by_instruction_id;
  const auto intern_name = [&](std::string_view name) {
    if (name.empty()) return -1;
    auto [it, added] = intern.emplace(name, static_cast<int>(interned.size()));
    if (added) interned.push_back(name);
    return it->second;
  };
  absl::flat_hash_map<int64_t, int> buffer_name;  // logical buffer id -> interned name
  for (const auto& b : proto.logical_buffers()) {
    const auto& loc = b.defined_at();
    int name = -1;
    if (!loc.instruction_name().empty()) {
      name = intern_name(loc.instruction_name());
    } else {
      auto [it, added] = by_instruction_id.emplace(loc.instruction_id(), -1);
      if (added) it->second = intern_name(name_of(loc.instruction_id()));
      name = it->second;
    }
    buffer_name.emplace(b.id(), name);
  }
  XlaBufferAssignment out;
  // Names listed over all allocations: no more than the message's own size (and a floor), so
  // that one long name referenced by many allocations is not copied into each.
  size_t name_budget = (size_t{1} << 20) + messages_->size;
  for (const auto& a : proto.buffer_allocations()) {
    XlaAllocation x;
    x.index = a.index();
    x.size_bytes = a.size();
    x.color = a.color();
    x.is_entry_parameter = a.is_entry_computation_parameter();
    x.parameter_number = x.is_entry_parameter ? a.parameter_number() : -1;
    x.maybe_live_out = a.maybe_live_out();
    x.is_constant = a.is_constant();
    x.is_thread_local = a.is_thread_local();
    x.is_tuple = a.is_tuple();
    if (x.size_bytes < 0) {
      return absl::InvalidArgumentError(
          str_cat("buffer allocation ", a.index(), " has a negative size"));
    }
    // Each instruction once, at its largest buffer: an allocation can hold tens of thousands
    // of buffers, and a hostile one the same long name thousands of times.
    absl::flat_hash_map<int, int64_t> largest;
    std::vector<int> order;
    for (const auto& assigned : a.assigned()) {
      auto it = buffer_name.find(assigned.logical_buffer_id());
      if (it == buffer_name.end() || it->second < 0) continue;
      auto [at, added] = largest.emplace(it->second, assigned.size());
      if (added) {
        order.push_back(it->second);
      } else {
        at->second = std::max(at->second, assigned.size());
      }
    }
    std::stable_sort(order.begin(), order.end(), [&largest](int p, int q) {
      return largest.at(p) > largest.at(q);
    });
    size_t listed_bytes = 0;
    for (int id : order) {
      const std::string_view name = interned[static_cast<size_t>(id)];
      if (x.buffers.size() >= XlaAllocation::kMaxListedBuffers ||
          listed_bytes + name.size() > XlaAllocation::kMaxListedNameBytes ||
          name.size() > name_budget) {
        ++x.buffers_not_listed;
        continue;
      }
      listed_bytes += name.size();
      name_budget -= name.size();
      x.buffers.emplace_back(name);
    }
    int64_t* sum = x.is_entry_parameter ? &out.parameter_bytes
                   : x.maybe_live_out   ? &out.output_bytes
                   : x.is_constant      ? &out.constant_bytes
                   : x.is_thread_local  ? &out.thread_local_bytes
                                        : &out.temp_bytes;
    if (*sum > std::numeric_limits<int64_t>::max() - x.size_bytes) {
      return absl::InvalidArgumentError("buffer allocation sizes overflow 64 bits");
    }
    *sum += x.size_bytes;
    out.allocations.push_back(std::move(x));
  }
  return out;
}

}  // namespace hloroof
