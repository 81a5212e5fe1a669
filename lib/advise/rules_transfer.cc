// The rules about data that crosses a link: exposed-collective, serial-loop-collective,
// loop-invariant-gather, replicated-weight-gather, host-transfer.
#include <algorithm>
#include <optional>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "advise/advise_internal.h"
#include "hloroof/computation.h"
#include "hloroof/shape_size.h"
#include "hloroof/units.h"
#include "hloroof/absl_compat.h"

namespace hloroof::advise_internal {
namespace {

bool is_all_gather(const Instruction& i) {
  if (i.opcode() == Opcode::kAllGather || i.opcode() == Opcode::kAllGatherStart) return true;
  return i.opcode() == Opcode::kAsyncStart && i.async_wrapped_opcode() == Opcode::kAllGather;
}

// Follows operand 0 through ops that slice, retype or relabel a value, up to a parameter: the
// entry's (a weight) or a loop body's (a weight carried through the loop).
const Instruction* source_parameter(const Instruction& i) {
  const Instruction* at = &i;
  for (int steps = 0; steps < 16 && at != nullptr; ++steps) {
    switch (at->opcode()) {
      case Opcode::kParameter:
        return at;
      case Opcode::kBitcast:
      case Opcode::kReshape:
      case Opcode::kCopy:
      case Opcode::kConvert:
      case Opcode::kGetTupleElement:
      case Opcode::kDynamicSlice:
      case Opcode::kSlice:
      case Opcode::kTranspose:
      case Opcode::kOptimizationBarrier:
        at = at->operand_count() > 0 ? at->operand(0) : nullptr;
        break;
      default:
        return nullptr;
    }
  }
  return nullptr;
}

// The op that carries a collective's wait on the critical path: an async pair's done, else the
// collective itself.
const Instruction* waiting_op(const Instruction& i) {
  if (is_async_start(i.opcode())) return done_of(i);
  return &i;
}

// Seconds per execution of the ops of `c` that neither feed `start` nor use `done`'s result:
// work the collective could overlap.
double independent_work_s(const Context& ctx, const Computation& c, const Instruction& start,
                          const Instruction& done) {
  absl::flat_hash_set<const Instruction*> related = {&start, &done};
  std::vector<const Instruction*> stack(start.operands().begin(), start.operands().end());
  while (!stack.empty()) {
    const Instruction* i = stack.back();
    stack.pop_back();
    if (!related.insert(i).second) continue;
    stack.insert(stack.end(), i->operands().begin(), i->operands().end());
  }
  stack.assign(done.users().begin(), done.users().end());
  for (const Instruction* u : start.users()) stack.push_back(u);
  while (!stack.empty()) {
    const Instruction* i = stack.back();
    stack.pop_back();
    if (!related.insert(i).second) continue;
    stack.insert(stack.end(), i->users().begin(), i->users().end());
  }
  double work = 0;
  for (const Instruction* i : c.instructions()) {
    if (related.contains(i)) continue;
    const OpPrediction* r = ctx.record(i);
    // Ops bound by the per-op overhead are not work a collective can hide behind.
    if (r != nullptr && !r->collective && !r->async && r->bound != BoundBy::kOverhead) {
      work += op_time_s(*r);
    }
  }
  return work;
}

// The value an all-gather gathers: its operand; for a collective the TPU hands to its
// SparseCore (libtpu's offload: an async start of no operands), the operand its async-update
// passes.
const Instruction* gathered_value(const Instruction& i) {
  if (i.operand_count() > 0) return i.operand(0);
  for (const Instruction* u : i.users()) {
    if (u->opcode() == Opcode::kAsyncUpdate && u->operand_count() > 1) return u->operand(1);
  }
  return nullptr;
}

// The element of `body`'s loop state that `v` is, looking through ops that move or relabel a
// value (bitcast, reshape, copy, an asynchronous copy between memory spaces): its index, or -1.
int64_t state_element(const Instruction* v, const Computation& body) {
  for (int steps = 0; steps < 32 && v != nullptr; ++steps) {
    switch (v->opcode()) {
      case Opcode::kBitcast:
      case Opcode::kReshape:
      case Opcode::kCopy:
      case Opcode::kCopyStart:
      case Opcode::kCopyDone:
        v = v->operand_count() > 0 ? v->operand(0) : nullptr;
        break;
      case Opcode::kGetTupleElement: {
        const Instruction* of = v->operand(0);
        if (of->opcode() != Opcode::kParameter || of->parent() != &body) return -1;
        return v->int_attribute(AttrId::kIndex).value_or(-1);
      }
      default:
        return -1;
    }
  }
  return -1;
}

// Executions per step of the ops of `c`: once in the entry, else as any op of it the
// prediction times (a while op has no record of its own); 0 when none is timed.
double executions_of(const Context& ctx, const Computation& c) {
  if (c.is_entry()) return 1;
  for (const Instruction* i : c.instructions()) {
    if (const OpPrediction* r = ctx.record(i)) return r->multiplier;
  }
  return 0;
}

// An all-gather in a while body of an element of the loop's state that the body passes on
// unchanged: every trip gathers the same value again.
struct InvariantGather {
  const Instruction* loop = nullptr;  // the while
  const Instruction* wait = nullptr;  // the op the step waits on (an async pair's done)
  int64_t element = -1;               // the element of the loop's state gathered
  double trips = 0;
  double full = 0;  // the gathered result's padded bytes
};

// `i` as such a gather, when it is one that loop-invariant-gather reports: more than one trip
// and a result of weight_gather_min_bytes or more.
std::optional<InvariantGather> invariant_gather(const Context& ctx, const Instruction& i) {
  const OpPrediction* r = ctx.record(&i);
  if (r == nullptr || !r->collective || r->collective->kind != "all-gather") return std::nullopt;
  const Computation& body = *i.parent();
  const Instruction* root = body.root();
  InvariantGather g;
  g.loop = body.while_loop();
  if (g.loop == nullptr || root == nullptr || root->opcode() != Opcode::kTuple) {
    return std::nullopt;
  }
  g.element = state_element(gathered_value(i), body);
  if (g.element < 0 || static_cast<size_t>(g.element) >= root->operand_count() ||
      state_element(root->operand(g.element), body) != g.element) {
    return std::nullopt;
  }
  g.wait = waiting_op(i);
  const double loops = executions_of(ctx, *g.loop->parent());
  if (g.wait == nullptr || loops <= 0) return std::nullopt;
  g.trips = r->multiplier / loops;
  g.full = result_bytes(g.wait->shape()).padded;
  if (g.trips <= 1 || g.full < static_cast<double>(ctx.limits.weight_gather_min_bytes)) {
    return std::nullopt;
  }
  return g;
}

std::string collective_detail(const CollectivePrediction& c, double exposed_s, double multiplier) {
  return absl::StrCat(c.kind, " of ", format_bytes(c.payload_bytes), " over ", c.group_size,
                      " devices", c.is_async ? " (async)" : " (synchronous)", ": takes ",
                      format_seconds(c.time_s), ", the step waits ",
                      times_text(exposed_s, multiplier));
}

// The all-gathers a gather rule reports: each one's evidence and claim, and their sums.
struct Gathers {
  Candidate candidate;
  std::vector<AdviceEvidence> items;
  double total = 0;     // seconds at stake per step
  double gathered = 0;  // bytes gathered per step
  // One all-gather `r`, whose wait is `wait`, gathering `full` bytes, `saving` at stake.
  void add(AdviceEvidence e, const OpPrediction& r, const Instruction* wait, double full,
           double saving) {
    e.bytes = full;
    e.time_s = r.collective->time_s * r.multiplier;
    e.time_at_stake_s = saving;
    items.push_back(std::move(e));
    candidate.claims.push_back({wait, saving});
    total += saving;
    gathered += full * r.multiplier;
  }
};

}  // namespace

bool is_loop_invariant_gather(const Context& ctx, const Instruction& i) {
  return invariant_gather(ctx, i).has_value();
}

void loop_invariant_gather(const Context& ctx, std::vector<Candidate>& out) {
  Gathers g;
  std::vector<std::string> terms;  // the first three items' arithmetic
  for (const IndexedOp& op : ctx.ops) {
    const std::optional<InvariantGather> found = invariant_gather(ctx, *op.instruction);
    if (!found) continue;
    const OpPrediction& r = *op.record;
    // Gathered once before the loop, it would wait at most as one trip's gather does now.
    const double saving = r.collective->exposed_s * r.multiplier * (1 - 1 / found->trips);
    if (saving <= 0) continue;
    AdviceEvidence e = ctx.evidence(op);
    e.detail = absl::StrCat("gathers element ", found->element, " of the state of ",
                            sv(found->loop->name()), ", which the loop passes on unchanged, to ",
                            format_bytes(found->full), " in each of its ", found->trips,
                            " trips; the step waits ",
                            times_text(r.collective->exposed_s, r.multiplier));
    g.add(std::move(e), r, found->wait, found->full, saving);
    if (terms.size() < 3) {
      terms.push_back(absl::StrCat(format_seconds(r.collective->exposed_s), " x ", r.multiplier,
                                   " x (1 - 1/", found->trips, ")"));
    }
  }
  if (g.items.empty() || g.total < ctx.min_time_s()) return;
  FindingText text;
  text.id = "loop-invariant-gather";
  text.title = "A loop all-gathers the same value on every trip";
  const bool one = g.items.size() == 1;
  text.what = absl::StrCat(
      g.items.size(), one ? " all-gather inside a while loop gathers a value" :
                            " all-gathers inside while loops gather values",
      " the loop carries unchanged (", format_bytes(g.gathered),
      " per step): the same bytes cross the network on every trip, and the step waits ",
      format_seconds(g.total), " more than one gather before the loop would make it wait.");
  text.fix =
      "Gather it once, before the loop: constrain the value to its gathered sharding outside the "
      "scan (jax.lax.with_sharding_constraint on the weight before jax.lax.scan, as MaxText's "
      "vocabulary tiling gathers its parameters over FSDP first). The gathered value then stays "
      "in memory while the loop runs: check the memory headroom.";
  text.arithmetic = absl::StrCat("exposed time x executions x (1 - 1 / trips): ",
                                 absl::StrJoin(terms, " + "),
                                 g.items.size() > terms.size()
                                     ? absl::StrCat(" + ", g.items.size() - terms.size(), " more")
                                     : "",
                                 " = ", format_seconds(g.total));
  add_candidate(std::move(g.candidate), std::move(text), std::move(g.items), g.gathered, out);
}

bool is_replicated_weight_gather(const Context& ctx, const Instruction& i) {
  if (!is_all_gather(i) || i.operand_count() == 0) return false;
  if (is_loop_invariant_gather(ctx, i)) return false;
  if (source_parameter(*i.operand(0)) == nullptr) return false;
  const Instruction* out = waiting_op(i);
  if (out == nullptr) return false;
  if (result_bytes(out->shape()).padded < static_cast<double>(ctx.limits.weight_gather_min_bytes)) {
    return false;
  }
  for (const Instruction* u : consumers(*out)) {
    if (does_matmul(*u)) return true;
  }
  return false;
}

void replicated_weight_gather(const Context& ctx, std::vector<Candidate>& out) {
  Gathers g;
  for (const IndexedOp& op : ctx.ops) {
    const OpPrediction& r = *op.record;
    if (!r.collective || !is_replicated_weight_gather(ctx, *op.instruction)) continue;
    const double saving = r.collective->exposed_s * r.multiplier;
    const Instruction* wait = waiting_op(*op.instruction);
    if (saving <= 0 || wait == nullptr) continue;
    const Instruction* param = source_parameter(*op.instruction->operand(0));
    const double shard = result_bytes(op.instruction->operand(0)->shape()).padded;
    const double full = result_bytes(wait->shape()).padded;
    std::string consumer;
    for (const Instruction* u : consumers(*wait)) {
      if (does_matmul(*u)) {
        consumer = std::string(u->name());
        break;
      }
    }
    AdviceEvidence e = ctx.evidence(op);
    e.detail = absl::StrCat("gathers ", param->parent()->is_entry() ? "parameter " : "loop state ",
                            sv(param->name()), " from its ", format_bytes(shard),
                            " shard to the full ", format_bytes(full), " on each of ",
                            r.collective->group_size, " devices for ", consumer,
                            "; the step waits ", times_text(r.collective->exposed_s, r.multiplier));
    g.add(std::move(e), r, wait, full, saving);
  }
  if (g.items.empty() || g.total < ctx.min_time_s()) return;
  FindingText text;
  text.id = "replicated-weight-gather";
  text.title = "Whole weights are all-gathered before the matmul, and the step waits";
  text.what = absl::StrCat(
      g.items.size(), " all-gather", g.items.size() == 1 ? "" : "s",
      " rebuild full weights from their shards (", format_bytes(g.gathered),
      " per step) right before a dot or convolution; the step waits ", format_seconds(g.total),
      " for them. This is the \"giant AllGather\": XLA chose to replicate the weight instead of "
      "keeping the matmul sharded.");
  text.fix =
      "Keep the weight sharded through the matmul (tensor parallelism): give the weight a "
      "NamedSharding over the model axis and pin the activations with "
      "jax.lax.with_sharding_constraint so that XLA moves activations, not weights. If FSDP is "
      "intended, let the gather of the next layer overlap this one's compute: scan over layers "
      "(jax.lax.scan) and keep collectives async.";
  text.arithmetic = absl::StrCat("exposed all-gather time: ", sum_text(g.items, g.total));
  add_candidate(std::move(g.candidate), std::move(text), std::move(g.items), g.gathered, out);
}

void exposed_collectives(const Context& ctx, std::vector<Candidate>& out) {
  // The collectives found, with what their evidence says; texts are made for the evidence kept
  // only.
  struct Found {
    const IndexedOp* op;
    double exposed;      // per execution
    double independent;  // per iteration, in a loop body: work that does not depend on it
  };
  Candidate plain, loop;
  std::vector<Found> plain_found, loop_found;
  std::vector<EvidenceRank> plain_ranks, loop_ranks;
  double plain_total = 0, loop_total = 0, loop_exposed = 0;
  for (const IndexedOp& op : ctx.ops) {
    const OpPrediction& r = *op.record;
    if (!r.collective || r.collective->exposed_s <= 0) continue;
    if (is_replicated_weight_gather(ctx, *op.instruction)) continue;
    if (is_loop_invariant_gather(ctx, *op.instruction)) continue;
    const Instruction* wait = waiting_op(*op.instruction);
    if (wait == nullptr) continue;
    const Computation& body = *op.instruction->parent();
    const double exposed = r.collective->exposed_s;
    const double independent =
        body.while_loop() != nullptr ? independent_work_s(ctx, body, *op.instruction, *wait) : 0;
    if (independent > 0 && independent >= ctx.limits.loop_min_independent_share * exposed) {
      const double saving = std::min(exposed, independent) * r.multiplier;
      loop_ranks.push_back(
          {saving, r.collective->payload_bytes, r.multiplier, loop_found.size()});
      loop_found.push_back({&op, exposed, independent});
      loop.claims.push_back({wait, saving});
      loop_total += saving;
      loop_exposed += exposed * r.multiplier;
    } else {
      const double saving = exposed * r.multiplier;
      plain_ranks.push_back(
          {saving, r.collective->payload_bytes, r.multiplier, plain_found.size()});
      plain_found.push_back({&op, exposed, independent});
      plain.claims.push_back({wait, saving});
      plain_total += saving;
    }
  }
  // The evidence of the collectives kept of `found`, their ranks `ranks`, told by `detail`.
  const auto evidence = [&ctx](const std::vector<Found>& found,
                               const std::vector<EvidenceRank>& ranks, const auto& detail) {
    std::vector<AdviceEvidence> items;
    for (size_t k : kept_items(ctx, ranks)) {
      const Found& f = found[k];
      const OpPrediction& r = *f.op->record;
      AdviceEvidence& e = items.emplace_back(ctx.evidence(*f.op));
      e.bytes = r.collective->payload_bytes;
      e.time_s = r.collective->time_s * r.multiplier;
      e.detail = detail(f);
      e.time_at_stake_s = ranks[k].time_at_stake_s;
    }
    return items;
  };
  if (!plain_found.empty() && plain_total >= ctx.min_time_s()) {
    FindingText text;
    text.id = "exposed-collective";
    text.title = "The step waits for collectives";
    const bool one = plain_found.size() == 1;
    text.what = absl::StrCat(plain_found.size(), one ? " collective is" : " collectives are",
                             " not hidden behind other work: the step waits ",
                             format_seconds(plain_total), one ? " for it (" : " for them (",
                             format_percent(plain_total / ctx.step_s()), " of the step).");
    text.fix =
        "Overlap them with work or make them smaller. XLA overlaps only async collectives with "
        "work that does not depend on them: on GPU turn on the latency-hiding scheduler "
        "(XLA_FLAGS=--xla_gpu_enable_latency_hiding_scheduler=true); on TPU it is on, so give it "
        "independent work (microbatches, a scan over layers). Send fewer bytes: reduce "
        "gradients in bf16, or reshard with jax.lax.with_sharding_constraint so that less "
        "crosses the network.";
    text.arithmetic =
        absl::StrCat("exposed time x executions: ", sum_text(plain_ranks, plain_total));
    std::vector<AdviceEvidence> items = evidence(plain_found, plain_ranks, [](const Found& f) {
      const OpPrediction& r = *f.op->record;
      const Instruction& i = *f.op->instruction;
      std::string detail = collective_detail(*r.collective, f.exposed, r.multiplier);
      // A weight gathered inside a loop is gathered again every iteration.
      const Instruction* param = is_all_gather(i) && i.operand_count() > 0
                                     ? source_parameter(*i.operand(0))
                                     : nullptr;
      if (param != nullptr) {
        absl::StrAppend(&detail, "; it gathers ",
                        param->parent()->is_entry() ? "parameter " : "loop state ",
                        sv(param->name()), r.multiplier > 1 ? ", again every iteration" : "");
      }
      return detail;
    });
    add_candidate(std::move(plain), std::move(text), std::move(items), 0, out,
                  static_cast<int64_t>(plain_found.size()));
  }
  if (!loop_found.empty() && loop_total >= ctx.min_time_s()) {
    FindingText text;
    text.id = "serial-loop-collective";
    text.title = "A loop waits for its collectives although it has other work";
    text.what =
        absl::StrCat(loop_found.size(), " collective", loop_found.size() == 1 ? "" : "s",
                     " inside while loops stall every iteration (", format_seconds(loop_exposed),
                     " per step in all) while work that does not depend on them could run; up to ",
                     format_seconds(loop_total), " could be hidden.");
    text.fix =
        "Let each iteration's collective run under independent work: unroll the loop "
        "(jax.lax.scan(..., unroll=2)) so the next iteration's collective can start early; "
        "on TPU enable async collective fusion and collective matmul "
        "(LIBTPU_INIT_ARGS=--xla_tpu_enable_async_collective_fusion=true); on GPU "
        "XLA_FLAGS=--xla_gpu_enable_latency_hiding_scheduler=true. For FSDP over layers, "
        "prefetch the next layer's weights.";
    text.arithmetic = absl::StrCat("min(exposed, independent work) per iteration x trips: ",
                                   sum_text(loop_ranks, loop_total));
    std::vector<AdviceEvidence> items = evidence(loop_found, loop_ranks, [](const Found& f) {
      const OpPrediction& r = *f.op->record;
      return absl::StrCat(collective_detail(*r.collective, f.exposed, r.multiplier),
                          "; each iteration has ", format_seconds(f.independent),
                          " of work that does not depend on it");
    });
    add_candidate(std::move(loop), std::move(text), std::move(items), 0, out,
                  static_cast<int64_t>(loop_found.size()));
  }
}

void host_transfer(const Context& ctx, std::vector<Candidate>& out) {
  Candidate c;
  std::vector<AdviceEvidence> items;
  double total = 0, bytes = 0;
  double queued = 0;  // of `total`: copies waiting behind earlier ones on the host link
  const double host_bw = ctx.device.host_bandwidth.value_or(0);
  for (const IndexedOp& op : ctx.ops) {
    const OpPrediction& r = *op.record;
    const Instruction& i = *op.instruction;
    const Instruction* wait = nullptr;
    double moved = 0, saving = 0;
    if (i.opcode() == Opcode::kCopyStart || i.opcode() == Opcode::kCopyDone) {
      // The pair's wait is on the done; the start carries the shapes either way.
      if (i.opcode() != Opcode::kCopyDone || i.operand_count() == 0) continue;
      const Instruction& start = *i.operand(0);
      const bool host = in_host_memory(i.shape()) ||
                        (start.operand_count() > 0 && in_host_memory(start.operand(0)->shape()));
      if (!host) continue;
      wait = &i;
      absl::StatusOr<ShapeSize> s = shape_size(i.shape());
      moved = s.ok() ? static_cast<double>(s->padded_bytes) : 0;
      saving = op_step_time_s(r);
    } else if (i.opcode() == Opcode::kAsyncDone && !r.collective) {
      // An async computation that reads or writes host memory: libtpu loads an offloaded
      // layer input back as an async dynamic-slice, and stores one as an async
      // dynamic-update-slice into the host buffer. The wait is on the done; the bytes moved are
      // the slice read (the done's result) or the device operands written.
      const Instruction* start = i.async_start();
      if (start == nullptr || start->opcode() != Opcode::kAsyncStart) continue;
      double written = 0;
      bool reads_host = false;
      for (const Instruction* o : start->operands()) {
        if (in_host_memory(o->shape())) {
          reads_host = true;
        } else {
          written += result_bytes(o->shape()).padded;
        }
      }
      const bool writes_host = in_host_memory(i.shape());
      if (!writes_host && !reads_host) continue;
      wait = &i;
      moved = writes_host ? written : result_bytes(i.shape()).padded;
      saving = op_step_time_s(r);
    } else if (i.opcode() == Opcode::kInfeed || i.opcode() == Opcode::kOutfeed) {
      wait = &i;
      moved = r.host_bytes > 0 ? r.host_bytes : result_bytes(i.shape()).padded;
      saving = op_step_time_s(r);
    } else if (r.host_bytes > 0 && !r.collective && !r.async) {
      wait = &i;
      moved = r.host_bytes;
      const double host_s = host_bw > 0 ? r.host_bytes / host_bw : op_time_s(r);
      saving = std::min(op_time_s(r), host_s) * r.multiplier;
    } else {
      continue;
    }
    if (saving <= 0) continue;
    // What queueing behind the copies before it on its direction of the host link adds to a
    // copy's wait (AsyncPrediction::queued_s): alone on the link it would end queued_s sooner.
    const double wait_s = saving / r.multiplier;
    const double wait_queued = r.async ? std::min(r.async->queued_s, wait_s) : 0.0;
    AdviceEvidence e = ctx.evidence(op);
    e.detail = absl::StrCat(format_bytes(moved), " between host and device; the step waits ",
                            times_text(wait_s, r.multiplier));
    if (wait_queued > 0) {
      absl::StrAppend(&e.detail, " (", format_seconds(wait_queued),
                      " of it from queueing behind earlier copies on the host link)");
    }
    queued += wait_queued * r.multiplier;
    e.bytes = moved;
    e.time_s = op_step_time_s(r);
    e.time_at_stake_s = saving;
    items.push_back(std::move(e));
    c.claims.push_back({wait, saving});
    total += saving;
    bytes += moved * r.multiplier;
  }
  if (items.empty() || total < ctx.min_time_s()) return;
  FindingText text;
  text.id = "host-transfer";
  text.title = "The step waits for host transfers";
  text.what = absl::StrCat(items.size(), " transfer", items.size() == 1 ? "" : "s",
                           " between host and device memory (", format_bytes(bytes),
                           " per step) ", items.size() == 1 ? "is" : "are",
                           " on the critical path: the step waits ",
                           format_seconds(total), ".");
  if (queued > 0) {
    absl::StrAppend(&text.what, " ", format_seconds(queued),
                    " of it comes from copies queueing behind earlier ones on their direction "
                    "of the host link, which carries one copy at a time: fewer bytes offloaded, "
                    "or more work between the copies and their use, shortens it.");
  }
  text.fix =
      "Start host copies earlier or offload less: with activation offload, choose a remat "
      "policy that offloads only what compute can hide "
      "(jax.checkpoint(policy=jax.checkpoint_policies.save_and_offload_only_these_names(...))); "
      "keep optimizer state offloaded with memory_kind='pinned_host' out of the inner loop; keep "
      "in device memory what fits (see memory-headroom); feed input with a prefetching loader.";
  text.arithmetic = absl::StrCat("waits on host transfers: ", sum_text(items, total));
  add_candidate(std::move(c), std::move(text), std::move(items), bytes, out);
}

}  // namespace hloroof::advise_internal
