// What the rules of advise share: scopes, sizes, and walks over the IR.
#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "advise/advise_internal.h"
#include "hloroof/computation.h"
#include "hloroof/shape_size.h"
#include "hloroof/shape_text.h"
#include "hloroof/units.h"

namespace hloroof::advise_internal {

AdviceEvidence Context::evidence(const IndexedOp& op) const {
  AdviceEvidence e;
  e.op = op.record->name();
  e.computation = op.record->computation();
  e.scope = scope_of(op.record->op_name());
  e.shape = to_string(op.instruction->shape());
  e.multiplier = op.record->multiplier;
  return e;
}

std::string scope_of(std::string_view op_name) {
  const size_t slash = op_name.rfind('/');
  if (slash == std::string_view::npos) return "";
  return std::string(op_name.substr(0, slash));
}

Bytes result_bytes(const Shape& shape) {
  Bytes b;
  for_each_array_leaf(shape, [&b](const Shape& leaf) {
    absl::StatusOr<ArraySize> s = array_size(leaf);
    if (!s.ok() || memory_tier(s->memory_space) != MemoryTier::kDevice) return;
    b.logical += static_cast<double>(s->logical_bytes);
    b.padded += static_cast<double>(s->padded_bytes);
  });
  return b;
}

Bytes Context::bytes_of(const Shape& shape) const {
  auto [it, added] = bytes_of_.try_emplace(&shape);
  if (added) it->second = result_bytes(shape);
  return it->second;
}

bool in_host_memory(const Shape& shape) {
  bool host = false;
  for_each_array_leaf(shape, [&host](const Shape& leaf) {
    if (leaf.layout && memory_tier(leaf.layout->memory_space) == MemoryTier::kHost) host = true;
  });
  return host;
}

namespace {

bool computation_does_matmul(const Computation& c, int depth) {
  if (depth > 8) return false;
  for (const Instruction* i : c.instructions()) {
    if (i->opcode() == Opcode::kDot || i->opcode() == Opcode::kConvolution) return true;
    if (i->opcode() == Opcode::kFusion || i->opcode() == Opcode::kCall) {
      for (const Computation* callee : i->called_computations()) {
        if (computation_does_matmul(*callee, depth + 1)) return true;
      }
    }
  }
  return false;
}

void collect_matmuls(const Computation& c, int depth, std::vector<const Instruction*>& out) {
  if (depth > 8) return;
  for (const Instruction* i : c.instructions()) {
    if (i->opcode() == Opcode::kDot || i->opcode() == Opcode::kConvolution) out.push_back(i);
    if (i->opcode() == Opcode::kFusion) {
      for (const Computation* callee : i->called_computations()) {
        collect_matmuls(*callee, depth + 1, out);
      }
    }
  }
}

// Ops that hand a value on without doing work a rule is about.
bool passes_value_on(const Instruction& i) {
  switch (i.opcode()) {
    case Opcode::kBitcast:
    case Opcode::kReshape:
    case Opcode::kGetTupleElement:
    case Opcode::kTuple:
    case Opcode::kOptimizationBarrier:
      return true;
    default:
      return is_async_done(i.opcode());
  }
}

}  // namespace

bool does_matmul(const Instruction& i) {
  if (i.opcode() == Opcode::kDot || i.opcode() == Opcode::kConvolution) return true;
  if (i.opcode() != Opcode::kFusion && i.opcode() != Opcode::kCall) return false;
  for (const Computation* callee : i.called_computations()) {
    if (computation_does_matmul(*callee, 0)) return true;
  }
  return false;
}

std::vector<const Instruction*> matmuls_of(const Instruction& i) {
  std::vector<const Instruction*> out;
  if (i.opcode() == Opcode::kDot || i.opcode() == Opcode::kConvolution) {
    out.push_back(&i);
  } else if (i.opcode() == Opcode::kFusion) {
    for (const Computation* callee : i.called_computations()) collect_matmuls(*callee, 0, out);
  }
  return out;
}

std::vector<const Instruction*> consumers(const Instruction& i) {
  std::vector<const Instruction*> out;
  absl::flat_hash_set<const Instruction*> seen;
  std::vector<const Instruction*> stack(i.users().begin(), i.users().end());
  while (!stack.empty() && seen.size() < 256) {
    const Instruction* u = stack.back();
    stack.pop_back();
    if (!seen.insert(u).second) continue;
    if (passes_value_on(*u)) {
      stack.insert(stack.end(), u->users().begin(), u->users().end());
    } else {
      out.push_back(u);
    }
  }
  return out;
}

const Instruction* done_of(const Instruction& start) {
  for (const Instruction* u : start.users()) {
    if (is_async_done(u->opcode())) return u;
    // An async-update sits between the start and the done.
    if (u->opcode() == Opcode::kAsyncUpdate) return done_of(*u);
  }
  return nullptr;
}

std::string times_text(double time_s, double multiplier) {
  if (multiplier == 1) return format_seconds(time_s);
  return absl::StrCat(format_seconds(time_s), " x ", multiplier);
}

namespace {

// The order of evidence: largest time at stake first, then most bytes.
template <typename Item>
bool comes_first(const Item& a, const Item& b) {
  if (a.time_at_stake_s != b.time_at_stake_s) return a.time_at_stake_s > b.time_at_stake_s;
  return a.bytes > b.bytes;
}

}  // namespace

std::string sum_text(const std::vector<EvidenceRank>& items, double total) {
  constexpr size_t kShown = 4;
  if (items.size() == 1 && items[0].multiplier == 1) return format_seconds(total);
  std::vector<const EvidenceRank*> largest;
  largest.reserve(items.size());
  for (const EvidenceRank& e : items) largest.push_back(&e);
  std::stable_sort(largest.begin(), largest.end(),
                   [](const EvidenceRank* a, const EvidenceRank* b) {
                     return comes_first(*a, *b);
                   });
  const size_t shown = std::min(kShown, largest.size());
  std::string out;
  for (size_t k = 0; k < shown; ++k) {
    const EvidenceRank& e = *largest[k];
    absl::StrAppend(
        &out, k == 0 ? "" : " + ",
        times_text(e.multiplier > 0 ? e.time_at_stake_s / e.multiplier : 0, e.multiplier));
  }
  if (items.size() > kShown) absl::StrAppend(&out, " + ", items.size() - kShown, " more");
  absl::StrAppend(&out, " = ", format_seconds(total));
  return out;
}

std::string sum_text(const std::vector<AdviceEvidence>& items, double total) {
  std::vector<EvidenceRank> ranks;
  ranks.reserve(items.size());
  for (const AdviceEvidence& e : items) {
    ranks.push_back({e.time_at_stake_s, e.bytes, e.multiplier, ranks.size()});
  }
  return sum_text(ranks, total);
}

void sort_evidence(std::vector<AdviceEvidence>& items) {
  std::stable_sort(items.begin(), items.end(), comes_first<AdviceEvidence>);
}

std::vector<size_t> kept_items(const Context& ctx, std::vector<EvidenceRank> ranks) {
  const size_t kept = ctx.evidence_rows > 0 ? std::min(ctx.evidence_rows, ranks.size())
                                            : ranks.size();
  std::vector<size_t> out;
  out.reserve(kept);
  if (kept == ranks.size()) {
    std::stable_sort(ranks.begin(), ranks.end(), comes_first<EvidenceRank>);
    for (size_t k = 0; k < kept; ++k) out.push_back(ranks[k].item);
    return out;
  }
  // The first `kept` of the stable sort, without sorting the rest: ties go by place.
  std::vector<size_t> order(ranks.size());
  for (size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(kept),
                    order.end(), [&ranks](size_t a, size_t b) {
                      if (comes_first(ranks[a], ranks[b])) return true;
                      if (comes_first(ranks[b], ranks[a])) return false;
                      return a < b;
                    });
  for (size_t k = 0; k < kept; ++k) out.push_back(ranks[order[k]].item);
  return out;
}

void claim_op(const Context& ctx, const IndexedOp& op, double saving, std::string detail,
              Candidate& c, std::vector<AdviceEvidence>& items) {
  const OpPrediction& r = *op.record;
  AdviceEvidence& e = items.emplace_back(ctx.evidence(op));
  e.detail = std::move(detail);
  e.bytes = r.hbm_bytes * r.multiplier;
  e.time_s = op_step_time_s(r);
  e.time_at_stake_s = saving;
  c.claims.push_back({op.instruction, saving});
}

void add_candidate(Candidate c, FindingText text, std::vector<AdviceEvidence> items,
                   double bytes_at_stake, std::vector<Candidate>& out, int64_t op_count) {
  sort_evidence(items);
  c.finding.id = std::string(text.id);
  c.finding.title = std::move(text.title);
  c.finding.what = std::move(text.what);
  c.finding.fix = std::move(text.fix);
  c.arithmetic = std::move(text.arithmetic);
  c.finding.bytes_at_stake = bytes_at_stake;
  c.finding.op_count = op_count >= 0 ? op_count : static_cast<int64_t>(items.size());
  c.finding.evidence = std::move(items);
  out.push_back(std::move(c));
}

}  // namespace hloroof::advise_internal
