// The JSON documents of the commands that describe rather than analyze, for every caller: the
// command and Python's to_json() write the same bytes.
//
//   `hloroof devices --json`        device_summaries_to_json(specs)
//   `hloroof devices NAME --json`   device_spec_to_json(spec)
//   `hloroof parse FILE --json`     parse_summary_to_json(file, module, warnings), or
//                                   parse_failure_to_json(file, status)
//   `hloroof shape TEXT --json`     shape_to_json(shape)
//
// Sizes in bytes, rates per second; each document ends with a newline.
#ifndef HLOROOF_SUMMARY_JSON_H_
#define HLOROOF_SUMMARY_JSON_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hloroof/device.h"
#include "hloroof/module.h"
#include "hloroof/shape.h"

namespace hloroof {

// [{"name", "display_name", "kind", "bf16_peak_flop_per_s", "hbm_capacity_bytes",
//   "hbm_bandwidth_bytes_per_s", "interconnect": {"type": "ici_torus" | "nvlink", ...}}], one
// object per device, in the order given. Errors: a device without a bf16 matrix rate.
absl::StatusOr<std::string> device_summaries_to_json(absl::Span<const DeviceSpec> devices);

// The spec itself (data/hardware/README.md), indented: a file of it is a device for every
// command. Errors: a spec that does not carry its JSON.
absl::StatusOr<std::string> device_spec_to_json(const DeviceSpec& device);

// One line: {"file", "ok": true, "module", "computations", "instructions", "entry_marked",
// "warnings", "opcodes": {OPCODE: instructions}}.
std::string parse_summary_to_json(std::string_view file, const Module& module,
                                  const std::vector<std::string>& warnings);
// One line: {"file", "ok": false, "error": {"line", "column", "message"}}; the line and column
// only when `status` is a parse error that has them.
std::string parse_failure_to_json(std::string_view file, const absl::Status& status);

// {"shape", "elements", "logical_bytes", "padded_bytes", "padding_factor", "memory_space",
//  "memory_space_name", "padded_bytes_by_memory_space": {"device", "on_chip", "host"}}.
// Errors: those of shape_size.
absl::StatusOr<std::string> shape_to_json(const Shape& shape);

// ---- The words these documents and the commands' text share.
// The memory space of a shape: its array leaves' when they agree (0 when it has none), else -1
// (mixed).
int64_t common_memory_space(const Shape& shape);
// What a memory space is: "device (HBM)", "on-chip (VMEM-class)", "host", ...
std::string_view memory_space_name(int64_t space);
// A torus's wraparound rule: "no wraparound", "wraps on axes of 16", "wraps on whole 4x4x4
// cubes".
std::string describe_wraparound(const Wraparound& wraparound);

}  // namespace hloroof

#endif  // HLOROOF_SUMMARY_JSON_H_
