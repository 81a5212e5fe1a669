// Device specs: every built-in file loads and carries its sources; figures match
// data/hardware/*.json; user files load; bad files get errors naming file and field.
#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <string>

#include "hloroof/device.h"
#include "nlohmann/json.hpp"
#include "require_ok.h"

namespace hloroof {
namespace {

using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

DeviceSpec load(std::string_view name) {
  absl::StatusOr<DeviceSpec> d = device(name);
  INFO(name << ": " << d.status().ToString());
  REQUIRE_OK(d);
  return *std::move(d);
}

TEST_CASE("every built-in device spec loads and cites a source for every figure") {
  const std::vector<std::string> names = builtin_device_names();
  for (const char* expected : {"tpu_v2", "tpu_v3", "tpu_v4", "tpu_v5e", "tpu_v5p", "tpu_v6e",
                               "tpu7x", "a100", "h100", "h200", "b200", "gb200", "mi300x",
                               "mi325x"}) {
    CHECK(std::find(names.begin(), names.end(), expected) != names.end());
  }
  REQUIRE(std::is_sorted(names.begin(), names.end()));
  for (const std::string& name : names) {
    DeviceSpec d = load(name);
    INFO(name);
    CHECK(d.name == name);  // the file name is the device name
    CHECK(d.origin == "built-in " + name + ".json");
    CHECK(!d.display_name.empty());
    CHECK(!d.device_note.empty());
    CHECK(d.matrix_flops_per_s.count("bf16") == 1);
    CHECK(d.hbm_bandwidth > 0);
    CHECK(d.hbm_capacity_bytes > 0);
    CHECK((d.kind == DeviceKind::kTpu ? d.torus.has_value() : d.gpu.has_value()));
    REQUIRE(!d.figures.empty());
    for (const DeviceFigure& f : d.figures) {
      INFO(f.path);
      CHECK(!f.unit.empty());
      CHECK(!f.source.empty());
      // Figures not backed by a source tag of docs/sources.md must say they are unverified.
      if (f.source == "derived" || f.source == "assumed" || f.source == "placeholder" ||
          f.source == "third-party") {
        CHECK(!f.verified);
      }
    }
  }
}

TEST_CASE("built-in figures are those of data/hardware/*.json, per JAX device") {
  DeviceSpec v5e = load("tpu_v5e");
  CHECK(v5e.matrix_peak(PrimitiveType::kBF16) == 1.97e14);
  CHECK(v5e.matrix_peak(PrimitiveType::kS8) == 3.94e14);
  CHECK(v5e.matrix_peak(PrimitiveType::kU8) == 3.94e14);
  CHECK(!v5e.matrix_peak(PrimitiveType::kF8E4M3FN).has_value());  // v5e has no fp8
  CHECK(v5e.hbm_bandwidth == 8.19e11);
  CHECK(v5e.hbm_capacity_bytes == 16e9);
  CHECK(v5e.on_chip_capacity_bytes == 128.0 * 1024 * 1024);  // "128 MiB" in the file
  CHECK(v5e.torus->link_bandwidth == 4.5e10);
  CHECK(v5e.torus->links_per_chip == 4);
  CHECK(v5e.torus->dcn_bandwidth_per_chip == 3.125e9);
  CHECK(v5e.torus->pod_chips == 256);  // 16 x 16
  CHECK(v5e.default_tiles.at(16).size() == 2);
  CHECK(v5e.default_tiles.at(16)[0].dims == Tile{{8, 128}}.dims);

  DeviceSpec v5p = load("tpu_v5p");
  CHECK(v5p.hbm_capacity_bytes == 95.0 * (1 << 30));  // "95 GiB" (GC-v5p)
  CHECK(v5p.torus->rank == 3);
  CHECK(v5p.torus->pod_chips == 16 * 20 * 28);

  // TPU7x: one JAX device is one TensorCore, half of GC-tpu7x's chip figures (2.1 notes).
  DeviceSpec tpu7x = load("tpu7x");
  CHECK(tpu7x.matrix_peak(PrimitiveType::kBF16) == 2.307e15 / 2);
  CHECK(tpu7x.matrix_peak(PrimitiveType::kF8E4M3FN) == 4.614e15 / 2);
  CHECK(tpu7x.hbm_capacity_bytes == 96.0 * (1 << 30));
  CHECK(tpu7x.hbm_bandwidth == 7.38e12 / 2);
  CHECK(tpu7x.torus->devices_per_chip == 2);
  CHECK(!tpu7x.figure("interconnect.link_bandwidth")->verified);

  // v3: 2 TensorCores per chip, each a JAX device; SB-tpu's chip figures halved.
  DeviceSpec v3 = load("tpu_v3");
  CHECK(v3.matrix_peak(PrimitiveType::kBF16) == 1.4e14 / 2);
  CHECK(v3.hbm_bandwidth == 9e11 / 2);

  // v2: 23e12 per core (worked example R3).
  CHECK(load("tpu_v2").matrix_peak(PrimitiveType::kBF16) == 2.3e13);

  DeviceSpec h100 = load("h100");
  CHECK(h100.matrix_peak(PrimitiveType::kBF16) == 9.89e14);
  CHECK(h100.matrix_peak(PrimitiveType::kF8E5M2) == 1.979e15);
  CHECK(h100.hbm_bandwidth == 3.35e12);
  CHECK(h100.gpu->nvlink_bandwidth == 4.5e11);
  CHECK(h100.gpu->nvlink_domain_size == 8);
  CHECK(h100.gpu->compute_capability_major == 9);
  CHECK(h100.gpu->xla_sol->nic_speed == 25e9);
  CHECK(h100.gpu->xla_sol->chunk_size_bytes == 4.0 * 1024 * 1024);
  CHECK(h100.per_op_overhead_s == 1e-6);
  CHECK(load("gb200").gpu->nvlink_domain_size == 72);
  CHECK(load("b200").gpu->xla_sol->chunk_prep_s == 2e-6);
  CHECK(h100.gpu->vendor == GpuVendor::kNvidia);
  // The MI300X: per-CU rates per clock of the CDNA 3 white paper x 304 CUs x 2.1 GHz (bf16
  // 2048, fp8 4096, f32 256), its xGMI links 7 x 64 GB/s one way.
  DeviceSpec mi300x = load("mi300x");
  CHECK(mi300x.gpu->vendor == GpuVendor::kAmd);
  CHECK(*mi300x.matrix_peak(PrimitiveType::kBF16) == Approx(2048.0 * 304 * 2.1e9).epsilon(1e-4));
  CHECK(*mi300x.matrix_peak(PrimitiveType::kF8E4M3FN) ==
        Approx(4096.0 * 304 * 2.1e9).epsilon(1e-4));
  // 163.43 TFLOP/s, which the data sheet rounds to 163.4.
  CHECK(mi300x.vector_flops_per_s == Approx(256.0 * 304 * 2.1e9).epsilon(5e-4));
  CHECK(mi300x.gpu->nvlink_bandwidth == 7 * 64e9);
  CHECK(mi300x.gpu->compute_capability_major == 9);
  CHECK(mi300x.gpu->compute_capability_minor == 4);
  CHECK_FALSE(mi300x.gpu->xla_sol.has_value());
  // The MI325X: the MI300X's compute dies and links, 256 GB of HBM3E at 6 TB/s, and its own
  // plateau, AMD's measured bf16 GEMM (843 TFLOP/s) over the 1307.4 TFLOP/s peak: 0.6448.
  DeviceSpec mi325x = load("mi325x");
  CHECK(mi325x.gpu->vendor == GpuVendor::kAmd);
  CHECK(*mi325x.matrix_peak(PrimitiveType::kBF16) == *mi300x.matrix_peak(PrimitiveType::kBF16));
  CHECK(mi325x.vector_flops_per_s == mi300x.vector_flops_per_s);
  CHECK(mi325x.hbm_bandwidth == 6e12);
  CHECK(mi325x.hbm_capacity_bytes == 2.56e11);
  REQUIRE(mi325x.gemm_plateau.has_value());
  CHECK(*mi325x.gemm_plateau == Approx(843 / 1307.4).epsilon(1e-3));
  CHECK(mi325x.gpu->nvlink_bandwidth == mi300x.gpu->nvlink_bandwidth);
  CHECK(mi325x.gpu->compute_capability_minor == 4);
}

TEST_CASE("figures reproduce the scaling book's critical intensities and batch sizes") {
  // worked example R2: C / W_hbm = 240 (v5e; 1.97e14 / 8.2e11 in the book), 295 (H100),
  // 281 (B200).
  auto intensity = [](const DeviceSpec& d) {
    return *d.matrix_peak(PrimitiveType::kBF16) / d.hbm_bandwidth;
  };
  CHECK(intensity(load("tpu_v5e")) == Approx(240).epsilon(0.005));  // 240.5
  CHECK(intensity(load("h100")) == Approx(295).epsilon(0.002));     // 295.2
  CHECK(intensity(load("b200")) == Approx(281).epsilon(0.002));     // 281.25
  // 5.4 S2: v5p data parallelism is compute bound past C / W_bi = 4.59e14 / 1.8e11 = 2550
  // tokens per chip, 850 with three axes.
  DeviceSpec v5p = load("tpu_v5p");
  const double w_bi = 2 * v5p.torus->link_bandwidth;
  CHECK(*v5p.matrix_peak(PrimitiveType::kBF16) / w_bi == Approx(2550));
  CHECK(*v5p.matrix_peak(PrimitiveType::kBF16) / (3 * w_bi) == Approx(850));
  // 5.4 S3: H100 990e12 / 450e9 = 2200 in a node, / 400e9 = 2475 across nodes (node egress =
  // 8 GPUs x 50 GB/s); 9.89e14 gives 2197.8 and 2472.5.
  DeviceSpec h100 = load("h100");
  const double c = *h100.matrix_peak(PrimitiveType::kBF16);
  CHECK(c / h100.gpu->nvlink_bandwidth == Approx(2200).epsilon(0.002));
  CHECK(c / (8 * h100.gpu->scale_out_bandwidth) == Approx(2475).epsilon(0.002));
}

TEST_CASE("devices are found by alias, case-insensitively, and unknown names are listed") {
  CHECK(load("v5e").name == "tpu_v5e");
  CHECK(load("TPU_V5E").name == "tpu_v5e");
  CHECK(load("Ironwood").name == "tpu7x");
  absl::StatusOr<DeviceSpec> missing = device("tpu_v9");
  REQUIRE(!missing.ok());
  CHECK(missing.status().code() == absl::StatusCode::kNotFound);
  CHECK_THAT(std::string(missing.status().message()),
             Contains("unknown device 'tpu_v9'") && Contains("tpu_v5e") && Contains("h100"));
}

TEST_CASE("matrix classes group element types as the spec files key them") {
  CHECK(matrix_class(PrimitiveType::kBF16) == "bf16");
  CHECK(matrix_class(PrimitiveType::kS4) == "int4");
  CHECK(matrix_class(PrimitiveType::kF8E4M3B11FNUZ) == "fp8");
  CHECK(matrix_class(PrimitiveType::kF4E2M1FN) == "fp4");
  CHECK(matrix_class(PrimitiveType::kS32).empty());
  CHECK(matrix_class(PrimitiveType::kPred).empty());
}

TEST_CASE("wraparound rules: v5e only on axes of 16, v4/v5p only on whole cubes") {
  const Wraparound v5e = load("tpu_v5e").torus->wraparound;
  CHECK(v5e.wraps(std::vector<int64_t>{16, 16}, 0));
  CHECK(v5e.wraps(std::vector<int64_t>{8, 16}, 1));
  CHECK(!v5e.wraps(std::vector<int64_t>{8, 16}, 0));
  CHECK(!v5e.wraps(std::vector<int64_t>{4, 4}, 0));
  const Wraparound v5p = load("tpu_v5p").torus->wraparound;
  CHECK(v5p.wraps(std::vector<int64_t>{4, 4, 4}, 2));
  CHECK(v5p.wraps(std::vector<int64_t>{4, 8, 12}, 0));
  CHECK(!v5p.wraps(std::vector<int64_t>{2, 4, 4}, 1));  // not whole cubes: no axis wraps
  CHECK(!v5p.wraps(std::vector<int64_t>{4, 4, 6}, 0));
  Wraparound every{Wraparound::Rule::kAxisSizes, {2, 3}, 4};
  CHECK(!every.wraps(std::vector<int64_t>{2}, 0));  // a ring of 2 has no second direction
  CHECK(every.wraps(std::vector<int64_t>{3}, 0));
  CHECK(!every.wraps(std::vector<int64_t>{3}, 1));  // no such axis
}

// A small valid spec that the error tests below break one field at a time.
nlohmann::json minimal_tpu() {
  auto fig = [](double v, const char* unit) {
    return nlohmann::json{{"value", v}, {"unit", unit}, {"source", "test"}};
  };
  return {
      {"schema_version", 1},
      {"name", "test_tpu"},
      {"kind", "tpu"},
      {"matrix_flops_per_s", {{"bf16", fig(1e14, "FLOP/s")}}},
      {"vector_flops_per_s", fig(1e12, "FLOP/s")},
      {"transcendentals_per_s", fig(1e11, "op/s")},
      {"hbm", {{"capacity", fig(16, "GB")}, {"bandwidth", fig(819, "GB/s")}}},
      {"per_op_overhead", fig(1, "us")},
      {"interconnect",
       {{"type", "ici_torus"},
        {"torus_rank", fig(2, "axes")},
        {"devices_per_chip", fig(1, "devices")},
        {"link_bandwidth", fig(100, "Gb/s")},
        {"links_per_chip", fig(4, "links")},
        {"wraparound", {{"rule", "axis_sizes"}, {"axis_sizes", {16}}}},
        {"hop_latency", fig(1, "us")}}},
  };
}

TEST_CASE("a minimal user spec parses, converting every unit to base units") {
  absl::StatusOr<DeviceSpec> d = parse_device_spec(minimal_tpu().dump(), "test.json");
  INFO(d.status().ToString());
  REQUIRE_OK(d);
  CHECK(d->display_name == "test_tpu");  // defaults to the name
  CHECK(d->hbm_capacity_bytes == 16e9);
  CHECK(d->hbm_bandwidth == Approx(8.19e11));
  CHECK(d->torus->link_bandwidth == 1.25e10);  // 100 Gb/s
  CHECK(d->per_op_overhead_s == Approx(1e-6));
  CHECK(d->matmul_efficiency == 1.0);
  CHECK(d->figure("hbm.bandwidth")->unit == "B/s");
  CHECK(!d->on_chip_bandwidth.has_value());
  CHECK(d->torus->pod_chips == 0);  // no max_slice: no bound
}

TEST_CASE("a spec file on disk loads by path") {
  const std::string path = "/tmp/hloroof_device_spec_test.json";
  std::ofstream(path) << minimal_tpu().dump(2);
  absl::StatusOr<DeviceSpec> d = device(path);
  std::remove(path.c_str());
  REQUIRE_OK(d);
  CHECK(d->name == "test_tpu");
  CHECK(d->origin == path);
  absl::StatusOr<DeviceSpec> missing = device("/nonexistent/dir/spec.json");
  REQUIRE(!missing.ok());
  CHECK_THAT(std::string(missing.status().message()),
             Contains("device spec: cannot read '/nonexistent/dir/spec.json'"));
  // Not a regular file, or larger than a spec could be (1 MiB): refused before reading.
  absl::StatusOr<DeviceSpec> directory = device("/");
  REQUIRE(!directory.ok());
  CHECK_THAT(std::string(directory.status().message()), Contains("it is a directory"));
  absl::StatusOr<DeviceSpec> zeros = device("/dev/zero");
  REQUIRE(!zeros.ok());
  CHECK_THAT(std::string(zeros.status().message()), Contains("it is a character device"));
  const std::string big = "/tmp/hloroof_device_spec_big.json";
  std::ofstream(big) << std::string((1 << 20) + 1, ' ');
  absl::StatusOr<DeviceSpec> too_big = device(big);
  std::remove(big.c_str());
  REQUIRE(!too_big.ok());
  CHECK_THAT(std::string(too_big.status().message()),
             Contains("1048577 bytes, over the input limit of 1048576 bytes"));
}

// Applies `edit` to the minimal spec and returns the parse error message.
template <typename Edit>
std::string error_after(Edit edit) {
  nlohmann::json j = minimal_tpu();
  edit(j);
  absl::StatusOr<DeviceSpec> d = parse_device_spec(j.dump(), "test.json");
  REQUIRE(!d.ok());
  CHECK(d.status().code() == absl::StatusCode::kInvalidArgument);
  return std::string(d.status().message());
}

TEST_CASE("bad spec files get errors naming the file and the field") {
  using J = nlohmann::json;
  CHECK_THAT(error_after([](J& j) { j["hbm"].erase("bandwidth"); }),
             StartsWith("test.json: field 'hbm.bandwidth': missing"));
  CHECK_THAT(error_after([](J& j) { j["hbm"]["bandwidth"]["value"] = -1; }),
             Contains("field 'hbm.bandwidth.value': must be positive"));
  CHECK_THAT(error_after([](J& j) { j["hbm"]["bandwidth"]["value"] = "fast"; }),
             Contains("field 'hbm.bandwidth.value': expected a number, got a string"));
  CHECK_THAT(
      error_after([](J& j) { j["hbm"]["bandwidth"]["unit"] = "GB"; }),
      Contains("field 'hbm.bandwidth.unit': 'GB' is not a unit of this field") && Contains("GB/s"));
  CHECK_THAT(error_after([](J& j) { j["hbm"]["bandwidth"].erase("unit"); }),
             Contains("field 'hbm.bandwidth.unit': missing"));
  CHECK_THAT(error_after([](J& j) { j["hbm"]["bandwidth"] = 8e11; }),
             Contains("field 'hbm.bandwidth': expected a figure"));
  CHECK_THAT(error_after([](J& j) { j["hbm_bandwith"] = 1; }),
             Contains("field 'hbm_bandwith': unknown field"));
  CHECK_THAT(error_after([](J& j) { j["per_op_overhead"]["value"] = -1; }),
             Contains("field 'per_op_overhead.value': must not be negative"));
  CHECK_THAT(error_after([](J& j) { j["interconnect"]["links_per_chip"]["value"] = 4.5; }),
             Contains("field 'interconnect.links_per_chip.value': expected a whole number"));
  CHECK_THAT(error_after([](J& j) { j["interconnect"]["links_per_chip"]["unit"] = "ports"; }),
             Contains("expected \"links\", got \"ports\""));
  CHECK_THAT(error_after([](J& j) { j["interconnect"]["devices_per_chip"]["value"] = 2; }),
             Contains("field 'interconnect.core_link_bandwidth': missing"));
  CHECK_THAT(error_after([](J& j) {
               j["interconnect"]["host_shape"] = {{"value", {2, 2, 1}}, {"unit", "chips"}};
             }),
             Contains("field 'interconnect.host_shape.value': expected 2 chip counts"));
  CHECK_THAT(error_after([](J& j) { j["interconnect"]["wraparound"]["rule"] = "sometimes"; }),
             Contains("field 'interconnect.wraparound.rule'"));
  CHECK_THAT(error_after([](J& j) { j["interconnect"]["type"] = "nvlink"; }),
             Contains("field 'interconnect.type': a tpu takes \"ici_torus\""));
  CHECK_THAT(error_after([](J& j) { j["kind"] = "npu"; }),
             Contains("field 'kind': expected \"tpu\" or \"gpu\""));
  CHECK_THAT(error_after([](J& j) { j["matrix_flops_per_s"]["bf32"] = j["vector_flops_per_s"]; }),
             Contains("field 'matrix_flops_per_s.bf32': unknown field"));
  CHECK_THAT(error_after([](J& j) { j["matrix_flops_per_s"] = J::object(); }),
             Contains("field 'matrix_flops_per_s': lists no element type"));
  CHECK_THAT(error_after([](J& j) { j["matmul_efficiency"] = 1.5; }),
             Contains("field 'matmul_efficiency': expected a fraction from 0.001 to 1"));
  // The smallest double above 0 passed once, and made every op's time infinite.
  CHECK_THAT(error_after([](J& j) { j["hbm_efficiency"] = 5e-324; }),
             Contains("field 'hbm_efficiency': expected a fraction from 0.001 to 1 (a thousandth "
                      "of the peak to all of it), got 4.94066e-324"));
  CHECK_THAT(error_after([](J& j) {
               j["gemm_plateau"] = {{"value", 0.7}, {"unit", "percent"}, {"source", "fitted"}};
             }),
             Contains("field 'gemm_plateau.unit': expected \"fraction\", got \"percent\""));
  CHECK_THAT(error_after([](J& j) {
               j["gemm_plateau"] = {{"value", 1.2}, {"unit", "fraction"}, {"source", "fitted"}};
             }),
             Contains("field 'gemm_plateau.value': expected a fraction from 0.001 to 1"));
  CHECK_THAT(error_after([](J& j) {
               j["sharded_compute_share"] = {
                   {"value", 1.2}, {"unit", "fraction"}, {"source", "fitted"}};
             }),
             Contains("field 'sharded_compute_share.value': expected a fraction from 0.001 to 1"));
  CHECK_THAT(error_after([](J& j) { j["schema_version"] = 2; }),
             Contains("field 'schema_version': expected 1"));
  CHECK_THAT(error_after([](J& j) { j["name"] = "tpu:v5e"; }), Contains("field 'name'"));
  // A base names a built-in device whose measured tables the file keeps: no other name.
  CHECK_THAT(error_after([](J& j) { j["base"] = "my_cluster"; }),
             Contains("field 'base': expected the name of a built-in device (") &&
                 Contains("tpu_v5e") && Contains("got 'my_cluster'"));
  CHECK_THAT(error_after([](J& j) { j["base"] = 5; }), Contains("field 'base'"));
  CHECK_THAT(error_after([](J& j) {
               j["default_tiles"] = {{"32", {{8, 0}}}};
             }),
             Contains("field 'default_tiles.32': expected tile sizes to be positive"));
  CHECK_THAT(error_after([](J& j) { j["hbm"]["bandwidth"]["verified"] = "no"; }),
             Contains("field 'hbm.bandwidth.verified': expected true or false"));
  CHECK_THAT(error_after([](J& j) { j = J::array(); }),
             Contains("test.json: expected an object, got an array"));
}

TEST_CASE("figures outside the physical sanity ranges are refused, naming the field") {
  using J = nlohmann::json;
  // data/hardware/README.md, "Sanity ranges": FLOP/s 1e6..1e19, B/s 1e6..1e16, B 1e3..1e15,
  // s 0..1.
  CHECK_THAT(error_after([](J& j) { j["matrix_flops_per_s"]["bf16"]["value"] = 1e308; }),
             Contains("field 'matrix_flops_per_s.bf16.value': must be from 1e+06 to 1e+19 "
                      "FLOP/s (physical sanity range), got 1e+308 FLOP/s"));
  CHECK_THAT(error_after([](J& j) { j["hbm"]["bandwidth"]["value"] = 1e-300; }),
             Contains("field 'hbm.bandwidth.value': must be from 1e+06 to 1e+16 B/s"));
  // 2e4 PB/s = 2e19 B/s: the unit is applied before the range is checked.
  CHECK_THAT(error_after([](J& j) {
               j["interconnect"]["link_bandwidth"] = {{"value", 2e5}, {"unit", "TB/s"}};
             }),
             Contains("field 'interconnect.link_bandwidth.value': must be from"));
  CHECK_THAT(error_after([](J& j) { j["hbm"]["capacity"]["value"] = 1e-7; }),  // 100 B
             Contains("field 'hbm.capacity.value': must be from 1000 to 1e+15 B"));
  CHECK_THAT(error_after([](J& j) {
               j["per_op_overhead"] = {{"value", 2}, {"unit", "s"}};
             }),
             Contains("field 'per_op_overhead.value': must be from 0 to 1 s"));
  // The edges themselves are accepted; zero stays valid for times.
  nlohmann::json edge = minimal_tpu();
  edge["matrix_flops_per_s"]["bf16"]["value"] = 1e19;
  edge["hbm"]["bandwidth"] = {{"value", 1e6}, {"unit", "B/s"}};
  edge["per_op_overhead"]["value"] = 0;
  CHECK(parse_device_spec(edge.dump(), "edge.json").ok());
}

TEST_CASE("numbers beyond a double are an error wherever they are, not an exception") {
  const std::string spec = minimal_tpu().dump();
  for (const std::string& number :
       {std::string("1e999"), std::string("-1e999"), std::string(400, '9')}) {
    INFO(number);
    // Under an unknown key and in place of a known figure's value.
    std::string text = spec;
    text.insert(1, "\"unknown\": " + number + ", ");
    absl::StatusOr<DeviceSpec> d = parse_device_spec(text, "big.json");
    REQUIRE(!d.ok());
    CHECK_THAT(std::string(d.status().message()),
               StartsWith("big.json: invalid JSON: a number is out of range (beyond a double)"));
    text = spec;
    const std::string value = "\"value\":819.0";
    const size_t at = text.find(value);
    REQUIRE(at != std::string::npos);
    text.replace(at, value.size(), "\"value\":" + number);
    CHECK(!parse_device_spec(text, "big.json").ok());
  }
  // Deep nesting under an unknown key: read without recursion, refused by name.
  std::string deep = spec;
  deep.insert(1, "\"x\": " + std::string(100000, '[') + std::string(100000, ']') + ", ");
  absl::StatusOr<DeviceSpec> d = parse_device_spec(deep, "deep.json");
  REQUIRE(!d.ok());
  CHECK_THAT(std::string(d.status().message()), Contains("field 'x': unknown field"));
}

TEST_CASE("malformed JSON is reported with its position") {
  absl::StatusOr<DeviceSpec> d = parse_device_spec("{\n  \"name\": tpu\n}", "broken.json");
  REQUIRE(!d.ok());
  CHECK_THAT(std::string(d.status().message()),
             StartsWith("broken.json: invalid JSON at line 2, column"));
  CHECK(!parse_device_spec("", "empty.json").ok());
}

TEST_CASE("GPU specs check their NVLink fields") {
  nlohmann::json j = nlohmann::json::parse(
      R"({"schema_version": 1, "name": "g", "kind": "gpu",
          "matrix_flops_per_s": {"bf16": {"value": 1, "unit": "PFLOP/s"}},
          "vector_flops_per_s": {"value": 60, "unit": "TFLOP/s"},
          "transcendentals_per_s": {"value": 4, "unit": "Top/s"},
          "hbm": {"capacity": {"value": 80, "unit": "GB"}, "bandwidth": {"value": 3.35, "unit": "TB/s"}},
          "per_op_overhead": {"value": 1, "unit": "us"},
          "interconnect": {"type": "nvlink",
            "nvlink_domain_size": {"value": 8, "unit": "GPUs"},
            "nvlink_bandwidth": {"value": 450, "unit": "GB/s"},
            "nvlink_links": {"value": 18, "unit": "links"},
            "scale_out_bandwidth": {"value": 400, "unit": "Gb/s"},
            "collective_launch_latency": {"value": 5, "unit": "us"},
            "compute_capability": "9.0"}})");
  absl::StatusOr<DeviceSpec> d = parse_device_spec(j.dump(), "gpu.json");
  INFO(d.status().ToString());
  REQUIRE_OK(d);
  CHECK(d->matrix_peak(PrimitiveType::kBF16) == 1e15);
  CHECK(d->gpu->scale_out_bandwidth == 5e10);
  CHECK(d->hbm_bandwidth == Approx(3.35e12));
  CHECK(!d->gpu->xla_sol.has_value());
  j["interconnect"]["compute_capability"] = "hopper";
  absl::StatusOr<DeviceSpec> bad = parse_device_spec(j.dump(), "gpu.json");
  REQUIRE(!bad.ok());
  CHECK_THAT(std::string(bad.status().message()),
             Contains("field 'interconnect.compute_capability': expected \"MAJOR.MINOR\""));
}

}  // namespace
}  // namespace hloroof

namespace hloroof {
namespace {

// Calls `visit(path, node)` for every value of `j`, depth first.
template <typename Visit>
void for_each_node(nlohmann::json& j, const std::string& path, Visit&& visit) {
  visit(path, j);
  if (j.is_object()) {
    for (auto& [key, child] : j.items()) for_each_node(child, path + "/" + key, visit);
  } else if (j.is_array()) {
    for (size_t i = 0; i < j.size(); ++i)
      for_each_node(j[i], path + "/" + std::to_string(i), visit);
  }
}

TEST_CASE("every mutation of a built-in spec parses or fails with an error naming the file") {
  // Removing any member, or replacing any value by a string, a negative number, null or an
  // empty object, must never crash: the result is a spec or an error that starts with the
  // file's name.
  const std::vector<nlohmann::json> replacements = {
      "x", -1, nullptr, nlohmann::json::object(), 1e308, nlohmann::json::array()};
  int mutations = 0, rejected = 0;
  for (const std::string& name : builtin_device_names()) {
    nlohmann::json original = nlohmann::json::parse(
        std::ifstream(std::string(HLOROOF_SOURCE_DIR) + "/data/hardware/" + name + ".json"));
    std::vector<std::string> paths;
    for_each_node(original, "", [&](const std::string& path, nlohmann::json&) {
      if (!path.empty()) paths.push_back(path);
    });
    for (const std::string& path : paths) {
      const nlohmann::json::json_pointer pointer(path);
      auto check = [&](const nlohmann::json& mutated) {
        ++mutations;
        absl::StatusOr<DeviceSpec> d = parse_device_spec(mutated.dump(), "m.json");
        if (!d.ok()) {
          ++rejected;
          INFO(path << ": " << d.status().message());
          CHECK_THAT(std::string(d.status().message()), StartsWith("m.json: "));
        }
      };
      for (const nlohmann::json& r : replacements) {
        nlohmann::json mutated = original;
        mutated[pointer] = r;
        check(mutated);
      }
      nlohmann::json removed = original;
      removed[pointer.parent_pointer()].is_object()
          ? void(removed[pointer.parent_pointer()].erase(pointer.back()))
          : void(removed[pointer.parent_pointer()].erase(std::stoul(pointer.back())));
      check(removed);
    }
  }
  CHECK(mutations > 5000);
  CHECK(rejected > mutations / 2);  // most mutations break a required, typed field
}

TEST_CASE("calibration fields: set or not, and checked") {
  absl::StatusOr<DeviceSpec> plain = parse_device_spec(minimal_tpu().dump(), "test.json");
  REQUIRE_OK(plain);
  CHECK(!plain->matmul_efficiency_set);
  CHECK(!plain->hbm_efficiency_set);
  CHECK(!plain->collective_bandwidth_efficiency);
  CHECK(!plain->collective_latency_s);
  nlohmann::json j = minimal_tpu();
  j["matmul_efficiency"] = 0.8;
  j["collective_bandwidth_efficiency"] = 0.75;
  j["collective_latency"] = {{"value", 20}, {"unit", "us"}, {"source", "my profile"}};
  absl::StatusOr<DeviceSpec> d = parse_device_spec(j.dump(), "test.json");
  INFO(d.status().ToString());
  REQUIRE_OK(d);
  CHECK(d->matmul_efficiency_set);
  CHECK(d->matmul_efficiency == 0.8);
  CHECK(!d->hbm_efficiency_set);
  CHECK(d->collective_bandwidth_efficiency == 0.75);
  CHECK(d->collective_latency_s == Approx(20e-6));
  CHECK_THAT(error_after([](nlohmann::json& e) { e["collective_bandwidth_efficiency"] = 0; }),
             Contains("field 'collective_bandwidth_efficiency': expected a fraction from 0.001"));
  // The built-in specs set none: their expected times come from the measured models.
  for (const std::string& name : builtin_device_names()) {
    absl::StatusOr<DeviceSpec> b = device(name);
    REQUIRE_OK(b);
    CHECK(!b->matmul_efficiency_set);
    CHECK(!b->hbm_efficiency_set);
  }
}

}  // namespace
}  // namespace hloroof
