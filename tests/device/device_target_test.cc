// resolve_device: the one rule from a device's name (and a module) to a device and slice.
#include "hloroof/device_target.h"

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_join.h"
#include "catch2/catch.hpp"
#include "hloroof/hlo_text.h"
#include "hloroof/platform.h"
#include "hloroof/predict.h"
#include "nlohmann/json.hpp"
#include "predict_on.h"
#include "require_ok.h"

namespace hloroof {
namespace {

using Catch::Contains;

// The shape of a target's slice; empty when it has none (inferred later).
std::string shape(const DeviceTarget& t) { return t.slice ? t.slice->shape : std::string(); }

std::string error_of(std::string_view text, const DeviceTargetOptions& options = {},
                     const Module* module = nullptr) {
  absl::StatusOr<DeviceTarget> t = resolve_device(text, module, options);
  if (t.ok()) return "(resolved to " + t->spec.name + ":" + shape(*t) + ")";
  return std::string(t.status().message());
}

bool any_contains(const std::vector<std::string>& lines, std::string_view text) {
  for (const std::string& line : lines) {
    if (line.find(text) != std::string::npos) return true;
  }
  return false;
}

TEST_CASE("every built-in name and alias resolves to its device, in any letter case") {
  for (const std::string& name : builtin_device_names()) {
    absl::StatusOr<DeviceSpec> spec = device(name);
    REQUIRE_OK(spec);
    std::vector<std::string> names = spec->aliases;
    names.push_back(name);
    for (const std::string& alias : names) {
      for (const std::string& text : {alias, absl::AsciiStrToUpper(alias)}) {
        INFO(text);
        absl::StatusOr<DeviceTarget> t = resolve_device(text, nullptr);
        REQUIRE_OK(t);
        CHECK(t->spec.name == name);
        CHECK(shape(*t).empty());
        CHECK(t->source == DeviceSource::kNamed);
        CHECK(t->diagnostics.notes.empty());
      }
    }
  }
}

TEST_CASE("JAX device kinds name their device") {
  // What jax.devices()[0].device_kind says (jax-ml/jax tests/pallas/tpu_info_test.py for the
  // TPUs; the CUDA device names for the GPUs).
  const std::pair<std::string, std::string> kinds[] = {
      {"TPU v2", "tpu_v2"},       {"TPU v3", "tpu_v3"},
      {"TPU v4", "tpu_v4"},       {"TPU v5 lite", "tpu_v5e"},
      {"TPU v5e", "tpu_v5e"},     {"TPU v5", "tpu_v5p"},
      {"TPU v5p", "tpu_v5p"},     {"TPU v6 lite", "tpu_v6e"},
      {"TPU v6e", "tpu_v6e"},     {"TPU7x", "tpu7x"},
      {"NVIDIA H100 80GB HBM3", "h100"}, {"NVIDIA A100-SXM4-80GB", "a100"},
      {"NVIDIA H200", "h200"},    {"NVIDIA B200", "b200"},
      {"NVIDIA GB200", "gb200"},  {"tpu v5 LITE", "tpu_v5e"},
      {"AMD Instinct MI300X", "mi300x"}, {"AMD Instinct MI300X VF", "mi300x"},
      {"AMD Instinct MI325X", "mi325x"},
  };
  for (const auto& [kind, name] : kinds) {
    INFO(kind);
    absl::StatusOr<DeviceTarget> t = resolve_device(kind, nullptr);
    REQUIRE_OK(t);
    CHECK(t->spec.name == name);
    CHECK(shape(*t).empty());
  }
  // With a slice, as any name.
  absl::StatusOr<DeviceTarget> sliced = resolve_device("TPU v5 lite:2x4", nullptr);
  REQUIRE_OK(sliced);
  CHECK(sliced->spec.name == "tpu_v5e");
  CHECK(shape(*sliced) == "2x4");
  // Another model of a built-in GPU has other figures: not taken for it, but suggested.
  CHECK_THAT(error_of("NVIDIA H100 PCIe"),
             Contains("no built-in device is 'NVIDIA H100 PCIe'; did you mean 'h100'?"));
  // ROCm profiles give only the GFX version and compute units, which an MI325X shares.
  CHECK_THAT(error_of("AMD GPU, compute capability 9.4, 304 compute units"),
             Contains("did you mean 'mi300x'?"));
  CHECK(device_for_kind("AMD GPU, compute capability 9.5, 256 compute units").device.empty());
  CHECK(device_for_kind("AMD GPU, compute capability 9.5, 256 compute units").platform == "gpu");
}

TEST_CASE("Cloud TPU accelerator types name the device and the slice") {
  // v5e and v6e count chips; v2, v3, v4 and v5p count TensorCores, two per chip
  // (cloud.google.com/tpu/docs/v5e, /v5p). The slice is the smallest of that many chips.
  const std::tuple<std::string, std::string, std::string> types[] = {
      {"v5litepod-1", "tpu_v5e", "1x1"},   {"v5litepod-4", "tpu_v5e", "2x2"},
      {"v5litepod-8", "tpu_v5e", "2x4"},   {"v5litepod-16", "tpu_v5e", "4x4"},
      {"v5litepod-256", "tpu_v5e", "16x16"}, {"v6e-8", "tpu_v6e", "2x4"},
      {"V6E-64", "tpu_v6e", "8x8"},
      // 8 TensorCores = 4 chips; 16 = 8; 128 = 64, one 4x4x4 cube.
      {"v5p-8", "tpu_v5p", "1x2x2"},       {"v5p-16", "tpu_v5p", "2x2x2"},
      {"v5p-128", "tpu_v5p", "4x4x4"},     {"v4-32", "tpu_v4", "2x2x4"},
      // v3 and v2 chips hold two JAX devices each: v3-8 is 4 chips, 8 devices.
      {"v3-8", "tpu_v3", "2x2"},           {"v2-32", "tpu_v2", "4x4"},
      // TPU7x counts TensorCores as v5p does: tpu7x-8 is 4 chips (topology 2x2x1), tpu7x-2
      // one chip (AI-Hypercomputer/xpk at 02b0c09, src/xpk/core/system_characteristics.py:
      // `tpu7x-{chips x 2}`, 2 TensorCores per chip); each chip holds two JAX devices.
      {"tpu7x-2", "tpu7x", "1x1x1"},       {"tpu7x-8", "tpu7x", "1x2x2"},
      {"tpu7x-16", "tpu7x", "2x2x2"},      {"TPU7X-128", "tpu7x", "4x4x4"},
  };
  for (const auto& [type, name, topology] : types) {
    INFO(type);
    absl::StatusOr<DeviceTarget> t = resolve_device(type, nullptr);
    REQUIRE_OK(t);
    CHECK(t->spec.name == name);
    CHECK(shape(*t) == topology);
    CHECK(any_contains(t->diagnostics.notes, "accelerator type"));
  }
  absl::StatusOr<DeviceTarget> v5p = resolve_device("v5p-8", nullptr);
  CHECK(any_contains(v5p->diagnostics.notes,
                     "the Cloud TPU accelerator type of 4 chips (its number counts TensorCores, "
                     "two per chip), tpu_v5p:1x2x2"));
  absl::StatusOr<DeviceTarget> ironwood = resolve_device("tpu7x-8", nullptr);
  REQUIRE_OK(ironwood);
  CHECK(any_contains(ironwood->diagnostics.notes,
                     "the Cloud TPU accelerator type of 4 chips (its number counts TensorCores, "
                     "two per chip), tpu7x:1x2x2"));
  // 4 chips of two TensorCores each: 8 JAX devices.
  REQUIRE(ironwood->slice.has_value());
  CHECK(ironwood->slice->num_devices() == 8);
  CHECK_THAT(error_of("tpu7x-6"), Contains("no tpu7x slice is tpu7x-6"));
  // The same slice named again is fine; another is an error.
  CHECK(resolve_device("v5litepod-16:4x4", nullptr).ok());
  CHECK(resolve_device("v5litepod-16", nullptr, {.topology = "4x4"}).ok());
  CHECK_THAT(error_of("v5litepod-16:2x8"),
             Contains("v5litepod-16 is the slice 4x4; for another give tpu_v5e:2x8"));
  CHECK_THAT(error_of("v5litepod-16", {.topology = "2x2"}),
             Contains("says topology 4x4 but --topology says 2x2"));
}

TEST_CASE("accelerator types whose count is no slice are rejected") {
  // 12 chips: not a power of two.
  CHECK_THAT(error_of("v5litepod-12"),
             Contains("no tpu_v5e slice is v5litepod-12") && Contains("counts chips"));
  // 6 TensorCores = 3 chips; 7 is not whole chips.
  CHECK_THAT(error_of("v5p-6"), Contains("no tpu_v5p slice is v5p-6") &&
                                    Contains("counts TensorCores, two per chip"));
  CHECK_THAT(error_of("v4-7"), Contains("no tpu_v4 slice is v4-7"));
  CHECK_THAT(error_of("v5litepod-0"), Contains("no tpu_v5e slice is v5litepod-0"));
  // 512 chips: more than the 16x16 pod.
  CHECK_THAT(error_of("v5litepod-512"), Contains("no tpu_v5e slice is v5litepod-512") &&
                                            Contains("largest tpu_v5e slice is 16x16"));
}

TEST_CASE("slices no such device has are rejected, with the shapes it has") {
  struct Case {
    std::string text;
    std::string message;
  };
  const Case rejected[] = {
      {"tpu_v5e:3x3", "no tpu_v5e slice is 3x3: its slices are 1x1, 1x2, 2x2, 2x4, 4x4, 4x8, "
                      "8x8, 8x16, 16x16 chips (either order)"},
      {"tpu_v5e:8x1", "no tpu_v5e slice is 8x1"},   // the long side at most twice the short
      {"tpu_v5e:1x4", "no tpu_v5e slice is 1x4"},
      {"tpu_v6e:6x6", "no tpu_v6e slice is 6x6"},   // not powers of two
      {"tpu_v5e:32x32", "the largest tpu_v5e slice is 16x16"},
      {"tpu_v5e:4x4x4", "tpu_v5e"},                 // three axes on a 2D torus
      {"tpu_v5p:3x4x4", "no tpu_v5p slice is 3x4x4: its slices are 1x1x1, 1x1x2, 1x2x2, 2x2x2, "
                        "2x2x4, 2x4x4, then every side a multiple of 4 (4x4x4, 4x4x8, ... up to "
                        "16x20x28) chips, in any order"},
      {"tpu_v4:4x4x6", "no tpu_v4 slice is 4x4x6"},
      {"tpu_v4:1x1x4", "no tpu_v4 slice is 1x1x4"},
      {"tpu_v4:2x2x3", "no tpu_v4 slice is 2x2x3"},
      {"tpu7x:2x3x4", "no tpu7x slice is 2x3x4"},
      {"tpu_v5e:2x2,slices=2x", "slices"},
  };
  for (const Case& c : rejected) {
    INFO(c.text);
    CHECK_THAT(error_of(c.text), Contains(c.message));
  }
  const Case accepted[] = {
      {"tpu_v5e:4x2", "4x2"},         {"tpu_v5e:16x16", "16x16"},
      {"tpu_v5p:1x2x2", "1x2x2"},     {"tpu_v5p:2x2x1", "2x2x1"},
      {"tpu_v4:4x8x12", "4x8x12"},    {"tpu_v5e:4x4,slices=2", "4x4,slices=2"},
      {"h100:2x8", "2x8"},            {"tpu7x:2x2x1", "2x2x1"},
  };
  for (const Case& c : accepted) {
    INFO(c.text);
    absl::StatusOr<DeviceTarget> t = resolve_device(c.text, nullptr);
    REQUIRE_OK(t);
    CHECK(shape(*t) == c.message);
  }
  CHECK(check_slice(*device("tpu_v5e"), "4x4").ok());
  CHECK(!check_slice(*device("tpu_v5e"), "4x1").ok());
  CHECK(check_slice(*device("h100"), "3x5").ok());  // GPUs: any nodes x GPUs
}

TEST_CASE("a topology given twice must agree") {
  CHECK(resolve_device("tpu_v5e:2x2", nullptr, {.topology = "2x2"}).ok());
  CHECK_THAT(error_of("tpu_v5e:2x2", {.topology = "4x4"}),
             Contains("--device tpu_v5e:2x2 says topology 2x2 but --topology says 4x4; give one"));
  CHECK_THAT(error_of("tpu_v5e:2x2", {.topology = "4x4", .device_option = "device=",
                                      .topology_option = "topology="}),
             Contains("device= tpu_v5e:2x2 says topology 2x2 but topology= says 4x4"));
  // The option alone is checked as a named one.
  CHECK_THAT(error_of("tpu_v5e", {.topology = "3x3"}), Contains("no tpu_v5e slice is 3x3"));
}

TEST_CASE("unknown names: did you mean the closest") {
  // One edit away, or a prefix: named. Letter case does not count.
  CHECK_THAT(error_of("tpu_v6"), Contains("unknown device 'tpu_v6'; did you mean 'tpu_v6e'?"));
  CHECK_THAT(error_of("H1000"), Contains("did you mean 'h100'?"));
  CHECK_THAT(error_of("TPU v5 lit"), Contains("did you mean 'tpu v5 lite'?"));
  CHECK_THAT(error_of("ironwod"), Contains("did you mean 'ironwood'?"));
  // Without its separators (a tie of tpu_v4 and the kind 'tpu v4', one device): named, and the
  // list after it as a sentence of its own.
  CHECK_THAT(error_of("tpuv4"), Contains("unknown device 'tpuv4'; did you mean 'tpu_v4'? "
                                         "Built-in devices: a100"));
  // An accelerator type with a mistyped version keeps its count.
  CHECK_THAT(error_of("v5lite-8"), Contains("did you mean 'v5litepod-8'?"));
  // Two equally close (tpu_v2, tpu_v3, tpu_v4 for tpu_v9), or none close: no guess, the list.
  const std::string far = error_of("tpu_v9");
  CHECK_THAT(far, Contains("unknown device 'tpu_v9'") && !Contains("did you mean") &&
                      Contains("built-in devices: a100, b200") && Contains("v5litepod-16"));
  CHECK_THAT(error_of("quantum"), !Contains("did you mean"));
  // A path that does not read is a file error, not an unknown name.
  CHECK_THAT(error_of("/no/such/spec.json"), Contains("/no/such/spec.json") &&
                                                 !Contains("unknown device"));
}

TEST_CASE("no name: the module's platform decides, else the default is a guess") {
  absl::StatusOr<Module> gpu = parse_module(R"(HloModule m
ENTRY e {
  a = f32[8,8] parameter(0)
  ROOT c = (f32[8,8], s8[0]) custom-call(a, a), custom_call_target="__cublas$gemm"
})");
  REQUIRE_OK(gpu);
  absl::StatusOr<DeviceTarget> g = resolve_device("", &*gpu);
  REQUIRE_OK(g);
  CHECK(g->spec.name == "h100");
  CHECK(g->source == DeviceSource::kPlatform);
  CHECK(any_contains(g->diagnostics.notes, "compiled for GPU"));
  CHECK(g->diagnostics.warnings.empty());

  absl::StatusOr<Module> plain =
      parse_module("HloModule m\nENTRY e { ROOT p = f32[8] parameter(0) }");
  REQUIRE_OK(plain);
  absl::StatusOr<DeviceTarget> guess =
      resolve_device("  ", &*plain, {.device_option = "device="});
  REQUIRE_OK(guess);
  CHECK(guess->spec.name == "tpu_v5e");
  CHECK(guess->source == DeviceSource::kGuess);
  CHECK(guess->diagnostics.notes.empty());
  CHECK(any_contains(guess->diagnostics.warnings, "no device= given"));
  CHECK(device_source_name(guess->source) == "guess");
  CHECK(!any_contains(guess->diagnostics.warnings, "XLA:GPU"));
  // XLA:GPU's fusion names: still a guess, but named as a hint of a GPU.
  absl::StatusOr<Module> named = parse_module(R"(HloModule m
fused {
  p = f32[8] parameter(0)
  ROOT n = f32[8] negate(p)
}
ENTRY e {
  x = f32[8] parameter(0)
  ROOT loop_negate_fusion = f32[8] fusion(x), kind=kLoop, calls=fused
})");
  REQUIRE_OK(named);
  absl::StatusOr<DeviceTarget> hinted = resolve_device("", &*named);
  REQUIRE_OK(hinted);
  CHECK(hinted->source == DeviceSource::kGuess);
  CHECK(any_contains(hinted->diagnostics.warnings,
                     "its fusion names, such as loop_negate_fusion, are XLA:GPU's"));
  // No module at all: the default, a guess too.
  absl::StatusOr<DeviceTarget> bare = resolve_device("", nullptr);
  REQUIRE_OK(bare);
  CHECK(bare->spec.name == "tpu_v5e");
  CHECK(bare->source == DeviceSource::kGuess);
  CHECK(any_contains(bare->diagnostics.warnings, "no --device given and no module to read a platform from"));

  // A slice larger than the module: its idle chips are noted. 4x4 = 16 devices, the module
  // runs on 2 x 2 = 4: 12 idle.
  absl::StatusOr<Module> four = parse_module(
      "HloModule m, replica_count=2, num_partitions=2\nENTRY e { ROOT p = f32[8] parameter(0) }");
  REQUIRE_OK(four);
  absl::StatusOr<DeviceTarget> idle = resolve_device("tpu_v5e:4x4", &*four);
  REQUIRE_OK(idle);
  CHECK(any_contains(idle->diagnostics.notes,
                     "topology 4x4 holds 16 devices; the module runs on 4 "
                     "(replica_count x num_partitions), so 12 sit idle"));
  // The slice comes parsed, for whoever times it; none when none was given.
  REQUIRE(idle->slice.has_value());
  CHECK(idle->slice->num_devices() == 16);
  CHECK(idle->slice->shape == "4x4");
  absl::StatusOr<DeviceTarget> unsliced = resolve_device("tpu_v5e", &*four);
  REQUIRE_OK(unsliced);
  CHECK(!unsliced->slice.has_value());
}

TEST_CASE("a megacore chip's slice counts chips, whatever each chip's devices") {
  // tpu_v4:2x2x1 is 4 chips. On the hardware each is one megacore device (4 devices, the
  // chip's figures); libtpu's offline compiler gives each of a chip's 2 TensorCores a device
  // (core_on_chip 0 and 1): a module on 8 devices of the same 4 chips, each device half a chip.
  absl::StatusOr<Module> four = parse_module(
      "HloModule m, num_partitions=4\nENTRY e { ROOT p = f32[8] parameter(0) }");
  absl::StatusOr<Module> eight = parse_module(
      "HloModule m, num_partitions=8\nENTRY e { ROOT p = f32[8] parameter(0) }");
  REQUIRE_OK(four);
  REQUIRE_OK(eight);
  absl::StatusOr<DeviceTarget> megacore = resolve_device("tpu_v4:2x2x1", &*four);
  REQUIRE_OK(megacore);
  CHECK(megacore->spec.matrix_flops_per_s.at("bf16") == 2.75e14);
  CHECK(megacore->slice->num_devices() == 4);
  CHECK(megacore->spec.torus->devices_per_chip == 1);
  CHECK(megacore->spec.torus->cores_per_chip == 2);
  absl::StatusOr<DeviceTarget> cores = resolve_device("tpu_v4:2x2x1", &*eight);
  REQUIRE_OK(cores);
  CHECK(shape(*cores) == "2x2x1");
  REQUIRE(cores->slice.has_value());
  CHECK(cores->slice->num_devices() == 8);
  CHECK(cores->slice->describe() == "core:2 chip-local, x:2 ICI line, y:2 ICI line, z:1 ICI line");
  // Per device: 2.75e14 / 2 FLOP/s, 1.2e12 / 2 B/s, 32 GiB / 2; the VMEM (per TensorCore
  // already) and the ICI links (per chip) stay.
  CHECK(cores->spec.name == "tpu_v4");
  CHECK(cores->spec.matrix_flops_per_s.at("bf16") == 1.375e14);
  CHECK(cores->spec.matrix_flops_per_s.at("int8") == 1.375e14);
  CHECK(cores->spec.vector_flops_per_s == 4.2e12);
  CHECK(cores->spec.hbm_bandwidth == 6e11);
  CHECK(cores->spec.hbm_capacity_bytes == 16.0 * (1 << 30));
  CHECK(cores->spec.on_chip_capacity_bytes == megacore->spec.on_chip_capacity_bytes);
  CHECK(cores->spec.torus->link_bandwidth == megacore->spec.torus->link_bandwidth);
  CHECK(cores->spec.torus->devices_per_chip == 2);
  CHECK(any_contains(cores->diagnostics.notes,
                     "the module runs on 8 devices on tpu_v4:2x2x1's 4 chips: one device per "
                     "TensorCore, 2 a chip"));
  // A spec of one device per TensorCore already (tpu7x) or one core a chip (v5e) is its own.
  absl::StatusOr<DeviceSpec> v5e = device("tpu_v5e");
  REQUIRE_OK(v5e);
  absl::StatusOr<DeviceSpec> same = per_core_spec(*v5e);
  REQUIRE_OK(same);
  CHECK(same->json == v5e->json);
  // A chip's cores are a whole number of its devices.
  std::string json = v5e->json;
  const std::string per_chip = R"("devices_per_chip": {"value": 1, "unit": "devices")";
  REQUIRE(json.find(per_chip) != std::string::npos);
  json.insert(json.find(per_chip),
              R"("cores_per_chip": {"value": 3, "unit": "TensorCores"}, )");
  json.replace(json.find(per_chip), per_chip.size(),
               R"("devices_per_chip": {"value": 2, "unit": "devices")");
  absl::StatusOr<DeviceSpec> odd = parse_device_spec(json, "odd.json");
  REQUIRE_FALSE(odd.ok());
  CHECK_THAT(std::string(odd.status().message()),
             Contains("interconnect.cores_per_chip") && Contains("multiple of devices_per_chip"));
}

TEST_CASE("a v4 program libtpu compiled offline: 2 devices a chip without a slice given") {
  // tests/data/device_targets/tpu_v4_2x2x1_mlp.hlo: gelu(x @ w1) @ w2, x f32[64,128] sharded
  // over the 8 devices jax.experimental.topologies gives "v4:2x2x1" (core_on_chip 0 and 1 on
  // each of 4 chips), compiled by libtpu 0.0.52 (jax 0.10.2). Its fusions carry no
  // megacore_config, which every v5p program of tests/data/xla with a fusion has: one device per
  // TensorCore. Without a slice the device is the same as with tpu_v4:2x2x1 (what Python and the
  // sweep give from JAX's devices): 4 chips of 2 devices, each half a chip.
  std::ifstream in(std::string(HLOROOF_SOURCE_DIR) +
                   "/tests/data/device_targets/tpu_v4_2x2x1_mlp.hlo");
  REQUIRE(in.good());
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  absl::StatusOr<Module> module = parse_module(text);
  REQUIRE_OK(module);
  REQUIRE(module->attributes().num_partitions == 8);
  absl::StatusOr<DeviceTarget> inferred = resolve_device("tpu_v4", &*module);
  REQUIRE_OK(inferred);
  absl::StatusOr<DeviceTarget> sliced = resolve_device("tpu_v4:2x2x1", &*module);
  REQUIRE_OK(sliced);
  CHECK(inferred->spec.torus->devices_per_chip == 2);
  CHECK(inferred->spec.hbm_capacity_bytes == 16.0 * (1 << 30));  // 32 GiB a chip / 2
  CHECK(inferred->spec.json == sliced->spec.json);
  CHECK(any_contains(inferred->diagnostics.notes, "its 8 devices are 4 chips of 2"));
  absl::StatusOr<Prediction> a = predict_step_time(*module, *inferred);
  absl::StatusOr<Prediction> b = predict_step_time(*module, *sliced);
  REQUIRE_OK(a);
  REQUIRE_OK(b);
  // Inferred: 8 devices at 2 a chip, 4 chips (the smallest v4 slice of 4, as for any module of 4
  // chips), not 8 whole chips (2x2x2).
  CHECK(a->topology == "1x2x2");
  CHECK(a->step_time_s == b->step_time_s);
  // A module of whole megacore chips (every v5p program with a fusion carries
  // megacore_config) and one with nothing to tell (no fusion) keep one device a chip.
  std::string megacore = text;
  const size_t at = megacore.find("\"window_config\"");
  REQUIRE(at != std::string::npos);
  megacore.insert(at, "\"megacore_config\":{\"megacore_split_dim\":\"0\"},");
  absl::StatusOr<Module> whole = parse_module(megacore);
  REQUIRE_OK(whole);
  absl::StatusOr<DeviceTarget> chips = resolve_device("tpu_v4", &*whole);
  REQUIRE_OK(chips);
  CHECK(chips->spec.torus->devices_per_chip == 1);
  absl::StatusOr<Module> plain = parse_module(
      "HloModule m, num_partitions=8\nENTRY e { ROOT p = f32[8] parameter(0) }");
  REQUIRE_OK(plain);
  absl::StatusOr<DeviceTarget> untold = resolve_device("tpu_v4", &*plain);
  REQUIRE_OK(untold);
  CHECK(untold->spec.torus->devices_per_chip == 1);
}

TEST_CASE("a module compiled for the CPU and predicted on a GPU or TPU is warned of") {
  // No marker in the text: the dump's file name says it (XLA names CPU dumps
  // *.cpu_after_optimizations.txt), as the command passes it.
  absl::StatusOr<Module> plain =
      parse_module("HloModule m\nENTRY e { ROOT p = f32[8] parameter(0) }");
  REQUIRE_OK(plain);
  const PlatformInference named =
      platform_of_file_name("dump/module_0001.jit_f.cpu_after_optimizations.txt");
  CHECK(named.platform == "cpu");
  CHECK(platform_of_file_name("module_0001.jit_f.sm_9.0_gpu_after_optimizations.txt").platform ==
        "gpu");
  CHECK(platform_of_file_name("model.hlo").platform.empty());
  absl::StatusOr<DeviceTarget> h100 = resolve_device("h100", &*plain, {.compiled_for = named});
  REQUIRE_OK(h100);
  CHECK(any_contains(h100->diagnostics.warnings,
                     "the module was compiled for the CPU (file name "
                     "\"module_0001.jit_f.cpu_after_optimizations.txt\") and is predicted on "
                     "h100, a GPU"));
  absl::StatusOr<DeviceTarget> v5e = resolve_device("tpu_v5e", &*plain, {.compiled_for = named});
  REQUIRE_OK(v5e);
  CHECK(any_contains(v5e->diagnostics.warnings, "is predicted on tpu_v5e, a TPU"));
  // XLA:CPU's own marker in the text (oneDNN's custom call) says so without a file name.
  absl::StatusOr<Module> onednn = parse_module(R"(HloModule m
ENTRY e {
  a = f32[8,8] parameter(0)
  ROOT d = f32[8,8] custom-call(a, a), custom_call_target="__onednn$matmul"
})");
  REQUIRE_OK(onednn);
  absl::StatusOr<DeviceTarget> marked = resolve_device("h100", &*onednn);
  REQUIRE_OK(marked);
  CHECK(any_contains(marked->diagnostics.warnings,
                     "compiled for the CPU (custom call \"__onednn$matmul\" in d)"));
  // Without anything that tells, or without a device named (the default is chosen for the
  // module), no warning.
  absl::StatusOr<DeviceTarget> quiet = resolve_device("h100", &*plain);
  REQUIRE_OK(quiet);
  CHECK(quiet->diagnostics.warnings.empty());
}

TEST_CASE("settings change the spec's figures, and say so") {
  absl::StatusOr<DeviceTarget> t =
      resolve_device("h100", nullptr, {.settings = {"hbm.bandwidth=4e12"}});
  REQUIRE_OK(t);
  CHECK(t->spec.hbm_bandwidth == 4e12);
  CHECK(any_contains(t->diagnostics.notes, "device figures set: hbm.bandwidth=4e12"));
  CHECK(!resolve_device("h100", nullptr, {.settings = {"no.such=1"}}).ok());
}

TEST_CASE("settings add figures a device JSON takes and the spec leaves out") {
  // a100 gives scale_out_bandwidth, not a cluster's NICs: both NIC figures are added, in the
  // units the reader asks for (NICs; B/s, the base unit of a bandwidth), and the scale-out
  // bandwidth follows from them as in a device JSON: 4 x 5e10 / 8 GPUs = 2.5e10 B/s.
  absl::StatusOr<DeviceTarget> t = resolve_device(
      "a100", nullptr,
      {.settings = {"interconnect.nics_per_node=4", "interconnect.nic_bandwidth=5e10"}});
  REQUIRE_OK(t);
  const DeviceFigure* nics = t->spec.figure("interconnect.nics_per_node");
  const DeviceFigure* nic = t->spec.figure("interconnect.nic_bandwidth");
  REQUIRE(nics != nullptr);
  REQUIRE(nic != nullptr);
  CHECK(nics->value == 4);
  CHECK(nics->unit == "NICs");
  CHECK(nic->value == 5e10);
  CHECK(nic->unit == "B/s");
  CHECK(t->spec.gpu->scale_out_bandwidth == 2.5e10);
  CHECK(t->spec.figure("interconnect.scale_out_bandwidth") == nullptr);
  absl::StatusOr<DeviceTarget> slow = resolve_device(
      "a100", nullptr,
      {.settings = {"interconnect.nics_per_node=2", "interconnect.nic_bandwidth=5e10"}});
  REQUIRE_OK(slow);
  CHECK(slow->spec.gpu->scale_out_bandwidth == 1.25e10);  // 2 x 5e10 / 8
  // One without the other: the reader's rule, and the JSON route named.
  absl::StatusOr<DeviceTarget> half =
      resolve_device("a100", nullptr, {.settings = {"interconnect.nics_per_node=4"}});
  REQUIRE_FALSE(half.ok());
  CHECK_THAT(std::string(half.status().message()),
             Contains("nics_per_node and nic_bandwidth go together") &&
                 Contains("hloroof devices a100 --json"));
  // A key no device JSON has is still an error.
  CHECK(!resolve_device("a100", nullptr, {.settings = {"interconnect.nosuch=1"}}).ok());
}

TEST_CASE("settings take a unit, as a device JSON does; a bare number is in the base unit") {
  // 200 Gb/s is 200 x 1.25e8 = 2.5e10 B/s, what a device JSON's {"value": 200, "unit": "Gb/s"}
  // (examples/a100_4nic.json) gives: 4 x 2.5e10 / 8 GPUs = 1.25e10 B/s a GPU.
  absl::StatusOr<DeviceTarget> gbps = resolve_device(
      "a100", nullptr,
      {.settings = {"interconnect.nics_per_node=4", "interconnect.nic_bandwidth=200Gb/s"}});
  REQUIRE_OK(gbps);
  const DeviceFigure* nic = gbps->spec.figure("interconnect.nic_bandwidth");
  REQUIRE(nic != nullptr);
  CHECK(nic->value == 2.5e10);
  CHECK(nic->unit == "B/s");
  CHECK(gbps->spec.gpu->scale_out_bandwidth == 1.25e10);
  absl::StatusOr<DeviceSpec> file = device(std::string(HLOROOF_SOURCE_DIR) +
                                           "/examples/a100_4nic.json");
  REQUIRE_OK(file);
  CHECK(gbps->spec.gpu->scale_out_bandwidth == file->gpu->scale_out_bandwidth);
  // A figure the spec has, in another unit: 3 TB/s; a time in us.
  absl::StatusOr<DeviceTarget> hbm =
      resolve_device("h100", nullptr, {.settings = {"hbm.bandwidth=3TB/s"}});
  REQUIRE_OK(hbm);
  CHECK(hbm->spec.hbm_bandwidth == 3e12);
  absl::StatusOr<DeviceTarget> latency = resolve_device(
      "a100", nullptr, {.settings = {"interconnect.scale_out_latency=20us"}});
  REQUIRE_OK(latency);
  REQUIRE(latency->spec.gpu->scale_out_latency_s);
  CHECK(*latency->spec.gpu->scale_out_latency_s == Approx(20e-6));
  // 200 alone is 200 B/s, out of any NIC's range: the error says in what unit it was read.
  const std::string bare = error_of(
      "a100", {.settings = {"interconnect.nics_per_node=4", "interconnect.nic_bandwidth=200"}});
  CHECK_THAT(bare, Contains("got 200 B/s") && Contains("without a unit is in the figure's base "
                                                       "unit") &&
                       Contains("200Gb/s"));
  // A fraction or a count takes no unit; a unit of another quantity is the reader's error.
  CHECK_THAT(error_of("a100", {.settings = {"interconnect.nic_efficiency=50%"}}),
             Contains("is not a number"));
  CHECK_THAT(error_of("a100", {.settings = {"interconnect.nic_efficiency=0.5GB"}}),
             Contains("a plain number"));
  CHECK_THAT(error_of("h100", {.settings = {"hbm.bandwidth=3GB"}}),
             Contains("'GB' is not a unit of this field"));
}

TEST_CASE("a spec given whole: its slice checked as a named device's, a CPU module warned of") {
  absl::StatusOr<DeviceSpec> v5e = device("tpu_v5e");
  REQUIRE_OK(v5e);
  absl::StatusOr<DeviceTarget> none = spec_target(*v5e, "");
  REQUIRE_OK(none);
  CHECK(!none->slice.has_value());
  CHECK(none->diagnostics.empty());
  // 2x2: 4 chips of one device each.
  absl::StatusOr<DeviceTarget> square = spec_target(*v5e, "2x2");
  REQUIRE_OK(square);
  REQUIRE(square->slice.has_value());
  CHECK(square->slice->num_devices() == 4);
  absl::StatusOr<DeviceTarget> odd = spec_target(*v5e, "3x3");
  REQUIRE(!odd.ok());
  CHECK_THAT(std::string(odd.status().message()), Contains("no tpu_v5e slice is 3x3"));
  // A module whose text tells no platform, compiled for the CPU by what the caller knows.
  absl::StatusOr<Module> plain =
      parse_module("HloModule m\nENTRY e { ROOT p = f32[8] parameter(0) }\n");
  REQUIRE_OK(plain);
  absl::StatusOr<DeviceTarget> cpu =
      spec_target(*v5e, "", &*plain, {.platform = "cpu", .marker = "the caller's devices"});
  REQUIRE_OK(cpu);
  REQUIRE(cpu->diagnostics.warnings.size() == 1);
  CHECK_THAT(cpu->diagnostics.warnings[0],
             Contains("compiled for the CPU (the caller's devices)") && Contains("tpu_v5e"));
  CHECK(spec_target(*v5e, "", &*plain)->diagnostics.warnings.empty());
}

TEST_CASE("the shared table: the C++ API predicts on the device and slice it names") {
  // tests/data/device_targets/targets.json: the same answers from the command and Python.
  std::ifstream in(std::string(HLOROOF_SOURCE_DIR) + "/tests/data/device_targets/targets.json");
  REQUIRE(in.good());
  const nlohmann::json table = nlohmann::json::parse(in);
  const std::string text =
      absl::StrJoin(table["module"].get<std::vector<std::string>>(), "\n") + "\n";
  REQUIRE(table["targets"].size() >= 30);
  for (const nlohmann::json& row : table["targets"]) {
    const std::string device_text = row["device"];
    INFO("device '" << device_text << "'");
    absl::StatusOr<Prediction> p = testing::predict_text(text, device_text);
    if (row.contains("error")) {
      REQUIRE(!p.ok());
      CHECK_THAT(std::string(p.status().message()), Contains(row["error"].get<std::string>()));
    } else {
      INFO(p.status().ToString());
      REQUIRE_OK(p);
      CHECK(p->device == row["name"]);
      CHECK(p->topology == row["topology"]);
    }
  }
}

}  // namespace
}  // namespace hloroof
