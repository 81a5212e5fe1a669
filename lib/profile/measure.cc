// measure_module: a module's steps in a device plane and the time of each of its HLO ops.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <set>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/functional/function_ref.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "hloroof/computation.h"
#include "hloroof/instruction.h"
#include "hloroof/profile.h"
#include "hloroof/xspace.h"
#include "profile/profile_internal.h"
#include "hloroof/absl_compat.h"

namespace hloroof {
namespace {

constexpr std::string_view kModulesLine = "XLA Modules";
constexpr std::string_view kOpsLine = "XLA Ops";
constexpr std::string_view kAsyncOpsLine = "Async XLA Ops";

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

// TPU profiles name an "XLA Ops" event by the instruction's text, "%fusion.3 = f32[8] fusion(...),
// ...": the instruction's name is what comes before " = ".
std::string_view instruction_name(std::string_view event_name) {
  event_name = strip_percent(event_name);
  const size_t eq = event_name.find(" = ");
  return eq == std::string_view::npos ? event_name : event_name.substr(0, eq);
}

using profile_internal::extra_of;
using profile_internal::has_device_clock;
using profile_internal::OpEvent;

// The events of an "XLA Ops" line that enclose no other event of the line (a while loop's
// event encloses its body's ops). On the chip's clock where every event carries it: on the
// host's clock, where the profile moves them, two ops can meet and one of them shrink to
// nothing at the start of the other, which would make the other seem to enclose it.
// Only the events `keep` keeps count (those of other modules can lack the chip's clock).
template <typename Keep>
std::vector<const ProfileEvent*> leaf_events(const ProfileLine& line, Keep keep) {
  std::vector<const ProfileEvent*> sorted;
  sorted.reserve(line.events.size());
  bool device_clock = true;
  for (const ProfileEvent& e : line.events) {
    if (!keep(e)) continue;
    sorted.push_back(&e);
    device_clock = device_clock && has_device_clock(extra_of(line, e));
  }
  auto start = [&](const ProfileEvent* e) {
    return device_clock ? extra_of(line, *e)->device_start_s : e->start_s;
  };
  auto length = [&](const ProfileEvent* e) {
    return device_clock ? extra_of(line, *e)->device_duration_s : e->duration_s;
  };
  std::stable_sort(sorted.begin(), sorted.end(), [&](const ProfileEvent* a, const ProfileEvent* b) {
    if (start(a) != start(b)) return start(a) < start(b);
    return length(a) > length(b);
  });
  // Times are whole picoseconds in seconds: an op that starts where the other ends may seem to
  // start a few femtoseconds before it. Half a picosecond tells them apart.
  constexpr double kHalfPicosecond = 0.5e-12;
  std::vector<const ProfileEvent*> leaves;
  for (size_t k = 0; k < sorted.size(); ++k) {
    const ProfileEvent* e = sorted[k];
    const bool parent = k + 1 < sorted.size() &&
                        start(sorted[k + 1]) < start(e) + length(e) - kHalfPicosecond;
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
  // The executions of one step on several devices (one host thread each) overlap, and a launch
  // cannot tell which device's it is by its time: overlapping executions make one step (those
  // that only meet, end to end, stay two; half a picosecond of rounding allowed).
  std::vector<std::pair<double, double>> merged;
  for (const auto& w : windows) {
    if (!merged.empty() && w.first < merged.back().second - 0.5e-12) {
      merged.back().second = std::max(merged.back().second, w.second);
    } else {
      merged.push_back(w);
    }
  }
  windows = std::move(merged);
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

// Whether an event's hlo_module stat names module `name`: as it is, or as "NAME(ID)" of
// program `program_id` (any program when it is 0).
bool names_hlo_module(std::string_view hlo_module, std::string_view name, uint64_t program_id) {
  if (hlo_module == name) return true;
  if (module_of(hlo_module) != name) return false;
  const uint64_t id = profile_program_id(hlo_module);
  return id != 0 && (program_id == 0 || id == program_id);
}

// Whether an op event of `line` names module `name` (and program `program_id`, when both
// are known).
bool of_module(const ProfileLine& line, const ProfileEvent& e, std::string_view name,
               uint64_t program_id) {
  if (!e.hlo_module.empty() && !names_hlo_module(e.hlo_module, name, program_id)) return false;
  const ProfileEventExtra* x = extra_of(line, e);
  return program_id == 0 || x == nullptr || x->program_id == 0 || x->program_id == program_id;
}

bool is_device_plane(const ProfilePlane& p) { return absl::StartsWith(p.name, "/device:"); }

// Whether the plane shows the module run: its "XLA Modules" line names it, or some kernel's
// hlo_module stat does.
bool runs_module(const ProfilePlane& plane, std::string_view name, uint64_t program_id) {
  for (const ProfileLine& line : plane.lines) {
    for (const ProfileEvent& e : line.events) {
      if (line.name == kModulesLine ? names_module(e, name)
                                    : !e.hlo_op.empty() &&
                                          names_hlo_module(e.hlo_module, name, program_id) &&
                                          of_module(line, e, name, program_id)) {
        return true;
      }
    }
  }
  return false;
}

// The program a window of the modules line ran: "jit_step(12)" is program 12; 0 when unnamed.
struct ProgramRuns {
  std::string_view name;  // the events' name, "jit_step(12)"
  int64_t executions = 0;
  double seconds = 0;
};

// Of several programs of the module's name (recompiles, shape sweeps), the one measured: the
// most executions, then the most time, then the latest compiled (the largest id).
uint64_t pick_program(const std::map<uint64_t, ProgramRuns>& programs) {
  uint64_t best = 0;
  const ProgramRuns* kept = nullptr;
  for (const auto& [id, runs] : programs) {
    if (kept == nullptr || runs.executions > kept->executions ||
        (runs.executions == kept->executions && runs.seconds >= kept->seconds)) {
      best = id;
      kept = &runs;
    }
  }
  return best;
}

// The module's executions on the plane's modules line, in order (none without the line): those
// of `program_id` where it is not 0. Where several programs of the name ran and none is named,
// one is picked (pick_program), `program_id` set to it and a note says which.
absl::Status module_windows(const Profile& profile, const ProfilePlane& plane,
                            const std::string& name, uint64_t& program_id,
                            std::vector<std::pair<double, double>>& windows,
                            std::vector<std::string>& notes) {
  const ProfileLine* modules_line = nullptr;
  for (const ProfileLine& line : plane.lines) {
    if (line.name == kModulesLine) modules_line = &line;
  }
  if (modules_line == nullptr) return absl::OkStatus();
  std::set<std::string_view> seen;
  std::map<uint64_t, ProgramRuns> programs;
  for (const ProfileEvent& e : modules_line->events) {
    if (!names_module(e, name)) {
      seen.insert(module_of(e.name));
      continue;
    }
    const uint64_t id = profile_program_id(e.name);
    if (program_id != 0 && id != 0 && id != program_id) {
      seen.insert(e.name);
      continue;
    }
    ProgramRuns& runs = programs[id];
    runs.name = e.name;
    ++runs.executions;
    runs.seconds += e.duration_s;
  }
  if (program_id == 0 && programs.size() > 1) {
    program_id = pick_program(programs);
    int64_t left = 0;
    std::vector<std::string> others;
    for (const auto& [id, runs] : programs) {
      if (id == program_id) continue;
      left += runs.executions;
      if (others.size() < 8) others.emplace_back(runs.name);
    }
    const ProgramRuns& kept = programs[program_id];
    notes.push_back(absl::StrFormat(
        "%d programs named '%s' ran on %s: %s measured (%d executions, the most); %d "
        "executions of %s%s left out; --module '%s' picks another",
        programs.size(), name, plane.name, kept.name, kept.executions, left,
        absl::StrJoin(others, ", "), programs.size() - 1 > others.size() ? ", ..." : "",
        others.front()));
  }
  for (const ProfileEvent& e : modules_line->events) {
    if (!names_module(e, name)) continue;
    const uint64_t id = profile_program_id(e.name);
    if (program_id != 0 && id != 0 && id != program_id) continue;
    windows.emplace_back(e.start_s, e.start_s + e.duration_s);
  }
  if (windows.empty()) {
    std::vector<std::string> names(seen.begin(), seen.end());
    if (names.size() > 10) names.resize(10);
    return absl::NotFoundError(absl::StrCat(
        profile.origin, ": module '", name,
        program_id != 0 ? absl::StrCat("' (program ", program_id, ")") : std::string("'"),
        " never runs on ", plane.name, "; its '", sv(kModulesLine), "' line has ",
        names.empty() ? "no modules" : absl::StrCat("'", absl::StrJoin(names, "', '"), "'"),
        ". Give the profile's name with --module"));
  }
  std::sort(windows.begin(), windows.end());
  return absl::OkStatus();
}

// The op events: the "XLA Ops" line by name where the plane has one, else kernels with an
// hlo_op stat (GPU). On TPU the "Async XLA Ops" line shows an async op's work from its start
// to its done (a copy-start's transfer): kept apart, as the start's async work. An error where
// the plane has no op event of the module.
absl::Status op_events(const Profile& profile, const ProfilePlane& plane, const std::string& name,
                       uint64_t program_id, std::vector<OpEvent>& events,
                       std::vector<OpEvent>& async_events, std::vector<std::string>& notes) {
  bool has_ops_line = false;
  for (const ProfileLine& line : plane.lines) {
    has_ops_line = has_ops_line || (line.name == kOpsLine && !line.events.empty());
  }
  int64_t other_programs = 0;
  for (const ProfileLine& line : plane.lines) {
    if (has_ops_line || line.name == kModulesLine || line.name == kOpsLine) continue;
    for (const ProfileEvent& e : line.events) {
      if (e.hlo_op.empty() ||
          (!e.hlo_module.empty() && !names_hlo_module(e.hlo_module, name, 0))) {
        continue;
      }
      if (!of_module(line, e, name, program_id)) {
        ++other_programs;
        continue;
      }
      events.push_back({&e, strip_percent(e.hlo_op), line.name, extra_of(line, e)});
    }
  }
  if (events.empty()) {
    for (const ProfileLine& line : plane.lines) {
      if (line.name == kOpsLine) {
        auto keep = [&](const ProfileEvent& e) {
          if (!e.hlo_module.empty() && !names_hlo_module(e.hlo_module, name, 0)) return false;
          if (of_module(line, e, name, program_id)) return true;
          ++other_programs;
          return false;
        };
        for (const ProfileEvent* e : leaf_events(line, keep)) {
          const std::string_view op = e->hlo_op.empty() ? e->name : e->hlo_op;
          events.push_back({e, instruction_name(op), line.name, extra_of(line, *e)});
        }
      } else if (line.name == kAsyncOpsLine) {
        for (const ProfileEvent& e : line.events) {
          if (!of_module(line, e, name, program_id)) continue;
          async_events.push_back({&e, instruction_name(e.name), line.name, extra_of(line, e)});
        }
      }
    }
    if (!events.empty()) {
      bool device_clock = true;
      for (const OpEvent& e : events) device_clock = device_clock && e.on_chip_clock();
      notes.push_back(absl::StrCat(
          "ops by the event names of the '", sv(kOpsLine), "' line",
          device_clock ? ", timed on the chip's clock (device_duration_ps)" : ""));
    }
    if (!async_events.empty()) {
      notes.push_back(absl::StrCat(
          "async starts (", async_events.front().event->name, ") shown on the '",
          sv(kAsyncOpsLine), "' line: measured from the start's issue to the end of its done ",
          "(the event's hlo_op), on the chip's clock, beside the start's expected work; on the '",
          sv(kOpsLine), "' line a start is its issue and a done its wait"));
    }
  } else {
    notes.push_back("GPU kernels joined to HLO ops through their hlo_op stat");
  }
  if (other_programs > 0) {
    notes.push_back(absl::StrFormat(
        "%d op event%s of other programs named '%s' left out (this one is program %d)",
        other_programs, other_programs == 1 ? "" : "s", name, program_id));
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
      return absl::NotFoundError(
          absl::StrCat(profile.origin, ": module '", name, "' never runs on ", plane.name,
                       "; its kernels belong to '", absl::StrJoin(names, "', '"),
                       "'. Give the profile's name with --module"));
    }
    return absl::NotFoundError(
        absl::StrCat(profile.origin, ": ", plane.name, " has no op events of module '", name,
                     "': no kernels with an hlo_op stat and no '", sv(kOpsLine), "' line"));
  }

  return absl::OkStatus();
}

// The events' kernels given the instructions of `hlo` they ran for (resolve_kernels), with
// notes on what could not be told; returns the ops whose times are uncertain.
absl::flat_hash_set<std::string> resolve_kernel_ops(const Module& hlo,
                                                    std::vector<OpEvent>& events,
                                                    std::vector<std::string>& notes) {
  profile_internal::KernelResolution r = profile_internal::resolve_kernels(hlo, events);
  if (r.unknown > 0) {
    notes.push_back(
        absl::StrFormat("%d of %d kernels named no instruction of the module (CUDA graphs, async "
                        "wrappers): %d given theirs by kernel name and launch order",
                        r.unknown, events.size(), r.resolved));
  }
  if (r.cut_short) {
    notes.push_back(absl::StrFormat(
        "kernel resolution cut short at its work limit (%d alignment cells and instructions "
        "scanned): %d kernels keep the command buffer's or wrapper's name",
        r.work, r.unknown - r.resolved));
  }
  if (!r.uncertain.empty()) {
    notes.push_back(absl::StrFormat(
        "%d ops whose kernels launch order cannot tell from another op's (an equally good "
        "alignment places them elsewhere): their times are uncertain",
        r.uncertain.size()));
  }
  return {std::make_move_iterator(r.uncertain.begin()),
          std::make_move_iterator(r.uncertain.end())};
}

// An async event's work: from its start's issue to the end of its done (the event's
// hlo_op stat names the done), on the chip's clock where both ops carry it; else the event.
// Returns the start on the chip's clock (-1: none) and the length.
std::pair<double, double> async_span(const std::vector<const OpEvent*>& step, const OpEvent& e) {
  const ProfileEventExtra* start = nullptr;
  const ProfileEventExtra* done = nullptr;
  const std::string_view done_name = strip_percent(e.event->hlo_op);
  for (const OpEvent* o : step) {
    if (!o->on_chip_clock()) continue;
    if (o->op == e.op && start == nullptr) start = o->extra;
    if (!done_name.empty() && o->op == done_name) done = o->extra;
  }
  if (start != nullptr && done != nullptr && done->device_start_s >= start->device_start_s) {
    return {start->device_start_s,
            done->device_start_s + done->device_duration_s - start->device_start_s};
  }
  return {-1, e.event->duration_s};
}

// Each async event to the step it starts in, named by its start: its done's operand in the
// module, else the op whose own event begins when it does (the issue); an event of neither is
// left out.
std::vector<std::vector<const OpEvent*>> async_steps(
    std::vector<OpEvent>& async_events, const std::vector<std::vector<const OpEvent*>>& by_step,
    const Module* hlo, absl::FunctionRef<int64_t(const OpEvent&)> step_of) {
  std::vector<std::vector<const OpEvent*>> async_by_step(by_step.size());
  for (OpEvent& e : async_events) {
    const int64_t k = step_of(e);
    if (k < 0) continue;
    // The async event is displayed by its kind ("async-copy"): its start is its done's
    // operand in the module, else the op whose own event begins when it does (the issue).
    const std::vector<const OpEvent*>& step = by_step[static_cast<size_t>(k)];
    const std::string_view done = strip_percent(e.event->hlo_op);
    auto in_step = [&](std::string_view op) {
      return std::any_of(step.begin(), step.end(), [&](const OpEvent* o) { return o->op == op; });
    };
    if (!in_step(e.op) && hlo != nullptr && !done.empty()) {
      for (const Computation* c : hlo->computations()) {
        const Instruction* d = c->find_instruction(done);
        if (d == nullptr || d->operands().empty()) continue;
        const std::string_view start = d->operand(0)->name();
        if (in_step(start)) e.op = start;
        break;
      }
    }
    if (!in_step(e.op)) {
      const OpEvent* issue = nullptr;
      for (const OpEvent* o : step) {
        const double apart = std::abs(o->event->start_s - e.event->start_s);
        if (o->op == done || apart > 1e-9) continue;
        if (issue == nullptr || apart < std::abs(issue->event->start_s - e.event->start_s)) {
          issue = o;
        }
      }
      if (issue == nullptr) continue;
      e.op = issue->op;
    }
    async_by_step[static_cast<size_t>(k)].push_back(&e);
  }
  return async_by_step;
}

// Each op's time, executions and kernels over the `steps` steps, per step on average.
void tally_ops(const std::vector<std::vector<const OpEvent*>>& by_step,
               const std::vector<std::vector<const OpEvent*>>& async_by_step,
               const absl::flat_hash_set<std::string>& uncertain, double steps,
               std::vector<MeasuredOp>& ops) {
  struct Tally {
    double time_s = 0;
    int64_t count = 0;
    std::map<std::string_view, int64_t> kernels;  // name -> events
    std::vector<double> steps_s;                  // per step
    double async_s = 0;
  };
  std::map<std::string_view, Tally> tallies;
  for (size_t k = 0; k < by_step.size(); ++k) {
    for (const OpEvent* e : by_step[k]) {
      Tally& t = tallies[e->op];
      const double d = e->duration_s();
      t.time_s += d;
      ++t.count;
      ++t.kernels[e->event->name];
      t.steps_s.resize(by_step.size(), 0.0);
      t.steps_s[k] += d;
    }
  }
  for (size_t k = 0; k < async_by_step.size(); ++k) {
    for (const OpEvent* e : async_by_step[k]) {
      auto it = tallies.find(e->op);
      if (it != tallies.end()) it->second.async_s += async_span(by_step[k], *e).second;
    }
  }
  for (const auto& [op, t] : tallies) {
    // One execution may launch several kernels (a library GEMM clears its workspace first):
    // the executions are the launches of its most frequent kernel.
    int64_t executions = 0;
    for (const auto& [kernel, n] : t.kernels) executions = std::max(executions, n);
    MeasuredOp m{std::string(op), t.time_s / steps, static_cast<double>(executions) / steps,
                 static_cast<double>(t.count) / steps, static_cast<int64_t>(t.kernels.size())};
    const auto [least, most] = std::minmax_element(t.steps_s.begin(), t.steps_s.end());
    m.step_min_s = *least;
    m.step_max_s = *most;
    m.alignment_uncertain = uncertain.contains(sv(op));
    m.async_s = t.async_s / steps;
    ops.push_back(std::move(m));
  }

}

// The median step (the one whose duration is the median's, the lower of the middle two): its
// events from its start, and the time some op runs in it.
void add_median_step(const std::vector<std::pair<double, double>>& windows,
                     const std::vector<std::vector<const OpEvent*>>& by_step,
                     const std::vector<std::vector<const OpEvent*>>& async_by_step,
                     MeasuredModule& out) {
  std::vector<size_t> order(windows.size());
  for (size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return out.steps_s[a] < out.steps_s[b]; });
  const size_t chosen = order[(order.size() - 1) / 2];
  out.step_s = out.steps_s[chosen];
  const double origin = windows[chosen].first;
  // Ops on the chip's clock start where their first one does on the host's.
  const OpEvent* first_on_chip = nullptr;
  for (const OpEvent* e : by_step[chosen]) {
    if (!e->on_chip_clock()) continue;
    if (first_on_chip == nullptr ||
        e->extra->device_start_s < first_on_chip->extra->device_start_s) {
      first_on_chip = e;
    }
  }
  const double shift =
      first_on_chip == nullptr
          ? 0
          : first_on_chip->event->start_s - origin - first_on_chip->extra->device_start_s;
  std::vector<std::pair<double, double>> busy;
  for (const OpEvent* e : by_step[chosen]) {
    const double s =
        e->on_chip_clock() ? e->extra->device_start_s + shift : e->event->start_s - origin;
    const double d = e->duration_s();
    const double end = std::min(s + d, windows[chosen].second - origin);
    busy.emplace_back(s, std::max(s, end));
    out.median_step.push_back({std::string(e->op), e->event->name, std::string(e->track), s, d});
  }
  for (const OpEvent* e : async_by_step[chosen]) {
    const auto [chip_start, length] = async_span(by_step[chosen], *e);
    out.median_step.push_back({std::string(e->op), e->event->name, std::string(e->track),
                               chip_start >= 0 ? chip_start + shift : e->event->start_s - origin,
                               length});
  }
  std::stable_sort(
      out.median_step.begin(), out.median_step.end(),
      [](const MeasuredEvent& a, const MeasuredEvent& b) { return a.start_s < b.start_s; });
  out.busy_s = profile_internal::union_length(std::move(busy));
}

absl::StatusOr<MeasuredModule> measure(const Profile& profile, std::string_view module,
                                       const Module* hlo, const ProfileOptions& options) {
  absl::StatusOr<const ProfilePlane*> found = device_plane(profile, options.device_index);
  if (!found.ok()) return found.status();
  std::string name = options.module_name.empty() ? std::string(module) : options.module_name;
  uint64_t program_id = options.program_id;
  // A program named as the profile names it: "jit_step(2)" is program 2 of jit_step (its
  // kernels name jit_step), and a number alone a program of the module's own name.
  if (!name.empty() && std::all_of(name.begin(), name.end(), absl::ascii_isdigit)) {
    uint64_t id = 0;
    if (absl::SimpleAtoi(name, &id) && id != 0) {
      if (program_id == 0) program_id = id;
      name = std::string(module);
    }
  } else if (const uint64_t id = profile_program_id(name); id != 0) {
    if (program_id == 0) program_id = id;
    name = std::string(module_of(name));
  }
  MeasuredModule out;
  // A profile whose kernels ran on another device than the first (JAX on one GPU of eight):
  // the first device plane that ran the module.
  if (options.device_index == 0 && !runs_module(**found, name, program_id)) {
    for (const ProfilePlane& p : profile.planes) {
      if (&p == *found || !is_device_plane(p) || !runs_module(p, name, program_id)) continue;
      out.notes.push_back(absl::StrCat((*found)->name, " shows no op of the module: ", p.name,
                                       " read (--device-index picks another)"));
      *found = &p;
      break;
    }
  }
  const ProfilePlane& plane = **found;
  out.plane = plane.name;
  out.module = name;

  // Steps: the module's executions.
  std::vector<std::pair<double, double>> windows;  // start, end
  if (absl::Status s = module_windows(profile, plane, name, program_id, windows, out.notes);
      !s.ok()) {
    return s;
  }
  std::vector<OpEvent> events, async_events;
  if (absl::Status s = op_events(profile, plane, name, program_id, events, async_events,
                                 out.notes);
      !s.ok()) {
    return s;
  }
  absl::flat_hash_set<std::string> uncertain;
  if (hlo != nullptr) uncertain = resolve_kernel_ops(*hlo, events, out.notes);

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

  // Each event to the step it starts in (its start on the host's clock, as the steps' are).
  auto step_of = [&](const OpEvent& e) -> int64_t {
    const double t = e.event->start_s;
    auto it = std::upper_bound(windows.begin(), windows.end(), std::pair{t, 1e300});
    if (it == windows.begin()) return -1;
    const size_t k = static_cast<size_t>(it - windows.begin()) - 1;
    // A nanosecond of slack: JSON traces round times to the microsecond's fraction.
    if (t > windows[k].second + 1e-9) return -1;
    return static_cast<int64_t>(k);
  };
  if (by_step.empty()) {
    by_step.resize(windows.size());
    for (const OpEvent& e : events) {
      const int64_t k = step_of(e);
      if (k < 0) {
        ++outside;
        continue;
      }
      by_step[static_cast<size_t>(k)].push_back(&e);
    }
  }
  std::vector<std::vector<const OpEvent*>> async_by_step =
      async_steps(async_events, by_step, hlo, step_of);
  if (outside > 0) {
    out.notes.push_back(absl::StrFormat("%d op event%s outside the module's steps left out",
                                        outside, outside == 1 ? "" : "s"));
  }

  out.steps = static_cast<int64_t>(windows.size());
  for (const auto& [s, e] : windows) out.steps_s.push_back(e - s);

  tally_ops(by_step, async_by_step, uncertain, static_cast<double>(out.steps), out.ops);

  add_median_step(windows, by_step, async_by_step, out);
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
