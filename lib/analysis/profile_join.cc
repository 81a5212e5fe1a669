// join_profile and write_profile_xspaces (hloroof/analysis.h): a measured profile of a module
// beside its prediction.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>
#include <utility>

#include "absl/strings/str_cat.h"
#include "hloroof/analysis.h"
#include "hloroof/output_file.h"

namespace hloroof {
namespace {

// The program id the profile gives the module `name` ("jit_f" or "jit_f(12)"): the name of a
// module it carries, or of its executions on an "XLA Modules" line; 0 when none says.
uint64_t measured_program_id(const Profile& profile, std::string_view name) {
  if (const uint64_t id = profile_program_id(name); id != 0) return id;
  auto same = [&](std::string_view full) {
    return full.size() > name.size() && full.starts_with(name) && full[name.size()] == '(' &&
           profile_program_id(full) != 0;
  };
  for (const ProfileModuleProto& m : profile.module_protos) {
    if (same(m.name)) return profile_program_id(m.name);
  }
  for (const ProfilePlane& p : profile.planes) {
    for (const ProfileLine& l : p.lines) {
      if (l.name != "XLA Modules") continue;
      for (const ProfileEvent& e : l.events) {
        if (same(e.name)) return profile_program_id(e.name);
      }
    }
  }
  return 0;
}

}  // namespace

absl::StatusOr<ProfileJoin> join_profile(const Module& module, const DeviceTarget& device,
                                         const Profile& profile,
                                         const ProfileJoinOptions& options) {
  absl::StatusOr<Prediction> prediction = predict_step_time(module, device, options.predict);
  if (!prediction.ok()) return prediction.status();
  absl::StatusOr<ProfileComparison> comparison =
      compare_with_profile(module, *prediction, profile, options.profile);
  if (!comparison.ok()) return comparison.status();
  return ProfileJoin{*std::move(prediction), *std::move(comparison)};
}

absl::StatusOr<ProfileXSpaces> write_profile_xspaces(
    const Module& module, const ProfileJoin& joined, const DeviceSpec& device,
    const Profile& profile, std::string_view log_dir, XSpaceOptions options,
    absl::Span<const std::string> inputs) {
  namespace fs = std::filesystem;
  if (absl::Status s = check_xspace_log_dir(log_dir); !s.ok()) return s;
  if (profile.format != "xplane") {
    return absl::InvalidArgumentError(absl::StrCat(
        "--xspace: the profile '", profile.origin, "' is a trace JSON, which XProf does not open; ",
        "give the .xplane.pb that jax.profiler.trace writes beside it, or write the prediction "
        "alone with `hloroof predict FILE --device D --xspace LOG_DIR`"));
  }
  const fs::path origin(profile.origin);
  std::string host = origin.filename().string();
  constexpr std::string_view kSuffix = ".xplane.pb";
  if (host.ends_with(kSuffix)) host.resize(host.size() - kSuffix.size());
  // The run's own folder name when the file lies in a log directory (.../plugins/profile/RUN/).
  const fs::path run_folder = origin.parent_path();
  const bool in_log_dir = run_folder.parent_path().filename() == "profile" &&
                          run_folder.parent_path().parent_path().filename() == "plugins";
  std::string run = "measured";
  if (in_log_dir && !run_folder.filename().empty()) {
    run = run_folder.filename().string();
    if (!run.starts_with("measured")) run = absl::StrCat("measured_", run);
  }
  const fs::path profile_dir = fs::path(std::string(log_dir)) / "plugins" / "profile";
  std::error_code ec;
  ProfileXSpaces out;
  out.measured_copied = !(in_log_dir && fs::equivalent(run_folder.parent_path(), profile_dir, ec));
  out.measured_path = origin.string();
  if (out.measured_copied) {
    if (absl::Status s = check_log_folder_file(log_dir, run, absl::StrCat(host, ".xplane.pb"),
                                               "the measured XSpace");
        !s.ok()) {
      return s;
    }
    const fs::path folder = profile_dir / run;
    fs::create_directories(folder, ec);
    if (ec) {
      return absl::InvalidArgumentError(
          absl::StrCat("cannot make the folder '", folder.string(), "': ", ec.message()));
    }
    std::ifstream in(origin, std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    if (!in) {
      return absl::InvalidArgumentError(
          absl::StrCat("cannot read the profile '", origin.string(), "' again to copy it"));
    }
    out.measured_path = (folder / absl::StrCat(host, ".xplane.pb")).string();
    if (absl::Status s =
            write_output_file(out.measured_path, bytes.str(), "the measured XSpace", inputs);
        !s.ok()) {
      return s;
    }
  }
  if (options.program_id == 0) {
    const ProfileComparison& c = joined.comparison;
    options.program_id = measured_program_id(profile, c.module.empty() ? module.name() : c.module);
  }
  absl::StatusOr<XSpaceFile> file =
      write_xspace(module, joined.prediction, device, log_dir, options);
  if (!file.ok()) return file.status();
  out.predicted = *std::move(file);
  return out;
}

}  // namespace hloroof
