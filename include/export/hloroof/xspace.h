// A predicted step as a profile that XProf opens: the XSpace protobuf that jax.profiler.trace
// writes (LOGDIR/plugins/profile/RUN/HOST.xplane.pb), so that XProf's overview, trace viewer,
// HLO op profile, HLO op stats and roofline model show the prediction as they show a measured
// run, and beside one (docs/xspace.md).
//
//   absl::StatusOr<Prediction> p = predict_step_time(module, "tpu_v5e");
//   absl::StatusOr<XSpaceFile> f = write_xspace(module, *p, spec, "/tmp/logdir");
//   f->path;      // /tmp/logdir/plugins/profile/predicted_tpu_v5e/hloroof-predicted.xplane.pb
//   f->unfilled;  // what XProf shows of a measured run that this file leaves empty
//
// TPUs: one plane /device:TPU:0 with the lines "XLA Modules" (one event per step), "XLA Ops"
// (one event per execution of an op, nested in its loop, metadata carrying the instruction's
// text, program id, category and costs) and "Async XLA Ops" (the async work). GPUs: one plane
// /device:GPU:0 whose kernels carry hlo_op, hlo_module, program_id and correlation_id, and the
// host's "MODULE:XLA GPU module" executions and kernel launches. The device's peaks sit where
// XProf's converters read them. Names say the run is predicted.
#ifndef HLOROOF_XSPACE_H_
#define HLOROOF_XSPACE_H_

#include <cstdint>
#include <functional>
#include <future>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "hloroof/device.h"
#include "hloroof/memory.h"
#include "hloroof/module.h"
#include "hloroof/predict.h"

namespace hloroof {

struct XSpaceOptions {
  int64_t steps = 1;  // predicted steps laid end to end (at most kMaxXSpaceSteps)
  // The run's folder under LOGDIR/plugins/profile; empty: "predicted_DEVICE".
  std::string run;
  std::string host = "hloroof-predicted";  // HOST.xplane.pb, and the space's host name
  // Files the file must not replace (the command's inputs; write_output_file's `inputs`).
  std::vector<std::string> inputs;
  // The module's program id (XProf keys ops by it and names the module "NAME(ID)"); 0: a
  // fingerprint of the module's name (FNV-1a, 64 bits).
  uint64_t program_id = 0;
  // Where the first step starts, ns since the Unix epoch (the profile's start time).
  int64_t start_time_ns = 0;
  // The most buffers the HloProto's buffer assignment describes (at least 1). A module with
  // more gets its allocations, this many of its largest buffers and no heap trace, and
  // `unfilled` says so.
  int64_t max_assigned_buffers = 500'000;
  // The memory analysis of the module on the device that the buffer assignment is written
  // from, when the caller has made it (with xspace_memory_options(), or options that place or
  // list as many buffers and list the allocations; perhaps while it made the prediction);
  // null: made here. Placed buffers (MemoryReport::placements) are written where it has them,
  // else its largest_buffers.
  // It must outlive the call.
  const MemoryReport* memory = nullptr;
  // Where `memory` is null: that analysis while it is still being made (on another thread),
  // so that the device's planes are laid out meanwhile; the buffer assignment waits for it. A
  // null report, or a promise given up without one, is a failed analysis (made again here,
  // which says why). No future: made here.
  std::shared_future<const MemoryReport*> memory_future;
  // Called once the report given (`memory`, or the future's) has been read for the last time,
  // on the thread that read it: its owner may free it from then on (a module's every buffer
  // described takes megabytes, held no longer than the XSpace needs them). Not called where
  // no report was given or the future gave none.
  std::function<void()> memory_read;
  // Called once the prediction's timeline has been read for the last time (the step is laid
  // out from it before the device's planes are written), on the thread that read it: its owner
  // may free the timeline from then on (gemma3 4b: 1.9 MB), while the rest of the prediction
  // is still read. Called once, but not where the options are refused (steps out of range).
  std::function<void()> timeline_read;
  // Threads that may make the file, each taking the next of three parts: the HloProto's buffer
  // assignment (and its memory analysis, when `memory` is null), the device's planes, the
  // HloProto's module. More than 2 are 2: a third part made beside two saves no time and holds
  // more at once. The bytes are the same either way: protobuf's deterministic serialization
  // (map entries in order of their keys), the same for the same prediction and options.
  int threads = 1;
};

// The options of the memory analysis the XSpace's buffer assignment comes from: the
// max_assigned_buffers largest buffers placed (MemoryOptions::placements), the allocations, no
// live-bytes curve or timeline.
MemoryOptions xspace_memory_options(const XSpaceOptions& options);

inline constexpr int64_t kMaxXSpaceSteps = 1000;

// What the device planes of a predicted XSpace say after their device's name (their
// `device_type_string` stat), and its warning: "(predicted by hloroof, not measured)".
inline constexpr char kPredictedByHloroof[] = "predicted by hloroof, not measured";

struct XSpaceFile {
  std::string path;       // the file written (write_xspace) or empty (prediction_to_xspace)
  // The serialized XSpace (prediction_to_xspace); write_xspace writes each plane into the file
  // as soon as it is laid out and leaves this empty.
  std::string bytes;
  uint64_t program_id = 0;
  int64_t events = 0;     // timeline events written, every plane
  // What XProf shows of a measured run that this file does not fill, one line each.
  std::vector<std::string> unfilled;
};

// The serialized XSpace of `prediction`, which was predicted for `module` on `device` (ops are
// found by name, so a prediction from the module's text serves too). Errors: steps out of
// [1, kMaxXSpaceSteps].
absl::StatusOr<XSpaceFile> prediction_to_xspace(const Module& module, const Prediction& prediction,
                                                const DeviceSpec& device,
                                                const XSpaceOptions& options = {});

// An error where `log_dir` names no folder an XSpace can be written under: an empty path (which
// would write into the working folder) or one holding a NUL byte.
absl::Status check_xspace_log_dir(std::string_view log_dir);

// An error where the file LOG_DIR/plugins/profile/RUN/FILE_NAME (`what` in the message: "the
// XSpace") may not be written: a symbolic link planted at it or at a folder on the way would
// send it over another file, and anything there but a regular file (a named pipe would block
// the writer forever) is no profile. What a log folder holds is written by profilers only.
absl::Status check_log_folder_file(std::string_view log_dir, std::string_view run,
                                   std::string_view file_name, std::string_view what);

// The same, written to LOG_DIR/plugins/profile/RUN/HOST.xplane.pb (folders made as needed).
// Errors: those of prediction_to_xspace and check_xspace_log_dir, a run or host name that is not
// one plain file name, a folder or file that cannot be written.
absl::StatusOr<XSpaceFile> write_xspace(const Module& module, const Prediction& prediction,
                                        const DeviceSpec& device, std::string_view log_dir,
                                        const XSpaceOptions& options = {});

// What a command prints after writing the file: its path, how to open it, and what XProf
// shows of a measured run that it leaves empty; lines of at most 100 columns.
std::string render_xspace_summary(const XSpaceFile& file, std::string_view log_dir);

}  // namespace hloroof

#endif  // HLOROOF_XSPACE_H_
