// Which measurements a device's expected times read is data: each spec's `measured_on` names
// the device every set was measured on (data/hardware/README.md). A GPU that is not built in is
// one JSON file (tests/data/devices/gb300.json) and predicts with what it names.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "hloroof/device.h"
#include "nlohmann/json.hpp"
#include "predict_test_util.h"
#include "require_ok.h"

namespace hloroof {
namespace {

using Catch::Matchers::Contains;

const std::string kGb300 = std::string(HLOROOF_SOURCE_DIR) + "/tests/data/devices/gb300.json";

constexpr std::string_view kDot = R"(HloModule m
ENTRY e {
  a = bf16[4096,4096] parameter(0)
  b = bf16[4096,4096] parameter(1)
  ROOT d = bf16[4096,4096] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})";

constexpr std::string_view kAllReduce = R"(HloModule m, num_partitions=8
add { x = f32[] parameter(0)  y = f32[] parameter(1)  ROOT s = f32[] add(x, y) }
ENTRY e {
  p = f32[1048576] parameter(0)
  ROOT ar = f32[1048576] all-reduce(p), channel_id=1, replica_groups={{0,1,2,3,4,5,6,7}},
    use_global_device_ids=true, to_apply=add
})";

constexpr std::string_view kSine = R"(HloModule m
ENTRY e {
  x = f32[16777216] parameter(0)
  ROOT s = f32[16777216] sine(x)
})";

DeviceSpec load(std::string_view name_or_path) {
  absl::StatusOr<DeviceSpec> d = device(name_or_path);
  INFO(d.status().ToString());
  REQUIRE_OK(d);
  return *std::move(d);
}

// `name`'s built-in file as JSON, for a copy to change.
nlohmann::json builtin_json(std::string_view name) {
  return nlohmann::json::parse(load(name).json);
}

DeviceSpec parse(const nlohmann::json& doc) {
  absl::StatusOr<DeviceSpec> d = parse_device_spec(doc.dump(), "copy.json");
  INFO(d.status().ToString());
  REQUIRE_OK(d);
  return *std::move(d);
}

bool same(const MeasuredOn& a, const MeasuredOn& b) {
  return a.gemm_tables == b.gemm_tables && a.collective_tables == b.collective_tables &&
         a.op_profiles == b.op_profiles && a.kernel_floor == b.kernel_floor &&
         a.hbm_fraction == b.hbm_fraction && a.host_link == b.host_link &&
         a.tpu_fits == b.tpu_fits;
}

TEST_CASE("a GPU that is not built in is one file, and predicts with what it borrows") {
  const DeviceSpec gb300 = load(kGb300);
  CHECK(gb300.name == "gb300");
  CHECK(gb300.measured_on.gemm_tables == "b200");
  CHECK(gb300.measured_on.collective_tables == "gb300");
  CHECK(gb300.measured_on.op_profiles == "gb300");

  // GEMMs: B200's table, read relative to each device's bf16 peak (2.5e15 here, 2.25e15 on the
  // B200): the GEMM's time past the 1 us launch is the B200's x 2.25 / 2.5.
  auto on_gb300 = testing::predict(kDot, gb300);
  auto on_b200 = testing::predict(kDot, "b200");
  CHECK(on_gb300.op("d").model() == "gemm table b200 (measured, borrowed)");
  CHECK_THAT(std::string(on_gb300.op("d").explanation()),
             Contains("1 GEMM from the measured b200 table"));
  CHECK(on_gb300.assumes(
      "gb300 bf16 GEMMs: efficiency borrowed from the measured b200 bf16 table, relative to "
      "each device's own peak"));
  CHECK(on_b200.op("d").model() == "gemm table b200 (measured, interpolated)");
  CHECK(on_gb300.op("d").time_s - 1e-6 ==
        Approx((on_b200.op("d").time_s - 1e-6) * 2.25e15 / 2.5e15).epsilon(1e-9));

  // Collectives: its own measured tables (data/measured/collectives.tsv has GB300 rows).
  auto ar = testing::predict(kAllReduce, testing::on(gb300, "1x8"));
  CHECK(ar.op("ar").model() == "collective fit gb300 (measured, fitted)");

  // Elementwise ops: its own op profile, sine f32 376 cycles over 8 for an add: 47 issue slots
  // per element, 16777216 x 47 / (8e13 / 2 lane slots/s) = 19.71 us + 1 us launch, above its
  // HBM term, 134217728 B at 0.87 of 8e12 B/s = 19.28 us (the share borrowed from the H100).
  auto sine = testing::predict(kSine, gb300);
  CHECK(sine.op("s").model() == "elementwise issue (op profiles gb300, measured)");
  CHECK(sine.op("s").time_s == Approx(16777216 * (376.0 / 8) / 4e13 + 1e-6).epsilon(1e-6));
  CHECK_THAT(std::string(sine.op("s").explanation()),
             Contains("HBM at 0.87 of its bandwidth (measured on h100, borrowed)"));
}

TEST_CASE("what a device borrows is read from its file, not from its name") {
  // The H200 borrows the H100's GEMM tables; a copy that names the B200's instead reads those,
  // and a copy that names none has the roofline for its GEMM.
  nlohmann::json doc = builtin_json("h200");
  doc["measured_on"]["gemm_tables"] = "b200";
  auto b200_tables = testing::predict(kDot, parse(doc));
  CHECK(b200_tables.op("d").model() == "gemm table b200 (measured, borrowed)");
  doc["measured_on"].erase("gemm_tables");
  auto none = testing::predict(kDot, parse(doc));
  CHECK(none.op("d").model().find("gemm table") == std::string::npos);
  // The small-kernel floor: the H200's own; named from the H100, borrowed.
  CHECK(load("h200").measured_on.kernel_floor == "h200");
  CHECK(load("b200").measured_on.kernel_floor == "h100");
  // The MI300X: its own floor and HBM share, from a profile of it (gpu_expected_time.cc).
  CHECK(load("mi300x").measured_on.kernel_floor == "mi300x");
  CHECK(load("mi300x").measured_on.hbm_fraction == "mi300x");
  // The MI325X (the MI300X's dies, HBM3E) borrows both: none of its kernels is measured.
  CHECK(load("mi325x").measured_on.kernel_floor == "mi300x");
  CHECK(load("mi325x").measured_on.hbm_fraction == "mi300x");
  // TPUs: the fits measured on tpu7x, the host link's share on the v6e.
  CHECK(load("tpu_v5e").measured_on.tpu_fits == "tpu7x");
  CHECK(load("tpu_v5e").measured_on.host_link == "tpu_v6e");
  CHECK(load("tpu_v5e").measured_on.gemm_tables.empty());
}

TEST_CASE("every built-in device names where its measurements come from") {
  for (const std::string& name : builtin_device_names()) {
    INFO(name);
    const MeasuredOn m = load(name).measured_on;
    if (load(name).kind == DeviceKind::kTpu) {
      CHECK(m.tpu_fits == "tpu7x");
    } else {
      CHECK(!m.gemm_tables.empty());
      // The H100's share, or for AMD GPUs the one measured on an MI300X.
      const bool amd = load(name).gpu->vendor == GpuVendor::kAmd;
      CHECK(m.hbm_fraction == (amd ? "mi300x" : "h100"));
    }
  }
}

TEST_CASE("a file without measured_on takes its base's, else the closest built-in device's") {
  // Closest: the same kind and maker, the highest compute capability not above its own, the
  // first by name among equals. An H200 copy (9.0) takes the H100's, not the H200's own floor.
  nlohmann::json h200 = builtin_json("h200");
  h200.erase("measured_on");
  h200["name"] = "h200_copy";
  CHECK(same(parse(h200).measured_on, load("h100").measured_on));
  h200["base"] = "h200";
  CHECK(same(parse(h200).measured_on, load("h200").measured_on));
  // Compute capability 12: the B200's (10.0, before gb200 by name).
  nlohmann::json next = builtin_json("gb200");
  next.erase("measured_on");
  next["name"] = "sm120";
  next["interconnect"]["compute_capability"] = "12.0";
  CHECK(same(parse(next).measured_on, load("b200").measured_on));
  // Compute capability 7.0: no built-in GPU at or below it, nothing measured applies.
  next["interconnect"]["compute_capability"] = "7.0";
  CHECK(same(parse(next).measured_on, MeasuredOn{}));
  // An AMD GPU takes the MI300X's; a TPU the first TPU's (all TPUs name the same).
  nlohmann::json amd = builtin_json("mi300x");
  amd.erase("measured_on");
  amd["name"] = "amd_copy";
  CHECK(same(parse(amd).measured_on, load("mi300x").measured_on));
  nlohmann::json tpu = builtin_json("tpu_v5e");
  tpu.erase("measured_on");
  tpu["name"] = "tpu_copy";
  CHECK(same(parse(tpu).measured_on, load("tpu_v5e").measured_on));
}

TEST_CASE("measured_on: errors name the field") {
  nlohmann::json doc = builtin_json("h100");
  doc["measured_on"]["gemm_table"] = "h100";
  absl::StatusOr<DeviceSpec> typo = parse_device_spec(doc.dump(), "my.json");
  REQUIRE_FALSE(typo.ok());
  CHECK_THAT(std::string(typo.status().message()),
             Contains("my.json: field 'measured_on.gemm_table': unknown field"));
  doc = builtin_json("h100");
  doc["measured_on"]["gemm_tables"] = "h900";
  absl::StatusOr<DeviceSpec> unknown = parse_device_spec(doc.dump(), "my.json");
  REQUIRE_FALSE(unknown.ok());
  CHECK_THAT(std::string(unknown.status().message()),
             Contains("field 'measured_on.gemm_tables': expected 'h100' or the name of a "
                      "built-in device"));
  CHECK_THAT(std::string(unknown.status().message()), Contains("got 'h900'"));
  doc["measured_on"]["gemm_tables"] = 3;
  CHECK_FALSE(parse_device_spec(doc.dump(), "my.json").ok());
  doc["measured_on"] = "h100";
  absl::StatusOr<DeviceSpec> not_object = parse_device_spec(doc.dump(), "my.json");
  REQUIRE_FALSE(not_object.ok());
  CHECK_THAT(std::string(not_object.status().message()),
             Contains("field 'measured_on': expected an object"));
}

TEST_CASE("lib/predict compares no device names: provenance is the specs' measured_on") {
  // A string literal naming a built-in device next to == or != (either side).
  std::string names;
  for (const std::string& name : builtin_device_names()) {
    names += (names.empty() ? "" : "|") + name;
  }
  const std::regex comparison("(==|!=)\\s*\"(" + names + ")\"|\"(" + names + ")\"\\s*(==|!=)");
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(
           std::filesystem::path(HLOROOF_SOURCE_DIR) / "lib" / "predict")) {
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    INFO(entry.path().string());
    CHECK_FALSE(std::regex_search(text.str(), comparison));
    ++files;
  }
  CHECK(files > 10);
}

}  // namespace
}  // namespace hloroof
