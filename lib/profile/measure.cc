// measure_module: a module's steps in a device plane and the time of each of its HLO ops.
#include <algorithm>
#include <cstdint>
#include <map>
#include <set>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
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

// TPU profiles name an "XLA Ops" event by the instruction's text, "%fusion.3 = f32[8] fusion(...),
// ...": the instruction's name is what comes before " = ".
std::string_view instruction_name(std::string_view event_name) {
  event_name = strip_percent(event_name);
  const size_t eq = event_name.find(" = ");
  return eq == std::string_view::npos ? event_name : event_name.substr(0, eq);
}

using profile_internal::OpEvent;

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

  // The op events: the "XLA Ops" line by name where the plane has one (TPU: the events of its
  // other lines that name an op, "Async XLA Ops", are transfers that run beside the ops), else
  // kernels with an hlo_op stat (GPU).
  std::vector<OpEvent> events;
  bool has_ops_line = false;
  for (const ProfileLine& line : plane.lines) {
    has_ops_line = has_ops_line || (line.name == kOpsLine && !line.events.empty());
  }
  for (const ProfileLine& line : plane.lines) {
    if (has_ops_line || line.name == kModulesLine || line.name == kOpsLine) continue;
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
        events.push_back({e, instruction_name(op), line.name});
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
      return absl::NotFoundError(
          absl::StrCat(profile.origin, ": module '", name, "' never runs on ", plane.name,
                       "; its kernels belong to '", absl::StrJoin(names, "', '"),
                       "'. Give the profile's name with --module"));
    }
    return absl::NotFoundError(
        absl::StrCat(profile.origin, ": ", plane.name, " has no op events of module '", name,
                     "': no kernels with an hlo_op stat and no '", sv(kOpsLine), "' line"));
  }
  absl::flat_hash_set<std::string> uncertain;
  if (hlo != nullptr) {
    profile_internal::KernelResolution r = profile_internal::resolve_kernels(*hlo, events);
    if (r.unknown > 0) {
      out.notes.push_back(
          absl::StrFormat("%d of %d kernels named no instruction of the module (CUDA graphs, async "
                          "wrappers): %d given theirs by kernel name and launch order",
                          r.unknown, events.size(), r.resolved));
    }
    if (r.cut_short) {
      out.notes.push_back(absl::StrFormat(
          "kernel resolution cut short at its work limit (%d alignment cells and instructions "
          "scanned): %d kernels keep the command buffer's or wrapper's name",
          r.work, r.unknown - r.resolved));
    }
    if (!r.uncertain.empty()) {
      out.notes.push_back(absl::StrFormat(
          "%d ops whose kernels launch order cannot tell from another op's (an equally good "
          "alignment places them elsewhere): their times are uncertain",
          r.uncertain.size()));
    }
    uncertain.insert(std::make_move_iterator(r.uncertain.begin()),
                     std::make_move_iterator(r.uncertain.end()));
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
    std::vector<double> steps_s;                  // per step
  };
  std::map<std::string_view, Tally> tallies;
  for (size_t k = 0; k < by_step.size(); ++k) {
    for (const OpEvent* e : by_step[k]) {
      Tally& t = tallies[e->op];
      t.time_s += e->event->duration_s;
      ++t.count;
      ++t.kernels[e->event->name];
      t.steps_s.resize(by_step.size(), 0.0);
      t.steps_s[k] += e->event->duration_s;
    }
  }
  const double steps = static_cast<double>(out.steps);
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
    out.ops.push_back(std::move(m));
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
