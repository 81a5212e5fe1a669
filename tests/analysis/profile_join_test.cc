// join_profile gives the prediction and the join that predict_step_time and
// compare_with_profile give one after the other; write_profile_xspaces puts the measured XSpace
// and the predicted one side by side in one log directory.
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "examples.h"
#include "hloroof/analysis.h"
#include "hloroof/device_target.h"
#include "hloroof/hlo_text.h"
#include "hloroof/predict.h"
#include "hloroof/profile.h"
#include "hloroof/report.h"
#include "hloroof/xspace.h"
#include "require_ok.h"

namespace hloroof {
namespace {

namespace fs = std::filesystem;
using testing::read_file;

// A capture of tools/capture: an H100 running one GEMM, its module beside its profile.
struct Capture {
  Capture() {
    const fs::path dir = fs::path(HLOROOF_SOURCE_DIR) / "tests/data/h100/default/gemm";
    absl::StatusOr<Module> m = parse_module(read_file(dir / "module.hlo"));
    REQUIRE_OK(m);
    module = *std::move(m);
    absl::StatusOr<Profile> p = read_profile((dir / "profile").string());
    REQUIRE_OK(p);
    profile = *std::move(p);
    absl::StatusOr<DeviceTarget> t = resolve_device("h100", &module);
    REQUIRE_OK(t);
    target = *std::move(t);
  }

  Module module;
  Profile profile;
  DeviceTarget target;
};

TEST_CASE("join_profile: the prediction, then its join with the profile") {
  Capture c;
  const ProfileJoinOptions options = {.predict = {.timeline = true},
                                      .profile = {.device_index = 0}};
  absl::StatusOr<Prediction> prediction = predict_step_time(c.module, c.target, options.predict);
  REQUIRE_OK(prediction);
  absl::StatusOr<ProfileComparison> comparison =
      compare_with_profile(c.module, *prediction, c.profile, options.profile);
  REQUIRE_OK(comparison);
  REQUIRE(!comparison->ops.empty());

  absl::StatusOr<ProfileJoin> joined = join_profile(c.module, c.target, c.profile, options);
  REQUIRE_OK(joined);
  CHECK(prediction_to_json(joined->prediction) == prediction_to_json(*prediction));
  CHECK(profile_comparison_to_json(joined->comparison) == profile_comparison_to_json(*comparison));
  CHECK(joined->comparison.measured_step_s > 0);
}

TEST_CASE("join_profile: the prediction's error, else the join's") {
  Capture c;
  absl::StatusOr<Module> no_entry = parse_module(
      "HloModule m\n\nf {\n  p = f32[4] parameter(0)\n  ROOT n = f32[4] negate(p)\n}\n");
  REQUIRE_OK(no_entry);
  CHECK_FALSE(join_profile(*no_entry, c.target, c.profile).ok());
  // A module the profile never ran.
  CHECK_FALSE(
      join_profile(c.module, c.target, c.profile, {.profile = {.module_name = "jit_never_ran"}})
          .ok());
}

// A profile with one device plane that names `kind`, read from no folder (no meta.json).
Profile profile_of_kind(std::string kind) {
  Profile p;
  p.planes.push_back({.name = "/device:GPU:0", .device_type = std::move(kind)});
  return p;
}
constexpr char kNoFolder[] = "/nonexistent/hloroof/run/profile.xplane.pb";

TEST_CASE("resolve_profile_device: the device given, else the one the profile ran on") {
  Capture c;
  const std::string path =
      (fs::path(HLOROOF_SOURCE_DIR) / "tests/data/h100/default/gemm/profile").string();
  // None given: the capture's own (an H100), said first in the notes, as `--device` overrides.
  absl::StatusOr<ProfileDevice> own = resolve_profile_device("", c.profile, path, c.module);
  REQUIRE_OK(own);
  CHECK(own->target.spec.name == "h100");
  CHECK_FALSE(own->stand_in);
  CHECK(own->said.starts_with("device h100 from the profile, which ran on 'NVIDIA H100"));
  CHECK(own->said.ends_with("; --device overrides it"));
  REQUIRE(!own->target.diagnostics.notes.empty());
  CHECK(own->target.diagnostics.notes.front() == own->said);
  // Given: as resolve_device resolves it, nothing said of the profile; Python's option name.
  absl::StatusOr<ProfileDevice> given = resolve_profile_device(
      "h100:1x1", c.profile, path, c.module, {.device_option = "device="});
  REQUIRE_OK(given);
  CHECK(given->said.empty());
  REQUIRE(given->target.slice.has_value());
  CHECK(given->target.slice->shape == "1x1");
  // A device of the other platform is refused.
  absl::StatusOr<ProfileDevice> tpu = resolve_profile_device("tpu_v5e", c.profile, path, c.module);
  REQUIRE_FALSE(tpu.ok());
  CHECK_THAT(std::string(tpu.status().message()),
             Catch::Contains("a profile is joined with a prediction for its own device"));
  // A GPU with no built-in spec: the GPU default stands in, with the warning the comparison
  // carries.
  absl::StatusOr<ProfileDevice> other = resolve_profile_device(
      "", profile_of_kind("AMD Instinct MI250X"), kNoFolder, c.module,
      {.device_option = "device="});
  REQUIRE_OK(other);
  CHECK(other->target.spec.name == "h100");
  CHECK(other->stand_in);
  CHECK_THAT(other->said, Catch::Contains("which is no built-in device: h100 stands in for it"));
  CHECK(other->said.ends_with("device= names a device JSON that describes it"));
  // A capture that names no device of a known platform: one must be given (a usage error).
  for (const std::string kind : {"", "Some Accelerator"}) {
    absl::StatusOr<ProfileDevice> none =
        resolve_profile_device("", profile_of_kind(kind), kNoFolder, c.module);
    REQUIRE_FALSE(none.ok());
    CHECK(none.status().GetPayload(kCalibrationUsagePayload).has_value());
    CHECK_THAT(std::string(none.status().message()), Catch::StartsWith("--device is required"));
  }
}

TEST_CASE("write_profile_xspaces: the measured run copied, the predicted one beside it") {
  Capture c;
  absl::StatusOr<ProfileJoin> joined = join_profile(c.module, c.target, c.profile);
  REQUIRE_OK(joined);
  const fs::path dir = fs::temp_directory_path() / "hloroof_profile_join_test";
  fs::remove_all(dir);
  absl::StatusOr<ProfileXSpaces> written = write_profile_xspaces(
      c.module, *joined, c.target.spec, c.profile, (dir / "log").string(), {.start_time_ns = 1});
  REQUIRE_OK(written);
  CHECK(written->measured_copied);
  CHECK(fs::path(written->measured_path).parent_path().parent_path() ==
        dir / "log" / "plugins" / "profile");
  CHECK(read_file(written->measured_path) == read_file(c.profile.origin));

  // The predicted run names the module as the measured one does: by the program id of the
  // module the profile carries under the measured name ("jit_gemm(42)"), else (none here) by
  // the fingerprint of its name.
  CHECK(joined->comparison.module == "jit_gemm");
  uint64_t id = 0;
  SECTION("no program id") {}
  SECTION("a program id") {
    c.profile.module_protos.push_back({.name = "jit_gemm(42)", .hlo_proto = ""});
    id = 42;
  }
  absl::StatusOr<ProfileXSpaces> named = write_profile_xspaces(
      c.module, *joined, c.target.spec, c.profile, (dir / "named").string(), {.start_time_ns = 1});
  REQUIRE_OK(named);
  absl::StatusOr<XSpaceFile> alone =
      write_xspace(c.module, joined->prediction, c.target.spec, (dir / "alone").string(),
                   {.program_id = id, .start_time_ns = 1});
  REQUIRE_OK(alone);
  CHECK(read_file(named->predicted.path) == read_file(alone->path));

  // Read from the log directory it is written to, the measured run stays where it is.
  absl::StatusOr<Profile> again = read_profile(written->measured_path);
  REQUIRE_OK(again);
  absl::StatusOr<ProfileXSpaces> beside = write_profile_xspaces(
      c.module, *joined, c.target.spec, *again, (dir / "log").string(), {.start_time_ns = 1});
  REQUIRE_OK(beside);
  CHECK_FALSE(beside->measured_copied);
  CHECK(beside->measured_path == written->measured_path);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace hloroof
