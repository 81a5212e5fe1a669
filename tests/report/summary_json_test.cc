// The JSON of the describing commands (devices, parse, shape), written in lib/report for the
// command and Python alike: documents checked field by field against figures derived by hand.
#include <catch2/catch.hpp>
#include <string>

#include "hloroof/device.h"
#include "hloroof/hlo_text.h"
#include "hloroof/shape_text.h"
#include "hloroof/summary_json.h"
#include "nlohmann/json.hpp"
#include "require_ok.h"

namespace hloroof {
namespace {

using Json = nlohmann::ordered_json;

constexpr std::string_view kModule = R"(HloModule m

ENTRY %main (p: f32[4]) -> f32[4] {
  %p = f32[4] parameter(0)
  %n = f32[4] negate(%p)
  ROOT %a = f32[4] add(%p, %n)
}
)";

TEST_CASE("parse_summary_to_json: one line, the module's counts by opcode") {
  absl::StatusOr<Module> m = parse_module(kModule);
  REQUIRE_OK(m);
  const std::string text = parse_summary_to_json("m.hlo", *m, {"a warning"});
  // One line, then the newline.
  CHECK(text.find('\n') == text.size() - 1);
  const Json j = Json::parse(text);
  CHECK(j["file"] == "m.hlo");
  CHECK(j["ok"] == true);
  CHECK(j["module"] == "m");
  CHECK(j["computations"] == 1);
  CHECK(j["instructions"] == 3);  // p, n, a
  CHECK(j["entry_marked"] == true);
  CHECK(j["warnings"] == Json::array({"a warning"}));
  // Keys sorted by opcode name.
  CHECK(j["opcodes"].dump() == R"({"add":1,"negate":1,"parameter":1})");
}

TEST_CASE("parse_failure_to_json: where the parse error is, when it says") {
  const std::string bad = "HloModule bad\n\nENTRY %main {\n  %p = f32[4] parameter(0)\n"
                          "  ROOT %r = f32[4] frobnicate(%p)\n}\n";
  absl::StatusOr<Module> m = parse_module(bad);
  REQUIRE(!m.ok());
  const Json j = Json::parse(parse_failure_to_json("bad.hlo", m.status()));
  CHECK(j["file"] == "bad.hlo");
  CHECK(j["ok"] == false);
  CHECK(j["error"]["line"] == 5);  // the line of `frobnicate`
  CHECK(j["error"].contains("column"));
  CHECK(!j["error"]["message"].get<std::string>().empty());

  // A status that is not a parse error has a message only.
  const Json other =
      Json::parse(parse_failure_to_json("x.hlo", absl::NotFoundError("x.hlo: no such file")));
  CHECK(other["error"].dump() == R"({"message":"x.hlo: no such file"})");
}

TEST_CASE("shape_to_json: sizes and memory space") {
  absl::StatusOr<Shape> s = parse_shape("f32[8,128]{1,0}");
  REQUIRE_OK(s);
  absl::StatusOr<std::string> text = shape_to_json(*s);
  REQUIRE_OK(text);
  const Json j = Json::parse(*text);
  // 8 x 128 = 1024 elements of 4 bytes = 4096 bytes, no tiles: nothing padded.
  CHECK(j["elements"] == 1024);
  CHECK(j["logical_bytes"] == 4096);
  CHECK(j["padded_bytes"] == 4096);
  CHECK(j["padding_factor"] == 1.0);
  CHECK(j["memory_space"] == 0);
  CHECK(j["memory_space_name"] == "device (HBM)");
  CHECK(j["padded_bytes_by_memory_space"]["device"] == 4096);

  // Leaves in two memory spaces: mixed.
  absl::StatusOr<Shape> mixed = parse_shape("(f32[4]{0}, s8[1024]{0:S(5)})");
  REQUIRE_OK(mixed);
  CHECK(common_memory_space(*mixed) == -1);
  const Json m = Json::parse(*shape_to_json(*mixed));
  CHECK(m["memory_space_name"] == "mixed");
  // 4 x 4 bytes on the device, 1024 x 1 byte on the host (S(5)).
  CHECK(m["padded_bytes_by_memory_space"]["device"] == 16);
  CHECK(m["padded_bytes_by_memory_space"]["host"] == 1024);
}

TEST_CASE("device summaries: the headline figures and the interconnect in words") {
  absl::StatusOr<DeviceSpec> v5e = device("tpu_v5e");
  absl::StatusOr<DeviceSpec> h100 = device("h100");
  REQUIRE_OK(v5e);
  REQUIRE_OK(h100);
  absl::StatusOr<std::string> text = device_summaries_to_json({*v5e, *h100});
  REQUIRE_OK(text);
  const Json j = Json::parse(*text);
  REQUIRE(j.size() == 2);
  CHECK(j[0]["name"] == "tpu_v5e");
  CHECK(j[0]["bf16_peak_flop_per_s"] == 1.97e14);  // data/hardware/tpu_v5e.json
  CHECK(j[0]["interconnect"]["type"] == "ici_torus");
  CHECK(j[0]["interconnect"]["wraparound"] == "wraps on axes of 16");
  CHECK(j[1]["interconnect"]["type"] == "nvlink");

  // The spec itself reads back as the same device.
  absl::StatusOr<std::string> spec = device_spec_to_json(*v5e);
  REQUIRE_OK(spec);
  absl::StatusOr<DeviceSpec> again = parse_device_spec(*spec, "again");
  REQUIRE_OK(again);
  CHECK(again->hbm_bandwidth == v5e->hbm_bandwidth);
}

TEST_CASE("describe_wraparound: each rule in words") {
  Wraparound w;
  CHECK(describe_wraparound(w) == "no wraparound");
  w.rule = Wraparound::Rule::kAxisSizes;
  w.axis_sizes = {8, 16};
  CHECK(describe_wraparound(w) == "wraps on axes of 8 or 16");
  w.rule = Wraparound::Rule::kWholeCubes;
  w.cube = 4;
  CHECK(describe_wraparound(w) == "wraps on whole 4x4x4 cubes");
}

}  // namespace
}  // namespace hloroof
