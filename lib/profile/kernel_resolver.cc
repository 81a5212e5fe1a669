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
#include "util/absl_compat.h"

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

// The kernel-name form of the opcode of the root of what a fusion (or an async wrapper of
// one) calls: "dynamic_update_slice"; empty for other instructions.
std::string root_name(const Instruction& i) {
  if (i.opcode() != Opcode::kFusion && i.opcode() != Opcode::kAsyncStart) return {};
  for (const Computation* c : i.called_computations()) {
    if (c->root() != nullptr) return kernel_name_of(opcode_name(c->root()->opcode()));
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

// A candidate instruction: whether it copies, and the kernel-name form of the opcode of its
// called computation's root ("dynamic_update_slice"), if any.
struct Candidate {
  bool copies = false;
  std::string root;
};

// The cost of running kernel `k` for instruction `c`. A memset is usually a library call's
// workspace clearing, launched just before the call.
double mismatch(const Kernel& k, const Candidate& c) {
  double cost = 0;
  switch (k.kind) {
    case KernelKind::kCopy:
      cost = c.copies ? 0 : 1;
      break;
    case KernelKind::kSet:
      cost = c.copies ? 0.75 : 0;
      break;
    case KernelKind::kCompute:
      cost = c.copies ? 1 : 0;
      break;
  }
  if (!k.hidden.empty() && !c.root.empty() &&
      k.hidden.find(absl::StrCat("_", c.root, "_fusion")) == std::string_view::npos) {
    cost += 1;
  }
  return cost;
}

// An instruction left without a kernel, and a second kernel for one instruction: both happen
// (a library call clears its workspace first), both less often than not.
constexpr double kSkipped = 1;
constexpr double kRepeated = 0.5;

// Assigns n kernels (in launch order) to m candidate instructions (in schedule order)
// monotonically, each kernel to one instruction, at the least total cost: `cost(k, j)` of
// kernel k on instruction j, kRepeated for a second kernel on one instruction, and kSkipped for
// each instruction skipped between two kernels' instructions; also for each one skipped before
// the first kernel's when `skips_before` counts, and after the last kernel's when
// `skips_after` does. Returns each kernel's instruction. O(n x m); n, m > 0.
template <typename Cost>
std::vector<size_t> align(size_t n, size_t m, const Cost& cost, bool skips_before,
                          bool skips_after) {
  constexpr double kInf = 1e300;
  // best[k * m + j]: kernels [0, k] placed, kernel k on instruction j.
  std::vector<double> best(n * m, kInf);
  std::vector<uint32_t> from(n * m, 0);
  for (size_t j = 0; j < m; ++j) {
    best[j] = (skips_before ? kSkipped * static_cast<double>(j) : 0) + cost(0, j);
  }
  for (size_t k = 1; k < n; ++k) {
    // Kernel k on instruction c follows kernel k - 1 on c itself, or on j < c with c - j - 1
    // instructions skipped: the least of best[k - 1][j] - j over j < c, kept as c grows.
    const double* prev = &best[(k - 1) * m];
    double least = kInf;
    size_t least_at = 0;
    for (size_t c = 0; c < m; ++c) {
      double total = prev[c] + kRepeated;
      size_t came = c;
      const double moved = least + kSkipped * (static_cast<double>(c) - 1);
      if (least < kInf && moved < total) total = moved, came = least_at;
      best[k * m + c] = total + cost(k, c);
      from[k * m + c] = static_cast<uint32_t>(came);
      const double here = prev[c] - kSkipped * static_cast<double>(c);
      if (here < least) least = here, least_at = c;
    }
  }
  const auto total = [&](size_t j) {
    return best[(n - 1) * m + j] + (skips_after ? kSkipped * static_cast<double>(m - 1 - j) : 0);
  };
  size_t end = 0;
  for (size_t j = 1; j < m; ++j) {
    if (total(j) < total(end)) end = j;
  }
  std::vector<size_t> out(n);
  for (size_t k = n; k > 0; --k) {
    out[k - 1] = end;
    end = from[(k - 1) * m + end];
  }
  return out;
}

// Alignments larger than this (kernels x candidates) are not tried: a hostile profile must not
// cost quadratic memory.
constexpr size_t kMaxAlignment = size_t{1} << 22;

// Gives kernels whose hlo_op names no instruction of the module their instructions where
// they can be told; the rest keep their names. Two cases:
//  - the kernels of a CUDA graph launch (hlo_op "command_buffer_N", one correlation id per
//    launch): named kernels anchor; the others are aligned between them;
//  - the operation an async wrapper runs ("fusion-start" runs a fusion that the text's async
//    sugar does not name, and its kernels carry that hidden name): aligned between the
//    kernels launched just before and after it (launch order is correlation id order).
class KernelResolver {
 public:
  explicit KernelResolver(const Module& module) {
    for (const Computation* c : module.computations()) {
      const auto instructions = c->instructions();
      for (size_t k = 0; k < instructions.size(); ++k) {
        const Instruction* i = instructions[k];
        by_name_.emplace(i->name(), i);
        position_.emplace(i, k);
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

  // Returns how many events were given an instruction.
  int64_t resolve(std::vector<OpEvent>& events) {
    for (const OpEvent& e : events) {
      if (by_name_.contains(e.op)) taken_.insert(by_name_.at(e.op));
    }
    std::map<std::pair<std::string_view, uint64_t>, std::vector<OpEvent*>> graphs;
    for (OpEvent& e : events) {
      if (!by_name_.contains(e.op) && absl::StartsWith(sv(e.op), "command_buffer")) {
        graphs[{e.op, e.event->correlation_id}].push_back(&e);
      }
    }
    int64_t resolved = 0;
    for (auto& [key, kernels] : graphs) {
      std::stable_sort(kernels.begin(), kernels.end(), [](const OpEvent* a, const OpEvent* b) {
        return a->event->start_s < b->event->start_s;
      });
      resolved += align_launch(kernels);
    }
    for (const OpEvent& e : events) {
      if (by_name_.contains(e.op)) taken_.insert(by_name_.at(e.op));
    }
    return resolved + resolve_hidden(events);
  }

 private:
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
  // skipped between two kernels' costs 1, a second kernel on one instruction 0.5; skipping
  // before the first and after the last is free (a computation may run as several graphs).
  int64_t align_launch(std::vector<OpEvent*>& kernels) {
    const Computation* home = home_of(kernels);
    if (home == nullptr) return 0;
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
    if (m == 0 || n * m > kMaxAlignment) return 0;
    std::vector<const std::vector<const Instruction*>*> known(n, nullptr);
    for (size_t k = 0; k < n; ++k) {
      auto it = by_kernel_.find(kernels[k]->event->name);
      if (it != by_kernel_.end()) known[k] = &it->second;
    }
    const auto cost = [&](size_t k, size_t j) {
      const Option& o = options[j];
      const std::string_view name = kernels[k]->event->name;
      if (known[k] != nullptr) {
        for (const Instruction* i : *known[k]) {
          if (i == o.instruction) return 0.0;
        }
        return stem(name) == stem(o.kernel) ? 1.0 : 4.0;
      }
      return mismatch({kernel_kind(name), {}}, {o.copies, {}}) + (o.named_kernel_ran ? 2.0 : 0.0);
    };
    const std::vector<size_t> to = align(n, m, cost, false, false);
    for (size_t k = 0; k < n; ++k) kernels[k]->op = options[to[k]].instruction->name();
    return static_cast<int64_t>(n);
  }

  // Gives the kernels of `run` (in launch order) the instructions of `home` at schedule
  // positions [low, high) that launch work and have no kernel of their own name. `from_low`
  // and `to_high`: whether a named kernel bounds the run on that side. Open on the left only,
  // the candidates nearest the right bound are the likely ones: aligned from there backwards.
  int64_t align_run(const Computation& home, size_t low, size_t high, std::vector<OpEvent*> run,
                    bool from_low, bool to_high) {
    const auto schedule = home.instructions();
    std::vector<const Instruction*> candidates;
    for (size_t p = low; p < high && p < schedule.size(); ++p) {
      const Instruction* i = schedule[p];
      if (!launches_nothing(*i) && !taken_.contains(i)) candidates.push_back(i);
    }
    if (candidates.empty() || run.size() * candidates.size() > kMaxAlignment) return 0;
    const bool backwards = !from_low && to_high;
    if (backwards) {
      std::reverse(candidates.begin(), candidates.end());
      std::reverse(run.begin(), run.end());
    }
    std::vector<Kernel> kernels;
    for (const OpEvent* e : run) {
      const bool hidden = !absl::StartsWith(sv(e->op), "command_buffer");
      kernels.push_back({kernel_kind(e->event->name), hidden ? e->op : std::string_view()});
    }
    std::vector<Candidate> placed;
    for (const Instruction* i : candidates) placed.push_back({copies(*i), root_name(*i)});
    const std::vector<size_t> to = align(
        run.size(), placed.size(),
        [&](size_t k, size_t j) { return mismatch(kernels[k], placed[j]); }, true,
        from_low && to_high);
    for (size_t r = 0; r < run.size(); ++r) run[r]->op = candidates[to[r]]->name();
    return static_cast<int64_t>(run.size());
  }

  // Hidden operations: runs of kernels whose names are no instruction's, in launch order,
  // between kernels that name theirs. Every kernel of one hidden name gets the instruction
  // its first run gave it.
  int64_t resolve_hidden(std::vector<OpEvent>& events) {
    std::vector<OpEvent*> order;
    for (OpEvent& e : events) {
      if (e.event->correlation_id != 0) order.push_back(&e);
    }
    std::stable_sort(order.begin(), order.end(), [](const OpEvent* a, const OpEvent* b) {
      return a->event->correlation_id < b->event->correlation_id;
    });
    absl::flat_hash_map<std::string_view, std::string_view> given;  // hidden -> instruction
    int64_t resolved = 0;
    const auto known = [&](const OpEvent* e) { return by_name_.contains(e->op); };
    for (size_t k = 0; k < order.size();) {
      if (known(order[k]) || given.contains(order[k]->op)) {
        ++k;
        continue;
      }
      size_t end = k;
      while (end < order.size() && !known(order[end])) ++end;
      const Instruction* before = k > 0 ? by_name_.at(order[k - 1]->op) : nullptr;
      const Instruction* after = end < order.size() ? by_name_.at(order[end]->op) : nullptr;
      std::vector<OpEvent*> run(order.begin() + static_cast<ptrdiff_t>(k),
                                order.begin() + static_cast<ptrdiff_t>(end));
      std::vector<std::string_view> hidden;
      for (const OpEvent* e : run) hidden.push_back(e->op);
      // Within one computation, between the two; else from the computation's start to the
      // kernel after, or from the kernel before to the computation's end.
      int64_t done = 0;
      if (before != nullptr && after != nullptr && before->parent() == after->parent() &&
          position_.at(before) < position_.at(after)) {
        done = align_run(*before->parent(), position_.at(before) + 1, position_.at(after), run,
                         true, true);
      } else if (after != nullptr) {
        done = align_run(*after->parent(), 0, position_.at(after), run, false, true);
      } else if (before != nullptr) {
        done = align_run(*before->parent(), position_.at(before) + 1,
                         before->parent()->instruction_count(), run, true, false);
      }
      if (done > 0) {
        for (size_t r = 0; r < run.size(); ++r) given.emplace(hidden[r], run[r]->op);
      }
      resolved += done;
      k = end;
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

  absl::flat_hash_map<std::string_view, const Instruction*> by_name_;
  // Kernel name -> the instructions that may run it.
  absl::flat_hash_map<std::string, std::vector<const Instruction*>> by_kernel_;
  absl::flat_hash_map<const Instruction*, size_t> position_;
  // A fusion that runs another's kernel -> that kernel's name.
  absl::flat_hash_map<const Instruction*, std::string> shared_kernel_;
  // Instructions that some kernel already names: not candidates for another.
  absl::flat_hash_set<const Instruction*> taken_;
};

}  // namespace

KernelResolution resolve_kernels(const Module& module, std::vector<OpEvent>& events) {
  KernelResolver resolver(module);
  KernelResolution r;
  for (const OpEvent& e : events) r.unknown += resolver.names_instruction(e.op) ? 0 : 1;
  if (r.unknown > 0) r.resolved = resolver.resolve(events);
  return r;
}

}  // namespace hloroof::profile_internal
