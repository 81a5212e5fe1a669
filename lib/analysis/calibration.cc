// A device fitted to profiles read from files (calibrate_profiles, hloroof/analysis.h), and
// the device a profile was measured on and is joined on (resolve_profile_device).
#include <filesystem>
#include <optional>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "hloroof/analysis.h"
#include "hloroof/hlo_proto.h"
#include "hloroof/input_file.h"
#include "hloroof/platform.h"
#include "nlohmann/json.hpp"
#include "hloroof/absl_compat.h"

namespace hloroof {
namespace {

namespace fs = std::filesystem;

// A capture folder of tools/capture holds its module as this file.
constexpr char kCapturedModule[] = "module.hlo";

absl::Status usage_error(std::string message) {
  absl::Status status = absl::InvalidArgumentError(std::move(message));
  status.SetPayload(kCalibrationUsagePayload, absl::Cord("1"));
  return status;
}

// The module a profile carries (as an HloProto), picked by `options.module_name`.
absl::StatusOr<LoadedModule> module_of_profile(const Profile& profile,
                                               const LoadOptions& options) {
  std::string note;
  absl::StatusOr<const ProfileModuleProto*> picked = pick_carried_module(
      profile.origin, profile.module_protos, [&] {
        ModuleRunTimes times;
        for (const ProfilePlane& p : profile.planes) {
          for (const ProfileLine& l : p.lines) {
            for (const ProfileEvent& e : l.events) times.add(l.name, e.name, e.duration_s);
          }
        }
        return times;
      }(), options.module_name, &note, options.module_option);
  if (!picked.ok()) return picked.status();
  const ParsedHloProto proto((*picked)->hlo_proto);
  absl::StatusOr<Module> module = proto.module(
      ParseOptions{.file_name = absl::StrCat(profile.origin, ":", (*picked)->name)});
  if (!module.ok()) return module.status();
  LoadedModule loaded;
  loaded.module = *std::move(module);
  loaded.file = profile.origin;
  loaded.diagnostics.notes.push_back(std::move(note));
  loaded.profile_module = (*picked)->name;
  return loaded;
}

// The device every capture names, and the note that says so. Errors (usage errors): a profile
// that names no built-in device, profiles of different devices.
absl::StatusOr<std::string> device_of_profiles(const ProfileCalibrationInputs& in,
                                               const std::vector<MeasuredDevice>& measured) {
  const std::vector<std::string>& profiles = in.profiles;
  for (size_t k = 0; k < measured.size(); ++k) {
    if (measured[k].device.empty()) {
      return usage_error(
          measured[k].kind.empty()
              ? absl::StrCat(in.device_option, " is required: ", profiles[k],
                             " does not name its device")
              : absl::StrCat(in.device_option, " is required: ", profiles[k], " ran on '",
                             measured[k].kind, "', which is not a built-in device"));
    }
    if (measured[k].device != measured[0].device) {
      return usage_error(absl::StrCat("the profiles ran on different devices (", profiles[0],
                                      ": ", measured[0].device, ", ", profiles[k], ": ",
                                      measured[k].device, "): calibrate one device at a time"));
    }
  }
  if (in.on_note) {
    in.on_note(absl::StrCat("device ", measured[0].device, " from the profiles, which ran on '",
                            measured[0].kind, "' (", measured[0].source, "); ", in.device_option,
                            " overrides it"));
  }
  return measured[0].device;
}

// The join's advice is `profile`'s (name the profile's module); here each run's module is the
// one given, so the advice is to give the module that ran.
absl::Status advised(const absl::Status& status, const ProfileCalibrationInputs& in) {
  std::string message(status.message());
  const std::string profile_advice =
      absl::StrCat(". Give the profile's name with ", in.load.module_option);
  const size_t at = message.find(profile_advice);
  if (at == std::string::npos) return status;
  message.replace(at, profile_advice.size(),
                  absl::StrCat(": the module given is not the one profiled. Give that module's "
                               "HLO with ", in.modules_option, " (from a dump directory: ",
                               in.load.module_option, " NAME picks it)"));
  return absl::Status(status.code(), message);
}

}  // namespace

absl::StatusOr<MeasuredDevice> measured_device(const Profile& profile,
                                               std::string_view profile_path) {
  MeasuredDevice out;
  out.kind = profile_device_type(profile);
  if (!out.kind.empty()) {
    out.source = "the profile's device plane";
  } else {
    // Only the capture's own meta.json: in the folder given, beside the file, or, for a file
    // at LOGDIR/plugins/profile/RUN/, in LOGDIR or the folder holding it (a capture keeps its
    // profile in a log folder of its own). A meta.json further up belongs to something else.
    std::error_code error;
    std::vector<fs::path> places;
    const fs::path given{std::string(profile_path)};
    if (fs::is_directory(given, error)) {
      places.push_back(given);
      // A log folder given: the capture folder holding it too.
      if (fs::is_directory(given / "plugins" / "profile", error)) {
        places.push_back(given.parent_path());
      }
    } else {
      const fs::path run = given.parent_path();
      places.push_back(run);
      const fs::path profile_dir = run.parent_path();
      const fs::path plugins = profile_dir.parent_path();
      if (profile_dir.filename() == "profile" && plugins.filename() == "plugins") {
        places.push_back(plugins.parent_path());
        places.push_back(plugins.parent_path().parent_path());
      }
    }
    for (const fs::path& dir : places) {
      const fs::path meta = (dir.empty() ? fs::path(".") : dir) / "meta.json";
      if (!fs::is_regular_file(meta, error)) continue;
      absl::StatusOr<InputFile> text = read_input_file(meta.string());
      if (!text.ok()) return text.status();
      const nlohmann::json doc =
          nlohmann::json::parse(text->text().begin(), text->text().end(), nullptr, false);
      if (doc.is_object() && doc.contains("device_kind") && doc["device_kind"].is_string()) {
        out.kind = doc["device_kind"].get<std::string>();
        out.source = meta.string();
      }
      break;
    }
  }
  if (out.kind.empty()) return out;
  const KindDevice d = device_for_kind(out.kind);
  out.device = d.device;
  out.platform = d.platform;
  return out;
}

absl::Status check_same_platform(const MeasuredDevice& measured, const DeviceSpec& spec) {
  if (measured.platform.empty()) return absl::OkStatus();
  const std::string_view predicted = device_kind_name(spec.kind);
  if (predicted == measured.platform) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "the profile was measured on '", measured.kind, "' (a ",
      absl::AsciiStrToUpper(measured.platform), ", read from ", measured.source,
      ") and the prediction is for ", spec.name, " (a ",
      absl::AsciiStrToUpper(std::string(predicted)),
      "): a profile is joined with a prediction for its own device; give --device ",
      measured.device.empty() ? "for that device" : measured.device));
}

absl::StatusOr<ProfileDevice> resolve_profile_device(std::string_view device,
                                                     const Profile& profile,
                                                     std::string_view profile_path,
                                                     const Module& module,
                                                     const DeviceTargetOptions& options) {
  absl::StatusOr<MeasuredDevice> measured = measured_device(profile, profile_path);
  if (!measured.ok()) return measured.status();
  const std::string& option = options.device_option;
  ProfileDevice out;
  std::string text(device);
  if (text.empty()) {
    if (measured->device.empty() && measured->platform.empty()) {
      return usage_error(
          measured->kind.empty()
              ? absl::StrCat(option, " is required: the profile does not name its device")
              : absl::StrCat(option, " is required: the profile ran on '", measured->kind,
                             "', which is not a built-in device (a device JSON can describe "
                             "it)"));
    }
    // A device of the capture's platform that hloroof has no spec for: the platform's default
    // stands in.
    out.stand_in = measured->device.empty();
    text = out.stand_in ? std::string(measured->platform == "gpu" ? kDefaultGpuDevice
                                                                  : kDefaultTpuDevice)
                        : measured->device;
    out.said =
        out.stand_in
            ? absl::StrCat("the profile ran on '", measured->kind, "' (", measured->source,
                           "), which is no built-in device: ", text,
                           " stands in for it, so expected times are ", text, "'s; ", option,
                           " names a device JSON that describes it")
            : absl::StrCat("device ", measured->device, " from the profile, which ran on '",
                           measured->kind, "' (", measured->source, "); ", option,
                           " overrides it");
  }
  absl::StatusOr<DeviceTarget> target = resolve_device(text, &module, options);
  if (!target.ok()) return target.status();
  if (absl::Status same = check_same_platform(*measured, target->spec); !same.ok()) return same;
  out.target = *std::move(target);
  if (!out.said.empty()) {
    std::vector<std::string>& notes = out.target.diagnostics.notes;
    notes.insert(notes.begin(), out.said);
  }
  return out;
}

absl::StatusOr<ProfileCalibration> calibrate_profiles(const ProfileCalibrationInputs& in) {
  const size_t n = in.profiles.size();
  if (n == 0) return usage_error("no profile given");
  const size_t given = in.modules.empty() ? in.module_paths.size() : in.modules.size();
  if (given > 1 && given != n) {
    return usage_error(absl::StrCat("give one module for every profile (", n, " profiles, ",
                                    given, " modules), or one for all"));
  }
  ProfileCalibration out;
  std::vector<Profile> read;
  read.reserve(n);
  for (const std::string& path : in.profiles) {
    absl::StatusOr<Profile> profile = read_profile(path);
    if (!profile.ok()) return profile.status();
    read.push_back(*std::move(profile));
    out.inputs.push_back(path);
    out.inputs.push_back(read.back().origin);
  }
  // The modules: given in memory, else read (one for all is read once).
  std::vector<Module> owned;
  owned.reserve(n);
  std::vector<uint64_t> program_ids(n, 0);  // of the modules the profiles carry
  std::vector<const Module*> modules = in.modules;
  for (size_t k = 0; modules.empty() && k < n; ++k) {
    if (k > 0 && in.module_paths.size() == 1) break;
    absl::StatusOr<LoadedModule> loaded = absl::UnknownError("unread");
    if (!in.module_paths.empty()) {
      loaded = load_module(in.module_paths[k], in.load);
      out.inputs.push_back(in.module_paths[k]);
    } else {
      // A capture folder holds its module; otherwise the profile carries it.
      const std::string captured = (fs::path(in.profiles[k]) / kCapturedModule).string();
      std::error_code error;
      if (fs::is_regular_file(captured, error)) {
        LoadOptions options = in.load;
        options.module_name.clear();
        loaded = load_module(captured, options);
        out.inputs.push_back(captured);
      } else {
        loaded = module_of_profile(read[k], in.load);
        if (loaded.ok()) program_ids[k] = profile_program_id(loaded->profile_module);
      }
    }
    if (!loaded.ok()) return loaded.status();
    if (in.on_loaded) in.on_loaded(*loaded);
    out.inputs.push_back(loaded->file);
    owned.push_back(std::move(loaded->module));
  }
  if (modules.empty()) {
    for (const Module& m : owned) modules.push_back(&m);
  }
  std::vector<CalibrationRun> runs;
  for (size_t k = 0; k < n; ++k) {
    runs.push_back(
        {modules[modules.size() == 1 ? 0 : k], &read[k], in.profiles[k], program_ids[k]});
  }

  // The device: as given, else the one every capture names, as `profile` infers it. A capture
  // of one platform is not fitted with a device of another.
  std::vector<MeasuredDevice> measured;
  for (size_t k = 0; k < n; ++k) {
    absl::StatusOr<MeasuredDevice> m = measured_device(read[k], in.profiles[k]);
    if (!m.ok()) return m.status();
    measured.push_back(*std::move(m));
  }
  out.device = in.device;
  if (out.device.empty()) {
    absl::StatusOr<std::string> named = device_of_profiles(in, measured);
    if (!named.ok()) return named.status();
    out.device = *std::move(named);
  }
  absl::StatusOr<DeviceTarget> choice =
      resolve_device(out.device, modules[0],
                     {.topology = in.options.topology, .settings = in.options.settings});
  if (!choice.ok()) return choice.status();
  for (const MeasuredDevice& m : measured) {
    if (absl::Status same = check_same_platform(m, choice->spec); !same.ok()) return same;
  }
  absl::StatusOr<CalibrationResult> result = calibrate(runs, out.device, in.options);
  if (!result.ok()) return advised(result.status(), in);
  out.result = *std::move(result);
  out.inputs.push_back(out.device);
  return out;
}

}  // namespace hloroof
