// measure_module: a module's steps in a device plane and the time of each of its HLO ops.
#include <algorithm>
#include <cstdint>
#include <map>
#include <set>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "hloroof/computation.h"
#include "hloroof/instruction.h"
#include "hloroof/metadata.h"
#include "hloroof/profile.h"
#include "profile/profile_internal.h"
#include "util/absl_compat.h"

namespace hloroof {
namespace {

constexpr std::string_view kModulesLine = "XLA Modules";
constexpr std::string_view kOpsLine = "XLA Ops";

// "jit_step(12)" names the execution of module "jit_step" with program id 12.
bool names_module(const ProfileEvent& e, std::string_view module) {
  if (e.hlo_module == module) return true;
  if (!absl::StartsWith(e.name, sv(module))) return false;
  return e.name.size() == module.size() || e.name[module.size()] == '(';
}

std::string_view module_of(std::string_view event_name) {
  const size_t paren = event_name.find('(');
  return paren == std::string_view::npos ? event_name : event_name.substr(0, paren);
}

std::string_view strip_percent(std::string_view name) {
  return absl::StartsWith(sv(name), "%") ? name.substr(1) : name;
}

struct OpEvent {
  const ProfileEvent* event;
  std::string_view op;
  std::string_view track;
};

// The events of an "XLA Ops" line that enclose no other event of the line (a while loop's
// event encloses its body's ops).
std::vector<const ProfileEvent*> leaf_events(const ProfileLine& line) {
  std::vector<const ProfileEvent*> sorted;
  sorted.reserve(line.events.size());
  for (const ProfileEvent& e : line.events) sorted.push_back(&e);
  std::stable_sort(sorted.begin(), sorted.end(), [](const ProfileEvent* a, const ProfileEvent* b) {
    if (a->start_s != b->start_s) return a->start_s < b->start_s;
    return a->duration_s > b->duration_s;
  });
  std::vector<const ProfileEvent*> leaves;
  for (size_t k = 0; k < sorted.size(); ++k) {
    const ProfileEvent* e = sorted[k];
    const bool parent =
        k + 1 < sorted.size() && sorted[k + 1]->start_s < e->start_s + e->duration_s;
    if (!parent) leaves.push_back(e);
  }
  return leaves;
}

// The suffix of the host event that brackets one execution of a module on a GPU
// ("jit_step:XLA GPU module"); the calls that launch its kernels nest inside it.
constexpr std::string_view kGpuModuleSuffix = ":XLA GPU module";

// Each op event's step, from the host's view when the device plane has no module line: an
// execution is a host event NAME:XLA GPU module, and a kernel belongs to the execution whose
// host event holds the call that launched it (the two share a correlation id). Returns the
// events of each execution that launched any, in order; empty when the profile holds no
// such host events.
std::vector<std::vector<const OpEvent*>> steps_from_host(const Profile& profile,
                                                         std::string_view module,
                                                         const std::vector<OpEvent>& events,
                                                         int64_t& outside) {
  const std::string execution = absl::StrCat(sv(module), sv(kGpuModuleSuffix));
  std::vector<std::pair<double, double>> windows;
  for (const ProfilePlane& plane : profile.planes) {
    if (!absl::StartsWith(plane.name, "/host")) continue;
    for (const ProfileLine& line : plane.lines) {
      for (const ProfileEvent& e : line.events) {
        if (e.name == execution) windows.emplace_back(e.start_s, e.start_s + e.duration_s);
      }
    }
  }
  if (windows.empty()) return {};
  std::sort(windows.begin(), windows.end());
  absl::flat_hash_map<uint64_t, size_t> launched_in;  // correlation id -> execution
  for (const ProfilePlane& plane : profile.planes) {
    if (!absl::StartsWith(plane.name, "/host")) continue;
    for (const ProfileLine& line : plane.lines) {
      for (const ProfileEvent& e : line.events) {
        if (e.correlation_id == 0) continue;
        auto it = std::upper_bound(windows.begin(), windows.end(), std::pair{e.start_s, 1e300});
        if (it == windows.begin()) continue;
        const size_t k = static_cast<size_t>(it - windows.begin()) - 1;
        if (e.start_s <= windows[k].second) launched_in.emplace(e.correlation_id, k);
      }
    }
  }
  std::vector<std::vector<const OpEvent*>> by_execution(windows.size());
  for (const OpEvent& e : events) {
    auto it = launched_in.find(e.event->correlation_id);
    if (e.event->correlation_id == 0 || it == launched_in.end()) {
      ++outside;
      continue;
    }
    by_execution[it->second].push_back(&e);
  }
  std::vector<std::vector<const OpEvent*>> steps;
  for (std::vector<const OpEvent*>& s : by_execution) {
    if (!s.empty()) steps.push_back(std::move(s));
  }
  return steps;
}

// ---- Kernels of CUDA graphs ----------------------------------------------------------------
//
// XLA runs runs of thunks as CUDA graphs (its "command buffers"); the kernels of such a graph
// carry the command buffer's name as their hlo_op ("command_buffer_8"), not an instruction's.
// Their own names still tell most of them: XLA names a fusion's kernel after the fusion, with
// every character outside [A-Za-z0-9_] made '_' ("loop_add_fusion.1" -> loop_add_fusion_1).
// The rest (library GEMMs, memcpy and memset nodes) lie between such named kernels in launch
// order, as their instructions lie between the named ones in the schedule: they are aligned
// with the instructions there that launch work.

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

// Assigns kernels (in launch order) to candidate instructions (in schedule order)
// monotonically, each kernel to one instruction, at the least total cost: mismatches, repeats,
// and instructions skipped before the first kernel's, between two kernels' and, when the run
// ends at a named kernel (`closed`), after the last kernel's. Returns each kernel's
// instruction. O(kernels x candidates).
std::vector<size_t> align(const std::vector<Kernel>& kernels,
                          const std::vector<Candidate>& candidates, bool closed) {
  const size_t n = kernels.size(), m = candidates.size();
  constexpr double kInf = 1e300;
  // best[i][j]: kernels [0, i] placed, kernel i on candidate j.
  std::vector<std::vector<double>> best(n, std::vector<double>(m, kInf));
  std::vector<std::vector<size_t>> from(n, std::vector<size_t>(m, 0));
  for (size_t j = 0; j < m; ++j) {
    best[0][j] = kSkipped * static_cast<double>(j) + mismatch(kernels[0], candidates[j]);
  }
  for (size_t i = 1; i < n; ++i) {
    // Kernel i on candidate c follows kernel i - 1 on c itself, or on j < c with c - j - 1
    // candidates skipped: the least of best[i - 1][j] - j over j < c, kept as c grows.
    double least = kInf;
    size_t least_at = 0;
    for (size_t c = 0; c < m; ++c) {
      double cost = best[i - 1][c] + kRepeated;
      size_t prev = c;
      const double moved = least + kSkipped * (static_cast<double>(c) - 1);
      if (least < kInf && moved < cost) cost = moved, prev = least_at;
      best[i][c] = cost + mismatch(kernels[i], candidates[c]);
      from[i][c] = prev;
      const double here = best[i - 1][c] - kSkipped * static_cast<double>(c);
      if (here < least) least = here, least_at = c;
    }
  }
  const auto total = [&](size_t j) {
    return best[n - 1][j] + (closed ? kSkipped * static_cast<double>(m - 1 - j) : 0);
  };
  size_t end = 0;
  for (size_t j = 1; j < m; ++j) {
    if (total(j) < total(end)) end = j;
  }
  std::vector<size_t> out(n);
  for (size_t i = n; i > 0; --i) {
    out[i - 1] = end;
    end = from[i - 1][end];
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
    constexpr double kInf = 1e300;
    std::vector<double> best(n * m, kInf);
    std::vector<uint32_t> from(n * m, 0);
    for (size_t j = 0; j < m; ++j) best[j] = cost(0, j);
    for (size_t k = 1; k < n; ++k) {
      const double* prev = &best[(k - 1) * m];
      double least = kInf;  // the least of prev[j] - kSkipped * j over j < c
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
    size_t end = 0;
    for (size_t j = 1; j < m; ++j) {
      if (best[(n - 1) * m + j] < best[(n - 1) * m + end]) end = j;
    }
    for (size_t k = n; k > 0; --k) {
      kernels[k - 1]->op = options[end].instruction->name();
      end = from[(k - 1) * m + end];
    }
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
    const std::vector<size_t> to = align(kernels, placed, from_low && to_high);
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

namespace profile_internal {

double union_length(std::vector<std::pair<double, double>> intervals) {
  std::sort(intervals.begin(), intervals.end());
  double total = 0, start = 0, end = 0;
  bool open = false;
  for (const auto& [s, e] : intervals) {
    if (!open || s > end) {
      if (open) total += end - start;
      start = s, end = e, open = true;
    } else {
      end = std::max(end, e);
    }
  }
  if (open) total += end - start;
  return total;
}

}  // namespace profile_internal

namespace {

absl::StatusOr<MeasuredModule> measure(const Profile& profile, std::string_view module,
                                       const Module* hlo, const ProfileOptions& options) {
  absl::StatusOr<const ProfilePlane*> found = device_plane(profile, options.device_index);
  if (!found.ok()) return found.status();
  const ProfilePlane& plane = **found;
  const std::string name = options.module_name.empty() ? std::string(module) : options.module_name;
  MeasuredModule out;
  out.plane = plane.name;
  out.module = name;

  // Steps: the module's executions.
  const ProfileLine* modules_line = nullptr;
  for (const ProfileLine& line : plane.lines) {
    if (line.name == kModulesLine) modules_line = &line;
  }
  std::vector<std::pair<double, double>> windows;  // start, end
  if (modules_line != nullptr) {
    std::set<std::string_view> seen;
    for (const ProfileEvent& e : modules_line->events) {
      if (names_module(e, name)) {
        windows.emplace_back(e.start_s, e.start_s + e.duration_s);
      } else {
        seen.insert(module_of(e.name));
      }
    }
    if (windows.empty()) {
      std::vector<std::string> names(seen.begin(), seen.end());
      if (names.size() > 10) names.resize(10);
      return absl::NotFoundError(absl::StrCat(
          profile.origin, ": module '", name, "' never runs on ", plane.name, "; its '",
          sv(kModulesLine), "' line has ",
          names.empty() ? "no modules" : absl::StrCat("'", absl::StrJoin(names, "', '"), "'"),
          ". Give the profile's name with --module"));
    }
    std::sort(windows.begin(), windows.end());
  }

  // The op events: kernels with an hlo_op stat, else the "XLA Ops" line by name.
  std::vector<OpEvent> events;
  for (const ProfileLine& line : plane.lines) {
    if (line.name == kModulesLine || line.name == kOpsLine) continue;
    for (const ProfileEvent& e : line.events) {
      if (e.hlo_op.empty() || (!e.hlo_module.empty() && e.hlo_module != name)) continue;
      events.push_back({&e, strip_percent(e.hlo_op), line.name});
    }
  }
  if (events.empty()) {
    for (const ProfileLine& line : plane.lines) {
      if (line.name != kOpsLine) continue;
      for (const ProfileEvent* e : leaf_events(line)) {
        if (!e->hlo_module.empty() && e->hlo_module != name) continue;
        const std::string_view op = e->hlo_op.empty() ? e->name : e->hlo_op;
        events.push_back({e, strip_percent(op), line.name});
      }
    }
    if (!events.empty()) {
      out.notes.push_back(absl::StrCat("ops by the event names of the '", sv(kOpsLine), "' line"));
    }
  } else {
    out.notes.push_back("GPU kernels joined to HLO ops through their hlo_op stat");
  }
  if (events.empty()) {
    // Kernels of other modules: say which, as for the modules line.
    std::set<std::string_view> others;
    for (const ProfileLine& line : plane.lines) {
      for (const ProfileEvent& e : line.events) {
        if (!e.hlo_op.empty() && !e.hlo_module.empty()) others.insert(e.hlo_module);
      }
    }
    if (!others.empty()) {
      std::vector<std::string> names(others.begin(), others.end());
      if (names.size() > 10) names.resize(10);
      return absl::NotFoundError(absl::StrCat(
          profile.origin, ": module '", name, "' never runs on ", plane.name,
          "; its kernels belong to '", absl::StrJoin(names, "', '"),
          "'. Give the profile's name with --module"));
    }
    return absl::NotFoundError(
        absl::StrCat(profile.origin, ": ", plane.name, " has no op events of module '", name,
                     "': no kernels with an hlo_op stat and no '", sv(kOpsLine), "' line"));
  }
  if (hlo != nullptr) {
    KernelResolver resolver(*hlo);
    int64_t unknown = 0;
    for (const OpEvent& e : events) unknown += resolver.names_instruction(e.op) ? 0 : 1;
    if (unknown > 0) {
      const int64_t resolved = resolver.resolve(events);
      out.notes.push_back(
          absl::StrFormat("%d of %d kernels named no instruction of the module (CUDA graphs, async "
                          "wrappers): %d given theirs by kernel name and launch order",
                          unknown, events.size(), resolved));
    }
  }

  int64_t outside = 0;
  std::vector<std::vector<const OpEvent*>> by_step;
  if (windows.empty()) {
    by_step = steps_from_host(profile, name, events, outside);
    if (!by_step.empty()) {
      for (const std::vector<const OpEvent*>& step : by_step) {
        double start = step.front()->event->start_s, end = start;
        for (const OpEvent* e : step) {
          start = std::min(start, e->event->start_s);
          end = std::max(end, e->event->start_s + e->event->duration_s);
        }
        windows.emplace_back(start, end);
      }
      out.notes.push_back(absl::StrCat(
          "steps: the host's '", name, sv(kGpuModuleSuffix),
          "' events, kernels by the correlation id of their launch; a step runs from its first "
          "kernel's start to its last one's end"));
    }
  }
  if (windows.empty()) {
    double start = events.front().event->start_s, end = start;
    for (const OpEvent& e : events) {
      start = std::min(start, e.event->start_s);
      end = std::max(end, e.event->start_s + e.event->duration_s);
    }
    windows.emplace_back(start, end);
    out.notes.push_back(absl::StrCat("no '", sv(kModulesLine),
                                     "' line: one step, from the first op to the end of the last"));
  }

  // Each event to the step it starts in, unless the host told the steps.
  if (by_step.empty()) {
    by_step.resize(windows.size());
    for (const OpEvent& e : events) {
      const double t = e.event->start_s;
      auto it = std::upper_bound(windows.begin(), windows.end(), std::pair{t, 1e300});
      if (it == windows.begin()) {
        ++outside;
        continue;
      }
      const size_t k = static_cast<size_t>(it - windows.begin()) - 1;
      // A nanosecond of slack: JSON traces round times to the microsecond's fraction.
      if (t > windows[k].second + 1e-9) {
        ++outside;
        continue;
      }
      by_step[k].push_back(&e);
    }
  }
  if (outside > 0) {
    out.notes.push_back(absl::StrFormat("%d op event%s outside the module's steps left out",
                                        outside, outside == 1 ? "" : "s"));
  }

  out.steps = static_cast<int64_t>(windows.size());
  for (const auto& [s, e] : windows) out.steps_s.push_back(e - s);

  struct Tally {
    double time_s = 0;
    int64_t count = 0;
    std::map<std::string_view, int64_t> kernels;  // name -> events
  };
  std::map<std::string_view, Tally> tallies;
  for (const std::vector<const OpEvent*>& step : by_step) {
    for (const OpEvent* e : step) {
      Tally& t = tallies[e->op];
      t.time_s += e->event->duration_s;
      ++t.count;
      ++t.kernels[e->event->name];
    }
  }
  const double steps = static_cast<double>(out.steps);
  for (const auto& [op, t] : tallies) {
    // One execution may launch several kernels (a library GEMM clears its workspace first):
    // the executions are the launches of its most frequent kernel.
    int64_t executions = 0;
    for (const auto& [kernel, n] : t.kernels) executions = std::max(executions, n);
    out.ops.push_back({std::string(op), t.time_s / steps, static_cast<double>(executions) / steps,
                       static_cast<double>(t.count) / steps,
                       static_cast<int64_t>(t.kernels.size())});
  }

  // The median step: the one whose duration is the median's (the lower of the middle two).
  std::vector<size_t> order(windows.size());
  for (size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return out.steps_s[a] < out.steps_s[b]; });
  const size_t chosen = order[(order.size() - 1) / 2];
  out.step_s = out.steps_s[chosen];
  const double origin = windows[chosen].first;
  std::vector<std::pair<double, double>> busy;
  for (const OpEvent* e : by_step[chosen]) {
    const double s = e->event->start_s - origin;
    const double end = std::min(s + e->event->duration_s, windows[chosen].second - origin);
    busy.emplace_back(s, std::max(s, end));
    out.median_step.push_back(
        {std::string(e->op), e->event->name, std::string(e->track), s, e->event->duration_s});
  }
  std::stable_sort(
      out.median_step.begin(), out.median_step.end(),
      [](const MeasuredEvent& a, const MeasuredEvent& b) { return a.start_s < b.start_s; });
  out.busy_s = profile_internal::union_length(std::move(busy));
  return out;
}

}  // namespace

absl::StatusOr<MeasuredModule> measure_module(const Profile& profile, std::string_view module,
                                              const ProfileOptions& options) {
  return measure(profile, module, nullptr, options);
}

absl::StatusOr<MeasuredModule> measure_module(const Profile& profile, const Module& module,
                                              const ProfileOptions& options) {
  return measure(profile, module.name(), &module, options);
}

}  // namespace hloroof
