// analyze_cost: who calls what and how often, then every instruction's cost, callees first,
// composed through fusions, loops, conditionals, calls and async wrappers.
#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "cost/cost_internal.h"
#include "ir/op_notes.h"
#include "hloroof/absl_compat.h"

namespace hloroof {
namespace cost {

const OpCost& Context::cost_of(const Computation* computation) {
  static const OpCost kNothing;
  auto it = computation_costs.find(computation);
  return it == computation_costs.end() ? kNothing : it->second;
}

namespace {

// A custom call that hands one computation to another execution thread: the TPU's SparseCore
// offload of gathers and scatters (an opaque target, its computation on thread "sparsecore").
// It does that computation's work, on the device, as a call would. A host thread's computation
// (HostExecute) runs on the host: its custom call stays an unknown.
bool is_offload_call(const Instruction& i) {
  if (i.opcode() != Opcode::kCustomCall || i.called_computations().size() != 1) return false;
  const Computation* callee = i.called_computations()[0];
  return callee != nullptr && callee->execution_thread() != "main" &&
         callee->execution_thread() != "host";
}

// How an instruction runs the computations it calls.
CostRole callee_role(const OpView& caller, CostRole caller_role) {
  if (is_offload_call(*caller.instruction)) return caller_role;
  switch (caller.opcode) {
    case Opcode::kFusion:
      return CostRole::kFused;
    case Opcode::kWhile:
    case Opcode::kConditional:
    case Opcode::kCall:
    case Opcode::kAsyncStart:
      return caller_role;
    default:  // reduce, map, sort, scatter, all-reduce, custom-call, ...
      return CostRole::kApplied;
  }
}

// A computation called in two ways (malformed, but parsable) is treated as the more general:
// scheduled over fused or applied, fused over applied.
CostRole merged_role(CostRole a, CostRole b) {
  if (a == CostRole::kScheduled || b == CostRole::kScheduled) return CostRole::kScheduled;
  if (a == CostRole::kFused || b == CostRole::kFused) return CostRole::kFused;
  return CostRole::kApplied;
}

// The work (FLOPs and transcendentals) of `from`, without its bytes.
void add_work(OpCost& to, const OpCost& from) {
  OpCost work = from;
  work.bytes_read = work.bytes_written = work.xla_bytes_accessed = 0;
  work.padded_read = work.padded_written = SpaceBytes{};
  to += work;
}

// Executions of `callee` per execution of `caller`.
double calls_per_execution(const Instruction& caller, const Computation* callee,
                           const Context& context) {
  if (caller.opcode() != Opcode::kWhile) return 1;
  const double n = static_cast<double>(context.trip_counts.at(&caller).count);
  // The condition runs once more than the body: the last time it says stop.
  return callee == caller.computation_attribute(AttrId::kBody) ? n : n + 1;
}

// A loop's cost: body and condition repeated; XLA's figures keep one iteration.
OpCost loop_cost(const OpCost& body, const OpCost& condition, int64_t trip_count) {
  const double n = static_cast<double>(trip_count);
  OpCost cost = body.scaled(n);
  cost += condition.scaled(n + 1);
  cost.xla_flops = body.xla_flops + condition.xla_flops;
  cost.xla_transcendentals = body.xla_transcendentals + condition.xla_transcendentals;
  cost.xla_bytes_accessed = body.xla_bytes_accessed + condition.xla_bytes_accessed;
  return cost;
}

void fusion_cost(const OpView& op, Context& context, OpCost& cost, ByteTally& tally) {
  const Computation* fused = op.instruction->computation_attribute(AttrId::kCalls);
  if (fused == nullptr) return add_default_bytes(op, tally);
  if (const Instruction* stand_in = custom_fusion_stand_in(op, *fused)) {
    const OpView gather_or_scatter = view_of(*stand_in);
    add_flops(gather_or_scatter, context, cost);
    return add_bytes(gather_or_scatter, tally);
  }
  add_work(cost, context.cost_of(fused));  // the bytes are the boundary's
  add_fusion_bytes(op, *fused, context, tally);
}

// What an instruction performs: an async-start spelled out with calls= its wrapped
// computation's root (its collective, if any), any other instruction itself.
OpView performed_op(const OpView& op) {
  const Computation* wrapped = op.opcode == Opcode::kAsyncStart
                                   ? op.instruction->computation_attribute(AttrId::kCalls)
                                   : nullptr;
  const Instruction* done = wrapped != nullptr && wrapped->root() != nullptr ? wrapped->root()
                                                                              : op.instruction;
  // A collective the TPU hands to its SparseCore (XLA's sparse-core collective offload): an
  // offload call whose computation's root is the collective, the call itself the root of an
  // async computation or standing alone.
  if (is_offload_call(*done)) {
    const Computation* callee = done->called_computations()[0];
    if (callee->root() != nullptr && performs_collective(view_of(*callee->root()))) {
      return view_of(*callee->root());
    }
  }
  return done == op.instruction ? op : view_of(*done);
}

OpCost instruction_cost(const Instruction& i, CostRole role, Context& context,
                        InstructionCost& record) {
  const OpView op = view_of(i);
  OpCost cost;
  ByteTally tally(context.sizes);
  switch (op.opcode) {
    case Opcode::kWhile: {
      const TripCount trip = context.trip_counts.at(&i);
      record.trip_count = trip;
      cost = loop_cost(context.cost_of(i.computation_attribute(AttrId::kBody)),
                       context.cost_of(i.computation_attribute(AttrId::kCondition)), trip.count);
      if (trip.source == TripCountSource::kAssumed) {
        context.notes.push_back(
            absl::StrFormat("%s: trip count unknown, counted %d time%s (lower bound)", sv(i.name()),
                            trip.count, trip.count == 1 ? "" : "s"));
      }
      break;
    }
    case Opcode::kConditional: {
      absl::Span<Computation* const> branches = i.called_computations();
      for (size_t b = 0; b < branches.size(); ++b) {
        const OpCost& branch = context.cost_of(branches[b]);
        cost = b == 0 ? branch : max_each(cost, branch);
      }
      if (branches.size() > 1) {
        context.notes.push_back(
            absl::StrFormat("%s: counted as the costliest of its %d branches, figure by figure",
                            sv(i.name()), branches.size()));
      }
      break;
    }
    case Opcode::kCall: {
      const Computation* callee = i.to_apply();
      if (callee == nullptr && !i.called_computations().empty()) {
        callee = i.called_computations()[0];
      }
      cost = context.cost_of(callee);
      break;
    }
    case Opcode::kAsyncStart:  // spelled out with calls=: the wrapped computation runs
      cost = context.cost_of(i.computation_attribute(AttrId::kCalls));
      break;
    case Opcode::kFusion:
      fusion_cost(op, context, cost, tally);
      break;
    case Opcode::kCustomCall:
      if (is_offload_call(i)) {
        cost = context.cost_of(i.called_computations()[0]);
      } else if (!add_custom_call_cost(op, context, cost, tally)) {
        record.unknown = true;
        cost.unknown_ops += 1;
        context.notes.push_back(absl::StrFormat(
            "%s: custom call target \"%s\" is not understood; FLOPs count 0, bytes count its "
            "operands and results",
            sv(i.name()), sv(op.instruction->custom_call_target())));
      }
      break;
    default:
      add_flops(op, context, cost);
      add_bytes(op, tally);
  }
  tally.add_to(cost);
  if (std::optional<CollectiveCost> c =
          collective_cost(performed_op(op), is_async_start(i.opcode()), context)) {
    record.collective = *std::move(c);
  }
  if (role == CostRole::kScheduled) return cost;
  OpCost work;
  add_work(work, cost);
  return work;
}

}  // namespace
}  // namespace cost

absl::StatusOr<ModuleCost> analyze_cost(const Module& module, const CostOptions& options) {
  if (options.default_trip_count < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "default_trip_count wants a non-negative integer, got ", options.default_trip_count));
  }
  using cost::Context;
  if (module.entry() == nullptr) {
    return absl::InvalidArgumentError("the module has no entry computation to cost");
  }
  Context context(module, options);
  absl::Span<Computation* const> computations = module.computations();

  // Callers first: roles, trip counts and how often each computation runs per step.
  absl::flat_hash_map<const Computation*, CostRole> roles;
  absl::flat_hash_map<const Computation*, double> multipliers;
  roles[module.entry()] = CostRole::kScheduled;
  multipliers[module.entry()] = 1;
  for (auto it = computations.rbegin(); it != computations.rend(); ++it) {
    const Computation* c = *it;
    const CostRole role = roles.try_emplace(c, CostRole::kScheduled).first->second;
    const double runs = multipliers[c];
    for (const Instruction* i : c->instructions()) {
      if (i->opcode() == Opcode::kWhile) {
        context.trip_counts[i] = cost::while_trip_count(*i, options.default_trip_count);
      }
      const cost::OpView op = cost::view_of(*i);
      for (const Computation* callee : i->called_computations()) {
        const CostRole callee_role = cost::callee_role(op, role);
        auto [at, inserted] = roles.try_emplace(callee, callee_role);
        if (!inserted) at->second = cost::merged_role(at->second, callee_role);
        multipliers[callee] += runs * cost::calls_per_execution(*i, callee, context);
      }
    }
  }

  // Records go callers first (the entry at the top); each computation's block starts at its
  // offset. Without fused records, the block of a fused or applied computation holds only its
  // instructions that perform a collective.
  ModuleCost result;
  result.module_name = std::string(module.name());
  result.entry = std::string(module.entry()->name());
  result.entry_marked = module.entry_marked();
  const auto records_all = [&](CostRole role) {
    return options.fused_records || role == CostRole::kScheduled;
  };
  const auto recorded = [&](const Instruction& i, CostRole role) {
    return records_all(role) || cost::performs_collective(cost::performed_op(cost::view_of(i)));
  };
  absl::flat_hash_map<const Computation*, size_t> first_record;
  size_t count = 0;
  for (auto it = computations.rbegin(); it != computations.rend(); ++it) {
    first_record[*it] = count;
    const CostRole role = roles[*it];
    if (records_all(role)) {
      count += (*it)->instruction_count();
      continue;
    }
    for (const Instruction* i : (*it)->instructions()) count += recorded(*i, role) ? 1 : 0;
  }
  result.instructions.resize(count);

  // Callees first: every instruction's cost, and each computation's sum. The instructions whose
  // cost could not be told, by computation, in order.
  absl::flat_hash_map<const Computation*, std::vector<const Instruction*>> unknown;
  InstructionCost unrecorded;  // the cost of an instruction that keeps no record
  for (const Computation* c : computations) {
    const CostRole role = roles[c];
    const double runs = multipliers[c];
    InstructionCost* next = &result.instructions[first_record[c]];
    OpCost sum;
    // In a fusion, an instruction whose every use ends in a gather or slice is computed only
    // where it is used: our FLOPs count those elements (XLA's count all of them).
    absl::flat_hash_map<const Instruction*, double> utilization;
    if (role == CostRole::kFused) utilization = cost::element_utilization(*c);
    for (const Instruction* i : c->instructions()) {
      InstructionCost& record = recorded(*i, role) ? *next++ : (unrecorded = {});
      record.computation = c;
      record.instruction = i;
      record.role = role;
      record.multiplier = runs;
      record.cost = cost::instruction_cost(*i, role, context, record);
      if (auto u = utilization.find(i); u != utilization.end() && u->second < 1) {
        record.cost.flops *= u->second;
        record.cost.transcendentals *= u->second;
        for (MatrixFlops& m : record.cost.matrix) m.flops *= u->second;
        result.element_utilization.emplace(i, u->second);
      }
      sum += record.cost;
      if (record.unknown) unknown[c].push_back(i);
      const bool assumed_trips =
          record.trip_count && record.trip_count->source == TripCountSource::kAssumed;
      if (runs > 0 && (record.unknown || assumed_trips)) result.is_lower_bound = true;
    }
    context.computation_costs[c] = sum;
  }

  for (auto it = computations.rbegin(); it != computations.rend(); ++it) {
    const Computation* c = *it;
    result.computation_index[c] = result.computations.size();
    const size_t first = first_record[c];
    const size_t next = it + 1 == computations.rend() ? count : first_record[*(it + 1)];
    result.computations.push_back(
        {c, roles[c], multipliers[c], context.computation_costs[c], first, next - first});
    if (auto u = unknown.find(c); u != unknown.end()) {
      result.unknown.insert(result.unknown.end(), u->second.begin(), u->second.end());
    }
  }
  result.totals = context.computation_costs[module.entry()];
  if (context.sizes.failures() > 0) {
    context.notes.push_back(absl::StrCat(context.sizes.failures(),
                                         " shape(s) have no size (unbounded dimensions, or too "
                                         "many elements to count) and count 0 bytes"));
  }
  result.notes = group_op_notes(context.notes, &module);
  return result;
}

}  // namespace hloroof
