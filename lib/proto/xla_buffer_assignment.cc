// read_xla_buffer_assignment: XLA's BufferAssignmentProto, per allocation.
#include <algorithm>
#include <limits>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "hloroof/hlo_proto.h"
#include "ir/strings.h"
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
  absl::flat_hash_map<int64_t, const xla_proto::LogicalBufferProto*> buffers;
  for (const auto& b : proto.logical_buffers()) buffers.emplace(b.id(), &b);
  XlaBufferAssignment out;
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
    std::vector<std::pair<int64_t, std::string>> held;
    for (const auto& assigned : a.assigned()) {
      auto it = buffers.find(assigned.logical_buffer_id());
      if (it == buffers.end()) continue;
      const auto& loc = it->second->defined_at();
      std::string name = loc.instruction_name();
      if (name.empty()) name = std::string(name_of(loc.instruction_id()));
      if (name.empty()) continue;
      held.emplace_back(assigned.size(), std::move(name));
    }
    std::stable_sort(held.begin(), held.end(),
                     [](const auto& p, const auto& q) { return p.first > q.first; });
    for (auto& [size, name] : held) {
      if (std::find(x.buffers.begin(), x.buffers.end(), name) == x.buffers.end()) {
        x.buffers.push_back(std::move(name));
      }
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
