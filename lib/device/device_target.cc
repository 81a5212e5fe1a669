// The one rule from a device's name (and a module) to a checked device and slice.
#include "hloroof/device_target.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "hloroof/module.h"
#include "hloroof/platform.h"
#include "hloroof/topology.h"
#include "hloroof/absl_compat.h"
#include "util/checked_math.h"
#include "hloroof/edit_distance.h"

namespace hloroof {
namespace {

using NamePair = std::pair<std::string_view, std::string_view>;

// JAX's device kinds, lower case, as libtpu and the CUDA runtime name them (jax-ml/jax
// tests/pallas/tpu_info_test.py matches "TPU v3", "TPU v4", "TPU v5 lite" (v5e), "TPU v5"
// (v5p), "TPU v6 lite" (v6e), "TPU7x"; libtpu 0.0.52's offline topologies give the same), and
// the chips' other names, taken as the same chip.
constexpr NamePair kTpuKinds[] = {
    {"tpu v2", "tpu_v2"},       {"tpu v3", "tpu_v3"},       {"tpu v4", "tpu_v4"},
    {"tpu v5 lite", "tpu_v5e"}, {"tpu v5e", "tpu_v5e"},     {"tpu v5", "tpu_v5p"},
    {"tpu v5p", "tpu_v5p"},     {"tpu v6 lite", "tpu_v6e"}, {"tpu v6e", "tpu_v6e"},
    {"tpu7x", "tpu7x"},         {"tpu v7x", "tpu7x"},       {"tpu v7", "tpu7x"},
};
constexpr NamePair kGpuKinds[] = {
    {"nvidia a100-sxm4-80gb", "a100"}, {"nvidia h100 80gb hbm3", "h100"},
    {"nvidia h200", "h200"},           {"nvidia b200", "b200"},
    {"nvidia gb200", "gb200"},           {"amd instinct mi300x", "mi300x"},
    {"amd instinct mi325x", "mi325x"},
};
// Other models of a built-in GPU, by the code in their name (longest codes first).
constexpr NamePair kGpuCodes[] = {
    {"gb200", "gb200"}, {"b200", "b200"}, {"h200", "h200"}, {"h100", "h100"}, {"a100", "a100"},
};

// Cloud TPU accelerator types, `VERSION-COUNT`. The count is TensorCores for v2, v3, v4, v5p and
// TPU7x (two per chip: "v5p-8" is 4 chips, 2x2x1; cloud.google.com/tpu/docs/v5p, "Using the
// AcceleratorType parameter"; "tpu7x-8" is 4 chips, 2x2x1: AI-Hypercomputer/xpk at 02b0c09,
// src/xpk/core/system_characteristics.py, names tpu7x slices `tpu7x-{chips x 2}` as it does v5p)
// and chips for v5e and v6e ("v5litepod-16" is 16 chips, 4x4; cloud.google.com/tpu/docs/v5e and
// /v6e, "v$VERSION_NUMBER-$CHIP_COUNT").
struct AcceleratorType {
  std::string_view prefix;  // before the '-'
  std::string_view device;
  int64_t per_chip;  // what the count counts per chip: 2 TensorCores, or 1 chip
};
constexpr AcceleratorType kAcceleratorTypes[] = {
    {"v2", "tpu_v2", 2},        {"v3", "tpu_v3", 2},  {"v4", "tpu_v4", 2},
    {"v5p", "tpu_v5p", 2},      {"v5litepod", "tpu_v5e", 1}, {"v6e", "tpu_v6e", 1},
    {"tpu7x", "tpu7x", 2},
};

std::string lower(std::string_view text) { return absl::AsciiStrToLower(sv(text)); }

bool is_power_of_two(int64_t n) { return n > 0 && (n & (n - 1)) == 0; }

// Slices of a 2D-torus TPU (v5e, v6e) come in powers of two, the long side at most twice the
// short one: 1x1, 2x2, 2x4, 4x4, 4x8, 8x8, 8x16, 16x16 (either order).
bool is_2d_slice(int64_t a, int64_t b) {
  const int64_t lo = std::min(a, b), hi = std::max(a, b);
  return is_power_of_two(a) && is_power_of_two(b) && (hi == lo || hi == 2 * lo);
}

std::string valid_2d_slices(const DeviceSpec& spec) {
  std::vector<std::string> shapes;
  const int64_t limit = spec.torus->max_slice.empty()
                            ? 16
                            : *std::max_element(spec.torus->max_slice.begin(),
                                                spec.torus->max_slice.end());
  for (int64_t a = 1; a <= limit; a *= 2) {
    for (int64_t b : {a, 2 * a}) {
      if (b <= limit) shapes.push_back(absl::StrCat(a, "x", b));
    }
  }
  return absl::StrJoin(shapes, ", ");
}

// Slices of a 3D-torus TPU whose axes wrap in whole cubes (v4, v5p): below one cube the shapes
// 2x2x1, 2x2x2, 2x2x4 and 2x4x4 (and one or two chips, what a one- or two-device module is
// given), above it whole cubes, every side a multiple of the cube's (4). The largest slice is
// make_topology's check.
constexpr int64_t kSmall3dSlices[][3] = {{1, 1, 1}, {1, 1, 2}, {1, 2, 2},
                                         {2, 2, 2}, {2, 2, 4}, {2, 4, 4}};

bool is_3d_slice(int64_t a, int64_t b, int64_t c, int64_t cube) {
  int64_t d[3] = {a, b, c};
  std::sort(d, d + 3);
  if (d[0] > 0 && d[0] % cube == 0 && d[1] % cube == 0 && d[2] % cube == 0) return true;
  for (const auto& s : kSmall3dSlices) {
    if (d[0] == s[0] && d[1] == s[1] && d[2] == s[2]) return true;
  }
  return false;
}

std::string valid_3d_slices(const DeviceSpec& spec) {
  std::vector<std::string> small;
  for (const auto& s : kSmall3dSlices) small.push_back(absl::StrCat(s[0], "x", s[1], "x", s[2]));
  const int64_t cube = spec.torus->wraparound.cube;
  std::string text = absl::StrCat(absl::StrJoin(small, ", "), ", then every side a multiple of ",
                                  cube, " (", cube, "x", cube, "x", cube, ", ", cube, "x", cube,
                                  "x", 2 * cube, ", ...");
  if (!spec.torus->max_slice.empty()) {
    absl::StrAppend(&text, " up to ", absl::StrJoin(spec.torus->max_slice, "x"));
  }
  return text + ")";
}

// The device and slice of a Cloud TPU accelerator type ("v5p-8"); nullopt when `name` is not
// one; an error when its count is no slice of the device.
struct NamedSlice {
  DeviceSpec spec;
  std::string topology;
  std::string note;
};
std::optional<absl::StatusOr<NamedSlice>> accelerator_type(std::string_view name) {
  const std::string wanted = lower(name);
  const size_t dash = wanted.rfind('-');
  if (dash == std::string::npos) return std::nullopt;
  const std::string_view prefix = std::string_view(wanted).substr(0, dash);
  const AcceleratorType* type = nullptr;
  for (const AcceleratorType& t : kAcceleratorTypes) {
    if (t.prefix == prefix) type = &t;
  }
  int64_t count = 0;
  if (type == nullptr || !absl::SimpleAtoi(sv(std::string_view(wanted).substr(dash + 1)), &count)) {
    return std::nullopt;
  }
  absl::StatusOr<DeviceSpec> spec = device(type->device);
  if (!spec.ok()) return spec.status();
  const std::string counted = type->per_chip == 1 ? "chips" : "TensorCores, two per chip";
  const int64_t chips = count / type->per_chip;
  absl::StatusOr<Topology> slice = absl::InvalidArgumentError("");
  if (count > 0 && count % type->per_chip == 0 && is_power_of_two(chips)) {
    slice = infer_topology(*spec, chips * spec->torus->devices_per_chip);
  }
  if (!slice.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "no ", spec->name, " slice is ", sv(name), ": the number of a ", sv(type->prefix),
        "-N accelerator type counts ", counted, ", and a slice has a power of two of chips",
        slice.status().message().empty() ? "" : absl::StrCat(" (", slice.status().message(), ")")));
  }
  NamedSlice out{*std::move(spec), slice->shape, ""};
  out.note = absl::StrCat("device ", sv(name), ": the Cloud TPU accelerator type of ", chips,
                          " chip", chips == 1 ? "" : "s", " (its number counts ", counted,
                          "), ", out.spec.name, ":", out.topology);
  return out;
}

// Every name a device may be given by, lower case, for "did you mean".
std::vector<std::string> known_names() {
  std::vector<std::string> names;
  for (const std::string& n : builtin_device_names()) {
    names.push_back(n);
    absl::StatusOr<DeviceSpec> spec = device(n);
    if (!spec.ok()) continue;
    for (const std::string& alias : spec->aliases) names.push_back(lower(alias));
  }
  for (const auto& [kind, d] : kTpuKinds) names.emplace_back(kind);
  for (const auto& [kind, d] : kGpuKinds) names.emplace_back(kind);
  return names;
}

absl::Status unknown_device(std::string_view name) {
  // No device is named in more than a few dozen bytes: a longer name gets no suggestion, whose
  // edit distances take time in its length times every name's.
  constexpr size_t kMaxSuggestedLength = 256;
  if (name.size() > kMaxSuggestedLength) {
    return absl::NotFoundError(absl::StrCat(
        "unknown device '", sv(name.substr(0, 64)), "...' (", name.size(),
        " bytes; no device has so long a name): `hloroof devices` lists the built-in ones; a "
        "device JSON file is named by its path"));
  }
  const std::vector<std::string> names = known_names();
  const std::vector<std::string_view> views(names.begin(), names.end());
  const std::string wanted = lower(name);
  std::string_view close = closest_name(wanted, views);
  const std::vector<std::string> builtin = builtin_device_names();  // `close` may point here
  if (close.empty()) {
    // Spelled without its separators ("tpuv4", "tpu-v4"): the built-in name that is the same
    // letters (a device's names and kinds all lead to one such name).
    const auto letters = [](std::string_view text) {
      std::string out;
      for (char c : text) {
        if (c != '_' && c != '-' && c != ' ') out.push_back(c);
      }
      return out;
    };
    for (const std::string& n : builtin) {
      if (letters(n) == letters(wanted)) close = n;
    }
  }
  // An accelerator type with a mistyped version ("v5lite-8"): the closest version, same count.
  const size_t dash = wanted.rfind('-');
  if (close.empty() && dash != std::string::npos) {
    std::vector<std::string_view> prefixes;
    for (const AcceleratorType& t : kAcceleratorTypes) prefixes.push_back(t.prefix);
    const std::string_view prefix = closest_name(std::string_view(wanted).substr(0, dash),
                                                 prefixes);
    if (!prefix.empty()) {
      return absl::NotFoundError(absl::StrCat(
          "unknown device '", sv(name), "'; did you mean '", sv(prefix),
          sv(std::string_view(wanted).substr(dash)), "'? (Cloud TPU accelerator types: ",
          "v2-N, v3-N, v4-N, v5p-N, v5litepod-N, v6e-N, tpu7x-N)"));
    }
  }
  return absl::NotFoundError(absl::StrCat(
      "unknown device '", sv(name), "'",
      close.empty() ? "; built-in devices: "
                    : absl::StrCat("; did you mean '", sv(close), "'? Built-in devices: "),
      absl::StrJoin(builtin_device_names(), ", "),
      "; also a JAX device kind ('TPU v5 lite'), a Cloud TPU accelerator type ('v5litepod-16', "
      "'v5p-8') or the path of a JSON spec"));
}

// The spec `name` names: a built-in name or alias, a JSON path, a JAX device kind, a Cloud TPU
// accelerator type (which names the slice too).
absl::StatusOr<NamedSlice> named_device(std::string_view name) {
  absl::StatusOr<DeviceSpec> spec = device(name);
  if (spec.ok()) return NamedSlice{*std::move(spec), "", ""};
  const bool path = absl::StrContains(sv(name), '/') || absl::EndsWith(sv(name), ".json");
  if (path || !absl::IsNotFound(spec.status())) return spec.status();
  const KindDevice kind = device_for_kind(name);
  if (!kind.device.empty() && kind.exact) {
    spec = device(kind.device);
    if (!spec.ok()) return spec.status();
    return NamedSlice{*std::move(spec), "", ""};
  }
  if (auto type = accelerator_type(name)) return *std::move(type);
  if (!kind.device.empty()) {
    // Another model of a built-in GPU: not the same figures.
    return absl::NotFoundError(absl::StrCat("no built-in device is '", sv(name),
                                            "'; did you mean '", kind.device,
                                            "'? (another model: its figures differ)"));
  }
  return unknown_device(name);
}

// A module on a slice of megacore chips (v4, v5p) that runs on one device per TensorCore, as
// libtpu's offline compiler builds it: the target becomes per_core_spec's, the slice's chips
// the same. Any other module or device: unchanged.
absl::Status split_megacore(const Module* module, std::string_view shape, DeviceTarget& target) {
  if (module == nullptr || !target.spec.torus) return absl::OkStatus();
  const TorusSpec& torus = *target.spec.torus;
  if (torus.cores_per_chip <= torus.devices_per_chip) return absl::OkStatus();
  absl::StatusOr<Topology> whole = make_topology(target.spec, shape);
  if (!whole.ok()) return absl::OkStatus();  // the caller's make_topology says why
  const int64_t chips = whole->num_devices() / torus.devices_per_chip;
  const int64_t used = saturating_mul(module->attributes().replica_count,
                                      module->attributes().num_partitions);
  if (used != chips * torus.cores_per_chip) return absl::OkStatus();
  absl::StatusOr<DeviceSpec> split = per_core_spec(target.spec);
  if (!split.ok()) return split.status();
  target.diagnostics.notes.push_back(absl::StrCat(
      "the module runs on ", used, " devices on ", target.spec.name, ":", sv(shape), "'s ",
      chips, " chips: one device per TensorCore, ", torus.cores_per_chip, " a chip (as libtpu's "
      "offline compiler gives them; the hardware runs a chip as one megacore device), each with "
      "1/", torus.cores_per_chip / torus.devices_per_chip, " of the chip's compute and HBM"));
  target.spec = *std::move(split);
  return absl::OkStatus();
}

// Whether a TPU compile of `module` ran one device per TensorCore: the TPU compiler writes a
// megacore_config into the backend configs of its fusions when a device is a megacore chip
// (every program of tests/data/xla/tpu_v5p_2x2x1 with a fusion has one), and none when each
// TensorCore is a device (libtpu's offline v4 topologies). False without such fusions (a
// hand-written module, a Pallas kernel alone): nothing tells.
bool compiled_per_core(const Module& module) {
  bool configured_fusion = false;
  for (const Computation* c : module.computations()) {
    for (const Instruction* i : c->instructions()) {
      const std::string_view text = i->backend_config().text();
      if (text.empty()) continue;
      if (absl::StrContains(sv(text), "\"megacore_config\"")) return false;
      configured_fusion |= i->opcode() == Opcode::kFusion;
    }
  }
  return configured_fusion;
}

// With no slice given: a module that a megacore chip's TPU compile gave one device per
// TensorCore (compiled_per_core) runs on per_core_spec's devices, as split_megacore gives a
// slice that is given; the slice inferred counts chips of that many devices.
absl::Status split_megacore_inferred(const Module* module, DeviceTarget& target) {
  if (module == nullptr || !target.spec.torus) return absl::OkStatus();
  const TorusSpec& torus = *target.spec.torus;
  if (torus.cores_per_chip <= torus.devices_per_chip) return absl::OkStatus();
  const int64_t used = saturating_mul(module->attributes().replica_count,
                                      module->attributes().num_partitions);
  if (used < torus.cores_per_chip || used % torus.cores_per_chip != 0 ||
      !compiled_per_core(*module)) {
    return absl::OkStatus();
  }
  absl::StatusOr<DeviceSpec> split = per_core_spec(target.spec);
  if (!split.ok()) return split.status();
  target.diagnostics.notes.push_back(absl::StrCat(
      "the module's fusions carry no megacore_config: it was compiled with one device per "
      "TensorCore (as libtpu's offline compiler gives ", target.spec.name, "), so its ", used,
      " devices are ", used / torus.cores_per_chip, " chips of ", torus.cores_per_chip,
      ", each with 1/", torus.cores_per_chip / torus.devices_per_chip,
      " of the chip's compute and HBM; give DEVICE:SHAPE for another slice"));
  target.spec = *std::move(split);
  return absl::OkStatus();
}

}  // namespace

std::string_view device_source_name(DeviceSource source) {
  switch (source) {
    case DeviceSource::kNamed:
      return "named";
    case DeviceSource::kPlatform:
      return "platform";
    case DeviceSource::kGuess:
      return "guess";
  }
  return "named";
}

absl::Status check_slice(const DeviceSpec& spec, std::string_view shape) {
  if (!spec.torus) return absl::OkStatus();
  std::vector<absl::string_view> parts = absl::StrSplit(sv(shape), ',');
  std::vector<absl::string_view> dims = absl::StrSplit(parts[0], 'x');
  if (spec.torus->rank == 3 && spec.torus->wraparound.rule == Wraparound::Rule::kWholeCubes &&
      spec.torus->wraparound.cube > 0) {
    int64_t a = 0, b = 0, c = 0;
    if (dims.size() != 3 || !absl::SimpleAtoi(dims[0], &a) || !absl::SimpleAtoi(dims[1], &b) ||
        !absl::SimpleAtoi(dims[2], &c)) {
      return absl::OkStatus();  // make_topology explains malformed shapes
    }
    if (is_3d_slice(a, b, c, spec.torus->wraparound.cube)) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrCat("no ", spec.name, " slice is ", parts[0],
                                                   ": its slices are ", valid_3d_slices(spec),
                                                   " chips, in any order"));
  }
  if (spec.torus->rank != 2) return absl::OkStatus();
  int64_t a = 0, b = 0;
  if (dims.size() != 2 || !absl::SimpleAtoi(dims[0], &a) || !absl::SimpleAtoi(dims[1], &b)) {
    return absl::OkStatus();  // make_topology explains malformed shapes
  }
  if (is_2d_slice(a, b)) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "no ", spec.name, " slice is ", parts[0], ": its slices are ", valid_2d_slices(spec),
      " chips (either order)"));
}

std::string platform_mismatch(const PlatformInference& compiled_for, const DeviceSpec& device) {
  const std::string& p = compiled_for.platform;
  const std::string_view kind = device_kind_name(device.kind);
  if ((p != "gpu" && p != "tpu" && p != "cpu") || p == kind) return "";
  const std::string where =
      compiled_for.instruction.empty()
          ? compiled_for.marker
          : absl::StrCat(compiled_for.marker, " in ", compiled_for.instruction);
  return absl::StrCat(
      "the module was compiled for ", p == "cpu" ? "the CPU" : absl::AsciiStrToUpper(p), " (",
      where, ") and is predicted on ", device.name, ", a ",
      absl::AsciiStrToUpper(std::string(kind)),
      ": its fusions, layouts and custom calls are the other platform's, so the figures show "
      "that program on this device, not what XLA would compile for it");
}

absl::StatusOr<DeviceTarget> resolve_device(std::string_view device_text, const Module* module,
                                            const DeviceTargetOptions& options) {
  DeviceTarget target;
  std::string text(absl::StripAsciiWhitespace(sv(device_text)));
  if (text.empty()) {
    if (module == nullptr) {
      text = std::string(kDefaultTpuDevice);
      target.source = DeviceSource::kGuess;
      target.diagnostics.warnings.push_back(absl::StrCat("no ", options.device_option,
                                             " given and no module to read a platform from: ",
                                             text, ", the default device, a guess"));
    } else {
      DefaultDevice picked = default_device(*module, options.device_option);
      text = picked.device;
      target.source = picked.decided ? DeviceSource::kPlatform : DeviceSource::kGuess;
      (picked.decided ? target.diagnostics.notes : target.diagnostics.warnings).push_back(std::move(picked.note));
    }
  }
  const TopologyText split = split_topology_text(text);
  absl::StatusOr<NamedSlice> named = named_device(split.device);
  if (!named.ok()) return named.status();
  std::string shape = split.shape;
  if (!named->topology.empty()) {
    if (!shape.empty() && shape != named->topology) {
      return absl::InvalidArgumentError(absl::StrCat(
          split.device, " is the slice ", named->topology, "; for another give ",
          named->spec.name, ":", shape));
    }
    shape = named->topology;
    target.diagnostics.notes.push_back(std::move(named->note));
  }
  absl::StatusOr<DeviceSpec> spec = set_device_figures(named->spec, options.settings);
  if (!spec.ok()) return spec.status();
  if (!options.settings.empty()) {
    target.diagnostics.notes.push_back(
        absl::StrCat("device figures set: ", absl::StrJoin(options.settings, ", ")));
  }
  target.spec = *std::move(spec);
  if (module != nullptr && target.source == DeviceSource::kNamed) {
    // A device named for a module compiled for another platform: its fusions, layouts and
    // custom calls are that platform's, and so is its memory.
    PlatformInference p = infer_platform_of(*module);
    if (p.platform.empty()) p = options.compiled_for;
    if (std::string w = platform_mismatch(p, target.spec); !w.empty()) {
      target.diagnostics.warnings.push_back(std::move(w));
    }
  }
  const std::string option(absl::StripAsciiWhitespace(options.topology));
  if (!option.empty() && !shape.empty() && option != shape) {
    return absl::InvalidArgumentError(absl::StrCat(options.device_option, " ", text,
                                                   " says topology ", shape, " but ",
                                                   options.topology_option, " says ", option,
                                                   "; give one"));
  }
  const std::string slice = option.empty() ? shape : option;
  if (slice.empty()) {
    if (absl::Status s = split_megacore_inferred(module, target); !s.ok()) return s;
    return target;
  }
  if (absl::Status s = check_slice(target.spec, slice); !s.ok()) return s;
  if (absl::Status s = split_megacore(module, slice, target); !s.ok()) return s;
  absl::StatusOr<Topology> topology = make_topology(target.spec, slice);
  if (!topology.ok()) return topology.status();
  if (module != nullptr) {
    // Both counts come from the text: their product may not fit in int64.
    const int64_t used = saturating_mul(module->attributes().replica_count,
                                        module->attributes().num_partitions);
    const int64_t idle = topology->num_devices() - used;
    if (used > 0 && idle > 0) {
      target.diagnostics.notes.push_back(absl::StrCat(
          "topology ", slice, " holds ", topology->num_devices(),
          " devices; the module runs on ", used, " (replica_count x num_partitions), so ", idle,
          " sit idle"));
    }
  }
  target.slice = *std::move(topology);
  return target;
}

absl::StatusOr<DeviceTarget> spec_target(const DeviceSpec& spec, std::string_view topology,
                                         const Module* module,
                                         const PlatformInference& compiled_for) {
  if (absl::Status s = check_slice(spec, topology); !s.ok()) return s;
  DeviceTarget target{.spec = spec};
  if (!topology.empty()) {
    absl::StatusOr<Topology> slice = make_topology(spec, topology);
    if (!slice.ok()) return slice.status();
    target.slice = *std::move(slice);
  }
  if (module != nullptr && infer_platform_of(*module).platform.empty()) {
    if (std::string w = platform_mismatch(compiled_for, spec); !w.empty()) {
      target.diagnostics.warnings.push_back(std::move(w));
    }
  }
  return target;
}

KindDevice device_for_kind(std::string_view kind) {
  const std::string wanted = lower(kind);
  for (const auto& [name, device] : kTpuKinds) {
    if (wanted == name) return {std::string(device), "tpu", true};
  }
  for (const auto& [name, device] : kGpuKinds) {
    if (wanted == name) return {std::string(device), "gpu", true};
  }
  KindDevice out;
  if (wanted.rfind("tpu", 0) == 0) out.platform = "tpu";
  const bool gpu_vendor = wanted.find("nvidia") != std::string::npos ||
                          wanted.find("amd") != std::string::npos ||
                          wanted.find("radeon") != std::string::npos ||
                          wanted.find("instinct") != std::string::npos ||
                          wanted.find("gfx") != std::string::npos;
  if (gpu_vendor) out.platform = "gpu";
  if (wanted.find("nvidia") != std::string::npos) {
    for (const auto& [code, device] : kGpuCodes) {
      if (wanted.find(code) != std::string::npos) return {std::string(device), "gpu", false};
    }
  }
  // Every MI300X and MI325X names itself so ("AMD Instinct MI300X", "... MI300X VF" on cloud VMs).
  // ROCm's profile planes name no model, only the GFX version and compute units (the profile
  // reader writes "AMD GPU, compute capability 9.4, 304 compute units"): 9.4 with 304 CUs is an
  // MI300X, or an MI325X, which has more and faster HBM (the MI300A has 228 CUs).
  if (gpu_vendor && wanted.find("mi300x") != std::string::npos) return {"mi300x", "gpu", true};
  if (gpu_vendor && wanted.find("mi325x") != std::string::npos) return {"mi325x", "gpu", true};
  if (gpu_vendor && wanted.find("compute capability 9.4, 304 compute units") != std::string::npos) {
    return {"mi300x", "gpu", false};
  }
  return out;
}

}  // namespace hloroof
