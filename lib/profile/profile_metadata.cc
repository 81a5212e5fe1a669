// The metadata of an XSpace (see xspace_metadata.h), and picking the module a profile carries.
#include <algorithm>
#include <map>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hloroof/computation.h"
#include "hloroof/hlo_proto.h"
#include "hloroof/shape.h"
#include "hloroof/units.h"
#include "hloroof/xspace.h"
#include "profile/xspace_metadata.h"
#include "util/absl_compat.h"

namespace hloroof {
namespace {

double stat_value(const xplane::XStat& s) {
  switch (s.value_case()) {
    case xplane::XStat::kDoubleValue: return s.double_value();
    case xplane::XStat::kInt64Value: return static_cast<double>(s.int64_value());
    case xplane::XStat::kUint64Value: return static_cast<double>(s.uint64_value());
    default: return -1;
  }
}

// "jit_step(12)" -> "jit_step"; "jit_step:XLA GPU module" -> "jit_step".
std::string_view base_name(std::string_view name) {
  constexpr std::string_view kGpuSuffix = ":XLA GPU module";
  if (absl::EndsWith(sv(name), sv(kGpuSuffix))) name.remove_suffix(kGpuSuffix.size());
  if (!name.empty() && name.back() == ')') {
    const size_t open = name.rfind('(');
    if (open != std::string_view::npos && open > 0) return name.substr(0, open);
  }
  return name;
}

// "jit_step(12)" -> "12"; "" without an id.
std::string_view program_id_of(std::string_view name) {
  if (name.empty() || name.back() != ')') return {};
  const size_t open = name.rfind('(');
  if (open == std::string_view::npos) return {};
  return name.substr(open + 1, name.size() - open - 2);
}

}  // namespace

void read_plane_metadata(const xplane::XPlane& plane, ProfilePlane* out, Profile* profile) {
  absl::flat_hash_map<int64_t, std::string_view> stat_names;
  for (const auto& [id, m] : plane.stat_metadata()) stat_names[id] = m.name();
  auto name_of = [&](const xplane::XStat& s) {
    auto it = stat_names.find(s.metadata_id());
    return it == stat_names.end() ? std::string_view() : it->second;
  };
  // ROCm's planes name no model: the vendor, compute capability and compute units tell it
  // ("AMD GPU, compute capability 9.4, 304 compute units" is an MI300X or MI300A).
  std::string vendor;
  int64_t cc_major = -1, cc_minor = -1, cores = -1;
  for (const xplane::XStat& s : plane.stats()) {
    std::string_view n = name_of(s);
    if ((n == "device_type_string" || n == "gpu_device_name") &&
        s.value_case() == xplane::XStat::kStrValue && out->device_type.empty()) {
      out->device_type = s.str_value();
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
  if (out->device_type.empty() && vendor == "AMD" && cc_major >= 0 && cc_minor >= 0) {
    out->device_type = absl::StrCat("AMD GPU, compute capability ", cc_major, ".", cc_minor);
    if (cores > 0) absl::StrAppend(&out->device_type, ", ", cores, " compute units");
  }
  if (plane.name() == "/host:metadata") {
    for (const auto& [id, m] : plane.event_metadata()) {
      for (const xplane::XStat& s : m.stats()) {
        if (name_of(s) != "Hlo Proto" || s.value_case() != xplane::XStat::kBytesValue) continue;
        profile->module_protos.push_back({m.name(), s.bytes_value()});
      }
    }
    return;
  }
  // XLA's per-op costs: the event metadata with cost stats (TPU's "XLA Ops" events).
  for (const auto& [id, m] : plane.event_metadata()) {
    XlaOpCost cost;
    cost.op = m.display_name().empty() ? m.name() : m.display_name();
    bool any = false;
    for (const xplane::XStat& s : m.stats()) {
      std::string_view n = name_of(s);
      if (n == "flops") {
        cost.flops = stat_value(s);
        any = true;
      } else if (n == "model_flops") {
        cost.model_flops = stat_value(s);
        any = true;
      } else if (n == "bytes_accessed") {
        cost.bytes_accessed = stat_value(s);
        any = true;
      } else if (n == "program_id") {
        cost.program_id = s.value_case() == xplane::XStat::kUint64Value
                              ? s.uint64_value()
                              : static_cast<uint64_t>(std::max(0.0, stat_value(s)));
      }
    }
    if (any) out->xla_op_costs.push_back(std::move(cost));
  }
  std::sort(out->xla_op_costs.begin(), out->xla_op_costs.end(),
            [](const XlaOpCost& a, const XlaOpCost& b) {
              return a.program_id != b.program_id ? a.program_id < b.program_id : a.op < b.op;
            });
}

void finish_xspace_metadata(Profile* profile) {
  std::sort(profile->module_protos.begin(), profile->module_protos.end(),
            [](const ProfileModuleProto& a, const ProfileModuleProto& b) {
              return a.name < b.name;
            });
}

bool is_predicted_profile(const Profile& profile) {
  for (const ProfilePlane& p : profile.planes) {
    if (absl::StartsWith(p.name, "/device:") &&
        absl::StrContains(p.device_type, kPredictedByHloroof)) {
      return true;
    }
  }
  return false;
}

absl::Status predicted_profile_error(const Profile& profile) {
  if (!is_predicted_profile(profile)) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      profile.origin, ": this XSpace was ", kPredictedByHloroof,
      " (its device planes say so): it is no measurement to compare or fit with; give the "
      "profile the run wrote (jax.profiler.trace)"));
}

std::string profile_device_type(const Profile& profile) {
  for (const ProfilePlane& p : profile.planes) {
    if (!p.device_type.empty() && absl::StartsWith(p.name, "/device:")) return p.device_type;
  }
  return {};
}

absl::StatusOr<const ProfileModuleProto*> pick_profile_module(const Profile& profile,
                                                              std::string_view name,
                                                              std::string* note) {
  const std::vector<ProfileModuleProto>& modules = profile.module_protos;
  if (modules.empty()) {
    return absl::NotFoundError(absl::StrCat(
        profile.origin, ": the profile carries no HLO module (XSpaces that JAX writes hold each "
        "module's HloProto in their /host:metadata plane; this one holds none): give the HLO "
        "text or proto beside the profile"));
  }
  // Time each module ran: the events named after it on "XLA Modules" lines (TPU) and the
  // host's "NAME:XLA GPU module" events (GPU), by full name where events carry the id.
  std::map<std::string, double, std::less<>> by_full, by_base;
  for (const ProfilePlane& p : profile.planes) {
    for (const ProfileLine& l : p.lines) {
      const bool modules_line = l.name == "XLA Modules";
      for (const ProfileEvent& e : l.events) {
        if (!modules_line && !absl::EndsWith(e.name, ":XLA GPU module")) continue;
        by_full[e.name] += e.duration_s;
        by_base[std::string(base_name(e.name))] += e.duration_s;
      }
    }
  }
  auto time_of = [&](const ProfileModuleProto& m) {
    auto full = by_full.find(m.name);
    if (full != by_full.end()) return full->second;
    auto base = by_base.find(base_name(m.name));
    return base == by_base.end() ? 0.0 : base->second;
  };
  // The modules that ran longest first, at most 6 named.
  auto listing = [&] {
    std::vector<const ProfileModuleProto*> order;
    for (const ProfileModuleProto& m : modules) order.push_back(&m);
    std::stable_sort(order.begin(), order.end(),
                     [&](auto* a, auto* b) { return time_of(*a) > time_of(*b); });
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
      if (m.name == name || program_id_of(m.name) == name) picked = &m;
    }
    if (picked == nullptr) {
      // By name: the latest compiled (largest program id) of those so named.
      for (const ProfileModuleProto& m : modules) {
        if (base_name(m.name) != name) continue;
        uint64_t id = 0, best = 0;
        (void)absl::SimpleAtoi(sv(program_id_of(m.name)), &id);
        if (picked != nullptr) (void)absl::SimpleAtoi(sv(program_id_of(picked->name)), &best);
        if (picked == nullptr || id > best) picked = &m;
      }
    }
    if (picked == nullptr) {
      return absl::NotFoundError(absl::StrCat("--module: the profile carries no module named '",
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
                         name.empty() && modules.size() > 1 ? "; --module NAME reads another"
                                                            : "");
  }
  return picked;
}

namespace {

// What tells programs of one name apart: the entry's instructions, opcode and shape each, in
// order (the header's config attributes are not in an HloProto, and names are).
std::string entry_signature(const Module& m) {
  std::string out;
  const Computation* entry = m.entry();
  if (entry == nullptr) return out;
  for (const Instruction* i : entry->instructions()) {
    absl::StrAppend(&out, sv(opcode_name(i->opcode())), " ", to_string(i->shape()), ";");
  }
  return out;
}

}  // namespace

uint64_t profile_program_id(std::string_view name) {
  uint64_t id = 0;
  const std::string_view digits = program_id_of(name);
  return !digits.empty() && absl::SimpleAtoi(sv(digits), &id) ? id : 0;
}

absl::StatusOr<std::optional<uint64_t>> profile_program_of(const Profile& profile,
                                                           const Module& module,
                                                           std::string_view name,
                                                           std::string* note) {
  std::vector<const ProfileModuleProto*> named;
  for (const ProfileModuleProto& m : profile.module_protos) {
    if (base_name(m.name) == name && !program_id_of(m.name).empty()) named.push_back(&m);
  }
  if (named.size() < 2) return std::optional<uint64_t>();
  const std::string wanted = entry_signature(module);
  std::vector<std::string> ids;
  for (const ProfileModuleProto* m : named) {
    ids.push_back(m->name);
    const ParsedHloProto proto(m->hlo_proto);
    absl::StatusOr<Module> candidate = proto.module();
    if (!candidate.ok() || entry_signature(*candidate) != wanted) continue;
    uint64_t id = 0;
    if (!absl::SimpleAtoi(sv(program_id_of(m->name)), &id)) continue;
    if (note != nullptr) {
      *note = absl::StrCat(named.size(), " programs of the profile are named ", sv(name),
                           ": joined ", m->name, ", whose entry is the module given; --module "
                           "NAME(ID) joins another");
    }
    return std::optional<uint64_t>(id);
  }
  if (ids.size() > 6) {
    const size_t more = ids.size() - 6;
    ids.resize(6);
    ids.push_back(absl::StrCat("and ", more, " more"));
  }
  return absl::NotFoundError(absl::StrCat(
      named.size(), " programs of the profile are named ", sv(name),
      " and none holds the module given (its entry's ops and shapes differ from each one's): "
      "give --module NAME(ID) to join one of ", absl::StrJoin(ids, ", ")));
}

}  // namespace hloroof
