// The modules an XSpace carries (hloroof/xspace_modules.h) and its wire format, counted before
// it is decoded (xspace_wire.h).
#include "hloroof/xspace_modules.h"

#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hloroof/units.h"
#include "proto/xspace_wire.h"
#include "hloroof/absl_compat.h"
#include "hloroof/text_safety.h"
#include "util/wire_reader.h"

namespace hloroof {
namespace xspace {
namespace {

using wire::for_each_field;

// The memory, in bytes, that decoding a message takes: its objects and the strings in it.
// Approximate (a map entry's node, allocator overhead), within a small factor.
int64_t decoded_bytes(int64_t objects_bytes, std::string_view payload) {
  return objects_bytes + static_cast<int64_t>(payload.size());
}

// Counts what `plane` holds; false when its wire format is broken.
bool count_plane(std::string_view plane, PlaneCount* count) {
  count->bytes = plane;
  count->shell_bytes = decoded_bytes(sizeof(xplane::XPlane), plane);
  return for_each_field(plane, [&](const wire::Field& f) {
    if (f.type != 2) return true;
    if (f.number == kPlaneLines) {
      count->lines.push_back(f.payload);
      int64_t line_bytes = decoded_bytes(sizeof(xplane::XLine), f.payload);
      const bool ok = for_each_field(f.payload, [&](const wire::Field& e) {
        if (e.number != kLineEvents || e.type != 2) return true;
        ++count->events;
        line_bytes += sizeof(xplane::XEvent);
        return for_each_field(e.payload, [&](const wire::Field& st) {
          if (st.number == kEventStats && st.type == 2) line_bytes += sizeof(xplane::XStat);
          return true;
        });
      });
      count->max_line_bytes = std::max(count->max_line_bytes, line_bytes);
      return ok;
    }
    if (f.number == kPlaneEventMetadata || f.number == kPlaneStatMetadata) {
      // A map entry: a node holding the key and the metadata message, and its stats.
      constexpr int64_t kNode = 64;
      count->shell_bytes += kNode + static_cast<int64_t>(sizeof(xplane::XEventMetadata));
      if (f.number == kPlaneStatMetadata) return true;
      return for_each_field(f.payload, [&](const wire::Field& v) {
        if (v.number != kMapValue || v.type != 2) return true;
        return for_each_field(v.payload, [&](const wire::Field& st) {
          if (st.number == kEventMetadataStats && st.type == 2) {
            count->shell_bytes += sizeof(xplane::XStat);
          }
          return true;
        });
      });
    }
    return true;
  });
}

absl::flat_hash_map<int64_t, std::string_view> stat_names(const xplane::XPlane& plane) {
  absl::flat_hash_map<int64_t, std::string_view> names;
  for (const auto& [id, m] : plane.stat_metadata()) names[id] = m.name();
  return names;
}

}  // namespace

double stat_value(const xplane::XStat& s) {
  switch (s.value_case()) {
    case xplane::XStat::kDoubleValue: return s.double_value();
    case xplane::XStat::kInt64Value: return static_cast<double>(s.int64_value());
    case xplane::XStat::kUint64Value: return static_cast<double>(s.uint64_value());
    default: return -1;
  }
}

std::string size_words(int64_t bytes) { return absl::StrCat(bytes >> 30, " GiB"); }

absl::Status not_xspace(std::string_view origin) {
  return absl::InvalidArgumentError(absl::StrCat(
      sv(origin), ": not an XSpace protobuf (the .xplane.pb that jax.profiler.trace writes)"));
}

absl::StatusOr<std::vector<PlaneCount>> count_xspace(std::string_view bytes,
                                                     std::string_view origin) {
  if (static_cast<int64_t>(bytes.size()) > kMaxProfileFileBytes) {
    return absl::InvalidArgumentError(absl::StrCat(sv(origin), ": larger than ",
                                                   size_words(kMaxProfileFileBytes),
                                                   ", more than hloroof reads from one profile"));
  }
  // Count first, decode nothing yet.
  std::vector<std::string_view> planes;
  bool too_many_planes = false;
  if (!for_each_field(bytes, [&](const wire::Field& f) {
        if (f.number != kSpacePlanes || f.type != 2) return true;
        planes.push_back(f.payload);
        too_many_planes = static_cast<int64_t>(planes.size()) > kMaxProfilePlanes;
        return !too_many_planes;
      })) {
    if (!too_many_planes) return not_xspace(origin);
    return absl::ResourceExhaustedError(
        absl::StrCat(sv(origin), ": holds more than ", kMaxProfilePlanes,
                     " planes (devices and hosts), more than hloroof reads from one profile"));
  }
  std::vector<PlaneCount> counts(planes.size());
  int64_t lines = 0, events = 0;
  for (size_t k = 0; k < planes.size(); ++k) {
    if (!count_plane(planes[k], &counts[k])) return not_xspace(origin);
    lines += static_cast<int64_t>(counts[k].lines.size());
    events += counts[k].events;
    const int64_t decoded = std::max(counts[k].shell_bytes, counts[k].max_line_bytes);
    if (decoded > kMaxProfileHeldBytes) {
      return absl::ResourceExhaustedError(absl::StrCat(
          sv(origin), ": plane ", k, " would take more than ", size_words(kMaxProfileHeldBytes),
          " of memory to decode, more than hloroof holds for one profile"));
    }
  }
  if (lines > kMaxProfileLines) {
    return absl::ResourceExhaustedError(
        absl::StrCat(sv(origin), ": holds more than ", kMaxProfileLines,
                     " lines (timeline rows), more than hloroof reads from one profile"));
  }
  if (events > kMaxProfileEvents) {
    return absl::ResourceExhaustedError(absl::StrCat(
        sv(origin), ": holds more than ", kMaxProfileEvents,
        " events, more than hloroof reads from one profile; profile fewer steps"));
  }
  return counts;
}

std::string plane_shell(std::string_view plane) {
  std::string shell;
  for_each_field(plane, [&](const wire::Field& f) {
    if (!(f.number == kPlaneLines && f.type == 2)) shell.append(f.raw);
    return true;
  });
  return shell;
}

std::string plane_device_type(const xplane::XPlane& plane) {
  const absl::flat_hash_map<int64_t, std::string_view> names = stat_names(plane);
  std::string device_type, vendor;
  int64_t cc_major = -1, cc_minor = -1, cores = -1;
  for (const xplane::XStat& s : plane.stats()) {
    auto it = names.find(s.metadata_id());
    const std::string_view n = it == names.end() ? std::string_view() : it->second;
    if ((n == "device_type_string" || n == "gpu_device_name") &&
        s.value_case() == xplane::XStat::kStrValue && device_type.empty()) {
      device_type = s.str_value();
    } else if (n == "device_vendor" && s.value_case() == xplane::XStat::kStrValue) {
      vendor = s.str_value();
    } else if (n == "compute_cap_major") {
      cc_major = static_cast<int64_t>(stat_value(s));
    } else if (n == "compute_cap_minor") {
      cc_minor = static_cast<int64_t>(stat_value(s));
    } else if (n == "core_count") {
      cores = static_cast<int64_t>(stat_value(s));
    }
  }
  // ROCm's planes name no model: the vendor, compute capability and compute units tell it
  // ("AMD GPU, compute capability 9.4, 304 compute units" is an MI300X or MI300A).
  if (device_type.empty() && vendor == "AMD" && cc_major >= 0 && cc_minor >= 0) {
    device_type = absl::StrCat("AMD GPU, compute capability ", cc_major, ".", cc_minor);
    if (cores > 0) absl::StrAppend(&device_type, ", ", cores, " compute units");
  }
  return device_type;
}

void add_carried_modules(const xplane::XPlane& plane, std::vector<ProfileModuleProto>* out) {
  if (plane.name() != "/host:metadata") return;
  const absl::flat_hash_map<int64_t, std::string_view> names = stat_names(plane);
  for (const auto& [id, m] : plane.event_metadata()) {
    for (const xplane::XStat& s : m.stats()) {
      auto it = names.find(s.metadata_id());
      if (it == names.end() || it->second != "Hlo Proto" ||
          s.value_case() != xplane::XStat::kBytesValue) {
        continue;
      }
      out->push_back({m.name(), s.bytes_value()});
    }
  }
}

}  // namespace xspace

std::string_view profile_base_name(std::string_view name) {
  constexpr std::string_view kGpuSuffix = ":XLA GPU module";
  if (absl::EndsWith(sv(name), sv(kGpuSuffix))) name.remove_suffix(kGpuSuffix.size());
  if (!name.empty() && name.back() == ')') {
    const size_t open = name.rfind('(');
    if (open != std::string_view::npos && open > 0) return name.substr(0, open);
  }
  return name;
}

std::string_view profile_program_id_text(std::string_view name) {
  if (name.empty() || name.back() != ')') return {};
  const size_t open = name.rfind('(');
  if (open == std::string_view::npos) return {};
  return name.substr(open + 1, name.size() - open - 2);
}

void ModuleRunTimes::add(std::string_view line, std::string_view event, double seconds) {
  if (line != "XLA Modules" && !absl::EndsWith(sv(event), ":XLA GPU module")) return;
  // Keys are made only for a module's events (the lines and events of a profile are many).
  auto full = by_full_.find(event);
  if (full == by_full_.end()) full = by_full_.emplace(std::string(event), 0.0).first;
  full->second += seconds;
  const std::string_view base = profile_base_name(event);
  auto by_base = by_base_.find(base);
  if (by_base == by_base_.end()) by_base = by_base_.emplace(std::string(base), 0.0).first;
  by_base->second += seconds;
}

double ModuleRunTimes::of(std::string_view module_name) const {
  auto full = by_full_.find(module_name);
  if (full != by_full_.end()) return full->second;
  auto base = by_base_.find(profile_base_name(module_name));
  return base == by_base_.end() ? 0.0 : base->second;
}

absl::StatusOr<XSpaceModules> read_xspace_modules(std::string_view bytes,
                                                  std::string_view origin) {
  absl::StatusOr<std::vector<xspace::PlaneCount>> planes = xspace::count_xspace(bytes, origin);
  if (!planes.ok()) return planes.status();
  XSpaceModules out;
  out.origin = std::string(origin);
  for (const xspace::PlaneCount& count : *planes) {
    xplane::XPlane plane;
    if (!plane.ParseFromString(xspace::plane_shell(count.bytes))) {
      return xspace::not_xspace(origin);
    }
    if (out.device_type.empty() && absl::StartsWith(utf8_replaced(plane.name()), "/device:")) {
      out.device_type = xspace::plane_device_type(plane);
    }
    xspace::add_carried_modules(plane, &out.modules);
    // The events' names: a TPU op's metadata is named by the instruction's text, and displayed
    // by its name.
    absl::flat_hash_map<int64_t, std::string> event_names;
    for (const auto& [id, m] : plane.event_metadata()) {
      event_names[id] = utf8_replaced(m.display_name().empty() ? m.name() : m.display_name());
    }
    static const std::string kNoName;
    for (std::string_view bytes_of_line : count.lines) {
      xplane::XLine line;
      if (!line.ParseFromArray(bytes_of_line.data(), static_cast<int>(bytes_of_line.size()))) {
        return xspace::not_xspace(origin);
      }
      const std::string line_name =
          utf8_replaced(line.display_name().empty() ? line.name() : line.display_name());
      for (const xplane::XEvent& e : line.events()) {
        // Aggregated events (num_occurrences) have no place on the timeline.
        if (e.data_case() != xplane::XEvent::kOffsetPs || e.duration_ps() < 0) continue;
        auto name = event_names.find(e.metadata_id());
        out.run_times.add(line_name, name == event_names.end() ? kNoName : name->second,
                          static_cast<double>(e.duration_ps()) * 1e-12);
      }
    }
  }
  std::sort(out.modules.begin(), out.modules.end(),
            [](const ProfileModuleProto& a, const ProfileModuleProto& b) {
              return a.name < b.name;
            });
  return out;
}

std::vector<const ProfileModuleProto*> modules_by_run_time(
    const std::vector<ProfileModuleProto>& modules, const ModuleRunTimes& run_times) {
  std::vector<std::pair<double, const ProfileModuleProto*>> timed;
  for (const ProfileModuleProto& m : modules) timed.emplace_back(run_times.of(m.name), &m);
  std::stable_sort(timed.begin(), timed.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<const ProfileModuleProto*> out;
  for (const auto& [time, m] : timed) out.push_back(m);
  return out;
}

absl::StatusOr<const ProfileModuleProto*> pick_carried_module(const XSpaceModules& carried,
                                                              std::string_view name,
                                                              std::string* note,
                                                              std::string_view module_option) {
  return pick_carried_module(carried.origin, carried.modules, carried.run_times, name, note,
                             module_option);
}

absl::StatusOr<const ProfileModuleProto*> pick_carried_module(
    std::string_view origin, const std::vector<ProfileModuleProto>& modules,
    const ModuleRunTimes& run_times, std::string_view name, std::string* note,
    std::string_view module_option) {
  if (modules.empty()) {
    return absl::NotFoundError(absl::StrCat(
        sv(origin), ": the profile carries no HLO module (XSpaces that JAX writes hold each "
        "module's HloProto in their /host:metadata plane; this one holds none): give the HLO "
        "text or proto beside the profile"));
  }
  auto time_of = [&](const ProfileModuleProto& m) { return run_times.of(m.name); };
  // The modules that ran longest first, at most 6 named.
  auto listing = [&] {
    const std::vector<const ProfileModuleProto*> order = modules_by_run_time(modules, run_times);
    std::vector<std::string> names;
    for (size_t k = 0; k < order.size() && k < 6; ++k) {
      names.push_back(absl::StrCat(order[k]->name, " ", format_seconds(time_of(*order[k]))));
    }
    std::string out = absl::StrJoin(names, ", ");
    if (order.size() > names.size()) {
      absl::StrAppend(&out, " and ", order.size() - names.size(), " more");
    }
    return out;
  };
  const ProfileModuleProto* picked = nullptr;
  if (!name.empty()) {
    for (const ProfileModuleProto& m : modules) {
      if (m.name == name || profile_program_id_text(m.name) == name) picked = &m;
    }
    if (picked == nullptr) {
      // By name: the latest compiled (largest program id) of those so named.
      for (const ProfileModuleProto& m : modules) {
        if (profile_base_name(m.name) != name) continue;
        uint64_t id = 0, best = 0;
        (void)absl::SimpleAtoi(sv(profile_program_id_text(m.name)), &id);
        if (picked != nullptr) {
          (void)absl::SimpleAtoi(sv(profile_program_id_text(picked->name)), &best);
        }
        if (picked == nullptr || id > best) picked = &m;
      }
    }
    if (picked == nullptr) {
      return absl::NotFoundError(absl::StrCat(sv(module_option),
                                              ": the profile carries no module named '",
                                              sv(name), "'; it carries ", listing()));
    }
  } else {
    for (const ProfileModuleProto& m : modules) {
      if (picked == nullptr || time_of(m) > time_of(*picked)) picked = &m;
    }
  }
  if (note != nullptr) {
    *note = absl::StrCat("read module ", picked->name, " of the ", modules.size(),
                         " the profile carries (time run in it, over all its devices: ",
                         listing(), ")",
                         name.empty() && modules.size() > 1
                             ? absl::StrCat("; ", sv(module_option), " NAME reads another")
                             : "");
  }
  return picked;
}

}  // namespace hloroof
