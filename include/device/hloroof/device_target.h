// The device and slice a module runs on, from the words a person gives: one rule for the
// library, the command (`--device`) and Python (`device=`).
//
//   absl::StatusOr<hloroof::DeviceTarget> t = hloroof::resolve_device("v5litepod-16", &module);
//   t->spec.name;  // "tpu_v5e"
//   t->topology;   // "4x4"
//
// Accepted, letter case ignored:
//   - a built-in name or alias, `hloroof devices` lists them: "tpu_v5e", "v5e", "h100-sxm";
//   - a JSON spec path (data/hardware/README.md): "my_h100.json", "specs/v5e";
//   - a JAX device kind, what `jax.devices()[0].device_kind` says: "TPU v5 lite", "TPU7x",
//     "NVIDIA H100 80GB HBM3" (device_for_kind);
//   - a Cloud TPU accelerator type: "v5litepod-16", "v6e-8" (chips), "tpu7x-8", "v5p-8",
//     "v4-32", "v3-8", "v2-8" (TensorCores, two per chip), which names the slice as well;
// each but the last optionally followed by `:TOPOLOGY` (`tpu_v5e:4x4`, `h100:2x8`,
// `tpu_v5e:4x4,slices=2`; make_topology's syntax).
#ifndef HLOROOF_DEVICE_TARGET_H_
#define HLOROOF_DEVICE_TARGET_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hloroof/device.h"
#include "hloroof/diagnostics.h"
#include "hloroof/topology.h"

namespace hloroof {

class Module;

// How the device was chosen.
enum class DeviceSource {
  kNamed,     // the text named it
  kPlatform,  // no name: the default device of the platform the module was compiled for
  kGuess,     // no name, and nothing in the module tells a platform with built-in devices
};
std::string_view device_source_name(DeviceSource source);  // "named", "platform", "guess"

// A checked device and slice.
struct DeviceTarget {
  DeviceSpec spec;
  // The slice as make_topology reads it (its shape: "4x4", "2x2x1,slices=2", "2x8"); from
  // resolve_device, a slice the device has (check_slice). nullopt: none given, the smallest that
  // holds the module is inferred (infer_topology).
  std::optional<Topology> slice;
  DeviceSource source = DeviceSource::kNamed;
  // What the reader should know (notes), one sentence each, for a report's assumptions: the
  // device chosen for the module's platform, what a device kind or accelerator type stands for,
  // figures set, chips of the slice that sit idle; and what the reader must know before the
  // figures (warnings): the device is a guess.
  Diagnostics diagnostics;
};

struct PlatformInference {
  // "gpu", "tpu", "cpu" (XLA:CPU, oneDNN, LAPACK), "neuron" (AWS Neuron); "" when nothing
  // tells.
  std::string platform;
  // The first marker found: `custom call "te_fused_attn_forward_ffi"`, `backend config
  // "operation_queue_id"`, `tiled layout`; empty when nothing tells.
  std::string marker;
  std::string instruction;  // the instruction that holds it
};

struct DeviceTargetOptions {
  // A topology given apart from the device (the command's --topology, Python's topology=).
  // Empty: the text's. Given as well as the text's, the two must be the same.
  std::string topology;
  // `PATH=VALUE` changes of the spec's figures (set_device_figures; the command's --set).
  std::vector<std::string> settings;
  // How the caller names the two, in messages: "--device" and "--topology" for the command,
  // "device=" and "topology=" for Python.
  std::string device_option = "--device";
  std::string topology_option = "--topology";
  // What the caller knows of the module's platform besides its text (XLA's dump file name,
  // platform_of_file_name; a JAX object's devices), for when the text tells nothing.
  PlatformInference compiled_for;
};

// The warning for a module compiled for one platform and predicted on a device of another (a
// CPU module on any device, a GPU module on a TPU, a TPU module on a GPU); "" when they agree
// or nothing tells.
std::string platform_mismatch(const PlatformInference& compiled_for, const DeviceSpec& device);

// Resolves `text` (above) for `module`. Empty text: the default device of the module's
// platform (default_device; the notes or, when it is a guess, the warnings say so), or tpu_v5e
// without a module (a guess: the warnings say so). With `module`, a slice with more devices
// than the module runs on (replica_count x num_partitions) is noted.
// Errors: an unknown name, with the closest known one ("did you mean 'tpu_v5e'?"); a spec file
// that does not read; an accelerator type whose count is no slice of the device; a topology the
// device cannot have (check_slice, make_topology); a topology option that contradicts the
// text's; a setting the spec refuses.
absl::StatusOr<DeviceTarget> resolve_device(std::string_view text, const Module* module,
                                            const DeviceTargetOptions& options = {});

// A spec given whole (one a caller made or changed, not a name) as a target on the slice
// `topology`: checked as a named device's slice is (check_slice) and parsed; empty: none given,
// inferred from the module. With `module`, a module that `compiled_for` says was compiled for
// another platform, its text telling none, is warned of (platform_mismatch).
absl::StatusOr<DeviceTarget> spec_target(const DeviceSpec& spec, std::string_view topology,
                                         const Module* module = nullptr,
                                         const PlatformInference& compiled_for = {});

// Whether a real slice of `device` has the shape `topology` ("4x4", "2x2x4,slices=2"): a 2D-torus
// TPU (v2, v3, v5e, v6e) has power-of-two sides, the long one at most twice the short one (1x1,
// 2x2, 2x4, 4x4, ..., 16x16); a 3D TPU whose axes wrap in whole cubes (v4, v5p, TPU7x) has 1x1x1,
// 1x1x2, 1x2x2, 2x2x2, 2x2x4, 2x4x4, or every side a multiple of the cube (4), in any order.
// GPUs and malformed shapes pass (make_topology explains those). The error lists the shapes.
absl::Status check_slice(const DeviceSpec& device, std::string_view topology);

// The built-in device of a device kind as JAX (`device_kind`) and profiles (an XSpace plane's
// `device_type_string` or `gpu_device_name`, a capture's meta.json) name it: "TPU v6 lite" ->
// tpu_v6e, "NVIDIA H100 80GB HBM3" -> h100 (letter case ignored). Another model of a built-in
// GPU ("NVIDIA H100 PCIe") gives that GPU, with `exact` false. Empty when no built-in device
// is that kind. Python's JAX objects are read by the same table.
struct KindDevice {
  std::string device;    // "tpu_v6e", "h100"; empty: none
  std::string platform;  // "tpu" or "gpu" when the kind names one, even without a device
  bool exact = false;
};
KindDevice device_for_kind(std::string_view kind);

}  // namespace hloroof

#endif  // HLOROOF_DEVICE_TARGET_H_
