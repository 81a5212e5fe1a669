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
#include "profile/profile_internal.h"
#include "profile/xspace_metadata.h"
#include "proto/xspace_wire.h"
#include "hloroof/absl_compat.h"

namespace hloroof {

using xspace::stat_value;

void read_plane_metadata(const xplane::XPlane& plane, ProfilePlane* out, Profile* profile) {
  absl::flat_hash_map<int64_t, std::string_view> stat_names;
  for (const auto& [id, m] : plane.stat_metadata()) stat_names[id] = m.name();
  auto name_of = [&](const xplane::XStat& s) {
    auto it = stat_names.find(s.metadata_id());
    return it == stat_names.end() ? std::string_view() : it->second;
  };
  out->device_type = xspace::plane_device_type(plane);
  if (plane.name() == "/host:metadata") {
    xspace::add_carried_modules(plane, &profile->module_protos);
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

namespace {

// The time each module the profile carries ran; nothing counted when it carries none.
ModuleRunTimes module_run_times(const Profile& profile) {
  ModuleRunTimes run_times;
  for (const ProfilePlane& p : profile.planes) {
    if (profile.module_protos.empty()) break;
    for (const ProfileLine& l : p.lines) {
      for (const ProfileEvent& e : l.events) run_times.add(l.name, e.name, e.duration_s);
    }
  }
  return run_times;
}

}  // namespace

absl::StatusOr<const ProfileModuleProto*> pick_profile_module(const Profile& profile,
                                                              std::string_view name,
                                                              std::string* note) {
  return pick_carried_module(profile.origin, profile.module_protos, module_run_times(profile),
                             name, note, "--module");
}

std::vector<ProfileModuleTime> profile_module_times(const Profile& profile) {
  const ModuleRunTimes run_times = module_run_times(profile);
  std::vector<ProfileModuleTime> out;
  for (const ProfileModuleProto* m : modules_by_run_time(profile.module_protos, run_times)) {
    out.push_back({m->name, run_times.of(m->name)});
  }
  return out;
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
  const std::string_view digits = profile_program_id_text(name);
  return !digits.empty() && absl::SimpleAtoi(sv(digits), &id) ? id : 0;
}

absl::StatusOr<std::optional<uint64_t>> profile_program_of(const Profile& profile,
                                                           const Module& module,
                                                           std::string_view name,
                                                           std::string* note) {
  std::vector<const ProfileModuleProto*> named;
  for (const ProfileModuleProto& m : profile.module_protos) {
    if (profile_base_name(m.name) == name && !profile_program_id_text(m.name).empty()) {
      named.push_back(&m);
    }
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
    if (!absl::SimpleAtoi(sv(profile_program_id_text(m->name)), &id)) continue;
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

namespace profile_internal {

absl::Status join_own_program(const Profile& profile, const Module& module,
                              ProfileOptions& options, std::string* note) {
  if (options.program_id != 0) return absl::OkStatus();
  const std::string name =
      options.module_name.empty() ? std::string(module.name()) : options.module_name;
  absl::StatusOr<std::optional<uint64_t>> program =
      profile_program_of(profile, module, name, note);
  if (!program.ok()) return program.status();
  if (program->has_value()) options.program_id = **program;
  return absl::OkStatus();
}

}  // namespace profile_internal

}  // namespace hloroof
