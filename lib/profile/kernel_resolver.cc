// Kernels whose hlo_op names no instruction of the module (the kernels of CUDA graphs, those
// of async-wrapped operations) given their instructions: resolve_kernels.
#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "hloroof/computation.h"
#include "hloroof/instruction.h"
#include "hloroof/metadata.h"
#include "hloroof/profile.h"
#include "profile/profile_internal.h"
#include "hloroof/absl_compat.h"

namespace hloroof::profile_internal {
namespace {

// ---- Kernels of CUDA graphs ----------------------------------------------------------------
//
// XLA runs sequences of thunks as CUDA graphs (its "command buffers"); the kernels of such a graph
// carry the command buffer's name as their hlo_op ("command_buffer_8"), not an instruction's. Their
// own names still tell most of them: XLA names a fusion's kernel after the fusion, with every
// character outside [A-Za-z0-9_] made '_' ("loop_add_fusion.1" -> loop_add_fusion_1). The rest
// (library GEMMs, memcpy and memset nodes) lie between such named kernels in launch order, as their
// instructions lie between the named ones in the schedule: they are aligned with the instructions
// there that launch work.

std::string kernel_name_of(std::string_view instruction) {
  std::string out(instruction);
  for (char& c : out) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
  }
  return out;
}

// Instructions that launch no kernel of their own.
bool launches_nothing(const Instruction& i) {
  switch (i.opcode()) {
    case Opcode::kParameter:
    case Opcode::kConstant:
    case Opcode::kGetTupleElement:
    case Opcode::kTuple:
    case Opcode::kBitcast:
    case Opcode::kAfterAll:
    case Opcode::kWhile:
    case Opcode::kConditional:
    case Opcode::kCall:
      return true;
    default:
      return is_async_done(i.opcode());
  }
}

// Work a memcpy or memset node does: copies, and fusions that only slice or update a slice.
bool copies(const Instruction& i) {
  if (i.opcode() == Opcode::kCopy || i.opcode() == Opcode::kCopyStart) return true;
  if (i.opcode() != Opcode::kFusion && i.opcode() != Opcode::kAsyncStart) return false;
  for (const Computation* c : i.called_computations()) {
    const Instruction* root = c->root();
    if (root == nullptr) continue;
    switch (root->opcode()) {
      case Opcode::kDynamicSlice:
      case Opcode::kDynamicUpdateSlice:
      case Opcode::kSlice:
      case Opcode::kCopy:
        return true;
      default:
        break;
    }
  }
  return false;
}

// "_ROOT_fusion", ROOT the kernel-name form of the opcode of the root of what a fusion (or an
// async wrapper of one) calls: "_dynamic_update_slice_fusion"; empty for other instructions.
std::string root_name(const Instruction& i) {
  if (i.opcode() != Opcode::kFusion && i.opcode() != Opcode::kAsyncStart) return {};
  for (const Computation* c : i.called_computations()) {
    if (c->root() != nullptr) {
      return absl::StrCat("_", kernel_name_of(opcode_name(c->root()->opcode())), "_fusion");
    }
  }
  return {};
}

enum class KernelKind { kCompute, kCopy, kSet };

KernelKind kernel_kind(std::string_view name) {
  if (absl::StartsWithIgnoreCase(sv(name), "memcpy")) return KernelKind::kCopy;
  if (absl::StartsWithIgnoreCase(sv(name), "memset")) return KernelKind::kSet;
  return KernelKind::kCompute;
}

// A kernel to place: its kind, and for a hidden operation its name ("loop_dynamic_slice_
// fusion.6": XLA names a fusion after its root).
struct Kernel {
  KernelKind kind;
  std::string_view hidden;
};

// A candidate instruction: whether it copies, and "_ROOT_fusion" with the kernel-name form of
// the opcode of its called computation's root ("_dynamic_update_slice_fusion"), if any.
struct Candidate {
  bool copies = false;
  std::string root;
};

// A memset on an instruction that does not copy: a library call's workspace clearing, launched
// just before the call, and charged so that the call's own kernel goes with it (repeat_cost).
constexpr double kMemsetAlone = 0.5;

// The cost of running kernel `k` for instruction `c`.
double mismatch(const Kernel& k, const Candidate& c) {
  double cost = 0;
  switch (k.kind) {
    case KernelKind::kCopy:
      cost = c.copies ? 0 : 1;
      break;
    case KernelKind::kSet:
      cost = c.copies ? 0.75 : kMemsetAlone;
      break;
    case KernelKind::kCompute:
      cost = c.copies ? 1 : 0;
      break;
  }
  if (!k.hidden.empty() && !c.root.empty() && k.hidden.find(c.root) == std::string_view::npos) {
    cost += 1;
  }
  return cost;
}

// An instruction left without a kernel, and a second kernel for one instruction: both happen
// (a library call clears its workspace first), both less often than not. A memset is that
// clearing, launched before its call: one after another kernel of the same instruction costs
// kMemsetAfter more, and the kernel after a memset on its instruction kMemsetAlone less (what
// the memset paid for being alone: a memset and its call cost kRepeated together).
constexpr double kSkipped = 1;
constexpr double kRepeated = 0.5;
constexpr double kMemsetAfter = 1;

// The cost of a kernel of kind `k` following one of kind `before` on the same instruction.
double repeat_cost(KernelKind before, KernelKind k) {
  if (k == KernelKind::kSet) return kRepeated + kMemsetAfter;
  return before == KernelKind::kSet ? kRepeated - kMemsetAlone : kRepeated;
}

// Costs of two alignments that differ by less than this are equal.
constexpr double kTie = 1e-9;

// Each kernel's instruction, and the instructions that are not sure of their kernels: those
// that an alignment of the same least cost gives a kernel that another one places elsewhere.
struct Alignment {
  std::vector<size_t> to;
  std::vector<bool> unsure;  // per instruction
};

// Assigns n kernels (in launch order) to m candidate instructions (in schedule order)
// monotonically, each kernel to one instruction, at the least total cost: `cost(k, j)` of
// kernel k on instruction j, `repeat(k)` for kernel k on the instruction of kernel k - 1, and
// kSkipped for each instruction skipped between two kernels' instructions; also for each one
// skipped before the first kernel's when `skips_before` counts, and after the last kernel's
// when `skips_after` does. A second pass from the end gives each (kernel, instruction) the
// least cost of a whole alignment through it: where two instructions reach the least for one
// kernel, both are unsure. O(n x m) time and memory; n, m > 0.
template <typename Cost, typename Repeat>
Alignment align(size_t n, size_t m, const Cost& cost, const Repeat& repeat, bool skips_before,
                bool skips_after) {
  constexpr double kInf = 1e300;
  const auto skipped = [](size_t count) { return kSkipped * static_cast<double>(count); };
  // best[k * m + j]: kernels [0, k] placed, kernel k on instruction j.
  std::vector<double> best(n * m, kInf);
  std::vector<uint32_t> from(n * m, 0);
  for (size_t j = 0; j < m; ++j) best[j] = (skips_before ? skipped(j) : 0) + cost(0, j);
  for (size_t k = 1; k < n; ++k) {
    // Kernel k on instruction c follows kernel k - 1 on c itself, or on j < c with c - j - 1
    // instructions skipped: the least of best[k - 1][j] - j over j < c, kept as c grows.
    const double* prev = &best[(k - 1) * m];
    const double again = repeat(k);
    double least = kInf;
    size_t least_at = 0;
    for (size_t c = 0; c < m; ++c) {
      double total = prev[c] + again;
      size_t came = c;
      if (least < kInf) {
        const double moved = least + kSkipped * (static_cast<double>(c) - 1);
        if (moved < total) total = moved, came = least_at;
      }
      best[k * m + c] = total + cost(k, c);
      from[k * m + c] = static_cast<uint32_t>(came);
      const double here = prev[c] - skipped(c);
      if (here < least) least = here, least_at = c;
    }
  }
  // rest[k * m + j]: the least cost of kernels (k, n) with kernel k on instruction j.
  std::vector<double> rest(n * m, kInf);
  for (size_t j = 0; j < m; ++j) rest[(n - 1) * m + j] = skips_after ? skipped(m - 1 - j) : 0;
  for (size_t k = n - 1; k > 0; --k) {
    // Kernel k - 1 on j: kernel k on j itself, or on c > j with c - j - 1 skipped.
    const double* next = &rest[k * m];
    const double again = repeat(k);
    double least = kInf;  // the least of cost(k, c) + next[c] + c over c > j
    for (size_t j = m; j-- > 0;) {
      const double here = cost(k, j) + next[j];
      double total = again + here;
      if (least < kInf) total = std::min(total, least - skipped(j + 1));
      rest[(k - 1) * m + j] = total;
      least = std::min(least, here + skipped(j));
    }
  }
  size_t end = 0;
  for (size_t j = 1; j < m; ++j) {
    if (best[(n - 1) * m + j] + rest[(n - 1) * m + j] <
        best[(n - 1) * m + end] + rest[(n - 1) * m + end]) {
      end = j;
    }
  }
  const double least = best[(n - 1) * m + end] + rest[(n - 1) * m + end];
  Alignment out;
  out.to.resize(n);
  out.unsure.resize(m);
  for (size_t k = n; k > 0; --k) {
    out.to[k - 1] = end;
    end = from[(k - 1) * m + end];
  }
  std::vector<size_t> equal;
  for (size_t k = 0; k < n; ++k) {
    equal.clear();
    for (size_t j = 0; j < m; ++j) {
      if (best[k * m + j] + rest[k * m + j] <= least + kTie) equal.push_back(j);
    }
    if (equal.size() < 2) continue;
    for (size_t j : equal) out.unsure[j] = true;
  }
  return out;
}

// One alignment of more cells (kernels x candidates) than this is not tried: its memory (20
// bytes a cell) stays under 84 MB.
constexpr size_t kMaxAlignment = size_t{1} << 22;

bool is_graph_kernel(std::string_view op) { return absl::StartsWith(sv(op), "command_buffer"); }

// Gives kernels whose hlo_op names no instruction of the module their instructions where
// they can be told; the rest keep their names. Two cases:
//  - the kernels of a CUDA graph launch (hlo_op "command_buffer_N", one correlation id per
//    launch): named kernels anchor; the others are aligned between them;
//  - the operation an async wrapper runs ("fusion-start" runs a fusion that the text's async
//    sugar does not name, and its kernels carry that hidden name): aligned between the
//    kernels launched just before and after it (launch order is correlation id order).
// The work (alignment cells, instructions scanned for candidates) is counted, and what would
// take it past the limit is not tried.
class KernelResolver {
 public:
  KernelResolver(const Module& module, int64_t max_work) : max_work_(max_work) {
    for (const Computation* c : module.computations()) {
      for (const Instruction* i : c->instructions()) {
        by_name_.emplace(i->name(), i);
        by_kernel_[kernel_name_of(i->name())].push_back(i);
        if (i->opcode() != Opcode::kFusion) continue;
        // A fusion identical to another runs the other's kernel (metadata deduplicated_name).
        const std::optional<OpMetadata> metadata = i->metadata();
        if (metadata && !metadata->deduplicated_name.empty() &&
            metadata->deduplicated_name != i->name()) {
          std::string shared = kernel_name_of(metadata->deduplicated_name);
          by_kernel_[shared].push_back(i);
          shared_kernel_.emplace(i, std::move(shared));
        }
      }
    }
  }

  bool names_instruction(std::string_view op) const { return by_name_.contains(op); }

  void resolve(std::vector<OpEvent>& events, KernelResolution& out) {
    for (const OpEvent& e : events) {
      if (auto it = by_name_.find(e.op); it != by_name_.end()) taken_.insert(it->second);
    }
    std::map<std::pair<std::string_view, uint64_t>, std::vector<OpEvent*>> graphs;
    for (OpEvent& e : events) {
      if (!by_name_.contains(e.op) && is_graph_kernel(e.op)) {
        graphs[{e.op, e.event->correlation_id}].push_back(&e);
      }
    }
    // Launches of one graph whose kernels ran in the same order are aligned alike: once.
    absl::flat_hash_map<std::string, std::vector<const Instruction*>> aligned;
    for (auto& [key, kernels] : graphs) {
      std::stable_sort(kernels.begin(), kernels.end(), [](const OpEvent* a, const OpEvent* b) {
        return a->event->start_s < b->event->start_s;
      });
      std::string order(key.first);
      for (const OpEvent* e : kernels) absl::StrAppend(&order, "\n", e->event->name);
      auto [it, added] = aligned.try_emplace(std::move(order));
      if (added) it->second = align_launch(kernels);
      for (size_t k = 0; k < kernels.size(); ++k) {
        if (it->second[k] == nullptr) continue;
        kernels[k]->op = it->second[k]->name();
        ++out.resolved;
      }
    }
    for (const OpEvent& e : events) {
      if (auto it = by_name_.find(e.op); it != by_name_.end()) taken_.insert(it->second);
    }
    out.resolved += resolve_hidden(events);
    out.work = work_;
    out.cut_short = cut_short_;
    for (const Instruction* i : uncertain_) out.uncertain.emplace_back(i->name());
    std::sort(out.uncertain.begin(), out.uncertain.end());
  }

 private:
  // Charges `amount` of work when the limit allows it; else notes that resolution was cut
  // short and returns false.
  bool charge(size_t amount) {
    if (amount > static_cast<uint64_t>(max_work_ - work_)) {
      cut_short_ = true;
      return false;
    }
    work_ += static_cast<int64_t>(amount);
    return true;
  }

  // Whether an alignment of n kernels on m candidates may be made (and charges it).
  bool may_align(size_t n, size_t m) {
    if (n * m > kMaxAlignment) {
      cut_short_ = true;
      return false;
    }
    return charge(n * m);
  }

  // "gemm_fusion_dot_44" -> "gemm_fusion_dot": a kernel name without its trailing numbers.
  static std::string_view stem(std::string_view name) {
    while (!name.empty()) {
      const size_t end = name.find_last_not_of("0123456789");
      if (end == std::string_view::npos || end + 1 == name.size() || name[end] != '_') break;
      name = name.substr(0, end);
    }
    return name;
  }

  // The computation a graph runs: the one most kernel names point to alone.
  const Computation* home_of(const std::vector<OpEvent*>& kernels) const {
    std::map<const Computation*, int64_t> votes;
    for (const OpEvent* e : kernels) {
      auto it = by_kernel_.find(e->event->name);
      if (it != by_kernel_.end() && it->second.size() == 1) ++votes[it->second.front()->parent()];
    }
    const Computation* home = nullptr;
    int64_t most = 0;
    for (const auto& [c, n] : votes) {
      if (n > most) home = c, most = n;
    }
    return home;
  }

  // One launch of a CUDA graph: its kernels (in launch order) against the instructions of
  // the computation it runs (in schedule order) that launch work and whose kernels do not
  // run outside graphs, aligned monotonically at the least cost. Per kernel and instruction:
  // 0 when the kernel bears the instruction's name (or the name of the fusion whose kernel it
  // shares, deduplicated_name); 1 when the names differ only in their numbers (XLA also
  // shares kernels between identical fusions that say nothing of it); 4 for other names; for
  // kernels of no instruction's name (library calls, memcpy and memset nodes) the copy/compute
  // mismatch, and 2 more on a fusion whose own kernel ran in the launch. An instruction
  // skipped between two kernels' costs 1, a second kernel on one instruction repeat_cost;
  // skipping before the first and after the last is free (a computation may run as several
  // graphs). Returns each kernel's instruction; none (nullptr) when the launch cannot be told.
  std::vector<const Instruction*> align_launch(const std::vector<OpEvent*>& kernels) {
    std::vector<const Instruction*> out(kernels.size(), nullptr);
    const Computation* home = home_of(kernels);
    if (home == nullptr || !charge(home->instruction_count())) return out;
    struct Option {
      const Instruction* instruction;
      std::string kernel;  // the instruction's kernel name
      bool copies;
      bool named_kernel_ran;  // launches a kernel named after a fusion
    };
    absl::flat_hash_set<std::string_view> ran;
    for (const OpEvent* e : kernels) ran.insert(e->event->name);
    std::vector<Option> options;
    for (const Instruction* i : home->instructions()) {
      if (launches_nothing(*i) || taken_.contains(i)) continue;
      Option o{i, kernel_name_of(i->name()), copies(*i), false};
      // A loop or input fusion launches a kernel of its own (or of an identical fusion):
      // never a library's. Custom fusions (cuBLAS, cuDNN, Triton GEMMs) may.
      if (i->opcode() == Opcode::kFusion) {
        auto shared = shared_kernel_.find(i);
        o.named_kernel_ran = i->fusion_kind() != "kCustom" || ran.contains(o.kernel) ||
                             (shared != shared_kernel_.end() && ran.contains(shared->second));
      }
      options.push_back(std::move(o));
    }
    const size_t n = kernels.size(), m = options.size();
    if (m == 0 || !may_align(n, m)) return out;
    std::vector<const std::vector<const Instruction*>*> known(n, nullptr);
    std::vector<KernelKind> kinds(n);
    for (size_t k = 0; k < n; ++k) {
      auto it = by_kernel_.find(kernels[k]->event->name);
      if (it != by_kernel_.end()) known[k] = &it->second;
      kinds[k] = kernel_kind(kernels[k]->event->name);
    }
    const auto cost = [&](size_t k, size_t j) {
      const Option& o = options[j];
      if (known[k] != nullptr) {
        for (const Instruction* i : *known[k]) {
          if (i == o.instruction) return 0.0;
        }
        return stem(kernels[k]->event->name) == stem(o.kernel) ? 1.0 : 4.0;
      }
      return mismatch({kinds[k], {}}, {o.copies, {}}) + (o.named_kernel_ran ? 2.0 : 0.0);
    };
    const auto repeat = [&](size_t k) { return repeat_cost(kinds[k - 1], kinds[k]); };
    const Alignment a = align(n, m, cost, repeat, false, false);
    for (size_t k = 0; k < n; ++k) out[k] = options[a.to[k]].instruction;
    for (size_t j = 0; j < m; ++j) {
      if (a.unsure[j]) uncertain_.insert(options[j].instruction);
    }
    return out;
  }

  // Gives the kernels of `run` (in launch order) the instructions of `home` at schedule
  // positions [low, high) that launch work and have no kernel of their own name. `from_low`
  // and `to_high`: whether a named kernel bounds the run on that side. Open on the left only,
  // the candidates nearest the right bound are the likely ones: aligned from there backwards.
  int64_t align_run(const Computation& home, size_t low, size_t high, std::vector<OpEvent*> run,
                    bool from_low, bool to_high) {
    const auto schedule = home.instructions();
    high = std::min(high, schedule.size());
    if (low >= high || !charge(high - low)) return 0;
    std::vector<const Instruction*> candidates;
    for (size_t p = low; p < high; ++p) {
      const Instruction* i = schedule[p];
      if (!launches_nothing(*i) && !taken_.contains(i)) candidates.push_back(i);
    }
    if (candidates.empty() || !may_align(run.size(), candidates.size())) return 0;
    const bool backwards = !from_low && to_high;
    if (backwards) {
      std::reverse(candidates.begin(), candidates.end());
      std::reverse(run.begin(), run.end());
    }
    std::vector<Kernel> kernels;
    for (const OpEvent* e : run) {
      const bool hidden = !is_graph_kernel(e->op);
      kernels.push_back({kernel_kind(e->event->name), hidden ? e->op : std::string_view()});
    }
    std::vector<Candidate> placed;
    for (const Instruction* i : candidates) placed.push_back({copies(*i), root_name(*i)});
    // Backwards, a memset follows the kernel of its call.
    const auto repeat = [&](size_t k) {
      return backwards ? repeat_cost(kernels[k].kind, kernels[k - 1].kind)
                       : repeat_cost(kernels[k - 1].kind, kernels[k].kind);
    };
    const Alignment a = align(
        run.size(), placed.size(),
        [&](size_t k, size_t j) { return mismatch(kernels[k], placed[j]); }, repeat, true,
        from_low && to_high);
    for (size_t r = 0; r < run.size(); ++r) run[r]->op = candidates[a.to[r]]->name();
    for (size_t j = 0; j < candidates.size(); ++j) {
      if (a.unsure[j]) uncertain_.insert(candidates[j]);
    }
    return static_cast<int64_t>(run.size());
  }

  // Hidden operations: runs of kernels whose names are no instruction's, in launch order,
  // between kernels that name theirs. Every kernel of one hidden name gets the instruction
  // its first run gave it. Graph kernels left unplaced take no part.
  int64_t resolve_hidden(std::vector<OpEvent>& events) {
    std::vector<OpEvent*> order;
    for (OpEvent& e : events) {
      if (e.event->correlation_id != 0 && (by_name_.contains(e.op) || !is_graph_kernel(e.op))) {
        order.push_back(&e);
      }
    }
    std::stable_sort(order.begin(), order.end(), [](const OpEvent* a, const OpEvent* b) {
      return a->event->correlation_id < b->event->correlation_id;
    });
    absl::flat_hash_map<std::string_view, std::string_view> given;  // hidden -> instruction
    int64_t resolved = 0;
    const auto known = [&](const OpEvent* e) { return by_name_.contains(e->op); };
    for (size_t k = 0; k < order.size();) {
      if (known(order[k])) {
        ++k;
        continue;
      }
      // [k, end): a whole run of kernels of hidden names; aligned unless each name has its
      // instruction already.
      size_t end = k;
      bool fresh = false;
      for (; end < order.size() && !known(order[end]); ++end) {
        fresh = fresh || !given.contains(order[end]->op);
      }
      std::vector<OpEvent*> run(order.begin() + static_cast<ptrdiff_t>(k),
                                order.begin() + static_cast<ptrdiff_t>(end));
      const Instruction* before = k > 0 ? by_name_.at(order[k - 1]->op) : nullptr;
      const Instruction* after = end < order.size() ? by_name_.at(order[end]->op) : nullptr;
      k = end;
      if (!fresh) continue;
      std::vector<std::string_view> hidden;
      for (const OpEvent* e : run) hidden.push_back(e->op);
      // Within one computation, between the two; else from the computation's start to the
      // kernel after, or from the kernel before to the computation's end.
      int64_t done = 0;
      if (before != nullptr && after != nullptr && before->parent() == after->parent() &&
          before->position() < after->position()) {
        done = align_run(*before->parent(), before->position() + 1, after->position(), run, true,
                         true);
      } else if (after != nullptr) {
        done = align_run(*after->parent(), 0, after->position(), run, false, true);
      } else if (before != nullptr) {
        done = align_run(*before->parent(), before->position() + 1,
                         before->parent()->instruction_count(), run, true, false);
      }
      if (done == 0) continue;
      for (size_t r = 0; r < run.size(); ++r) {
        auto [it, added] = given.emplace(hidden[r], run[r]->op);
        if (!added) run[r]->op = it->second;  // as its name's first run placed it
      }
      resolved += done;
    }
    for (OpEvent& e : events) {
      if (by_name_.contains(e.op)) continue;
      auto it = given.find(e.op);
      if (it == given.end()) continue;
      e.op = it->second;
      ++resolved;
    }
    return resolved;
  }

  const int64_t max_work_;
  int64_t work_ = 0;
  bool cut_short_ = false;
  absl::flat_hash_map<std::string_view, const Instruction*> by_name_;
  // Kernel name -> the instructions that may run it.
  absl::flat_hash_map<std::string, std::vector<const Instruction*>> by_kernel_;
  // A fusion that runs another's kernel -> that kernel's name.
  absl::flat_hash_map<const Instruction*, std::string> shared_kernel_;
  // Instructions that some kernel already names: not candidates for another.
  absl::flat_hash_set<const Instruction*> taken_;
  // Instructions an alignment could not be sure of.
  absl::flat_hash_set<const Instruction*> uncertain_;
};

}  // namespace

KernelResolution resolve_kernels(const Module& module, std::vector<OpEvent>& events,
                                 int64_t max_work) {
  KernelResolver resolver(module, max_work);
  KernelResolution r;
  for (const OpEvent& e : events) r.unknown += resolver.names_instruction(e.op) ? 0 : 1;
  if (r.unknown > 0) resolver.resolve(events, r);
  return r;
}

}  // namespace hloroof::profile_internal
