// The experiment beside the hypothesis: a measured JAX profile read and joined, op by op, with
// the prediction for the same module, and device efficiencies fitted to such profiles.
//
//   absl::StatusOr<hloroof::Profile> prof = hloroof::read_profile("/tmp/jax-trace");
//   absl::StatusOr<hloroof::Prediction> p = hloroof::predict_step_time(module, "h100");
//   absl::StatusOr<hloroof::ProfileComparison> c =
//       hloroof::compare_with_profile(module, *p, *prof);
//   c->measured_step_s;        // the median measured step
//   c->ops.front().lost_s;     // the op that lost the most time against its expectation
//
// Profiles: the XSpace protobuf that jax.profiler.trace writes
// (DIR/plugins/profile/RUN/HOST.xplane.pb), and Chrome trace-event JSON (perfetto_trace.json.gz
// from create_perfetto_trace=True, TensorBoard's *.trace.json.gz), gzipped or not.
// Times are in seconds, per step on one device.
#ifndef HLOROOF_PROFILE_H_
#define HLOROOF_PROFILE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hloroof/device.h"
#include "hloroof/module.h"
#include "hloroof/predict.h"
#include "hloroof/xspace_modules.h"

namespace hloroof {

// One timed event of a profile, on the profile's clock.
struct ProfileEvent {
  std::string name;  // a kernel, an HLO op ("fusion.3"), a module ("jit_step(12)")
  double start_s = 0;
  double duration_s = 0;
  std::string hlo_op;      // the event's `hlo_op` stat: the HLO instruction a GPU kernel runs
  std::string hlo_module;  // the event's `hlo_module` stat
  // The `correlation_id` stat: a GPU kernel and the host call that launched it share it.
  // 0: none.
  uint64_t correlation_id = 0;
};

// Stats that only some profiles' events have, kept beside the events (ProfileLine::extra) so
// that an event of a profile without them takes no more memory.
struct ProfileEventExtra {
  // The `program_id` stat: the compiled module (XSpace names it "NAME(PROGRAM_ID)"); 0: none.
  uint64_t program_id = 0;
  // TPU ops: the `device_offset_ps` and `device_duration_ps` stats, the op on the chip's own
  // clock (the event's own start and duration are moved onto the host's clock, and where two
  // ops meet there one of them can be cut short, even to nothing); -1: none.
  double device_start_s = -1;
  double device_duration_s = -1;
};

// A timeline row: "XLA Modules", "XLA Ops", a GPU stream "Stream #7(...)".
struct ProfileLine {
  std::string name;
  std::vector<ProfileEvent> events;
  // Empty when no event of the line has such stats, else one per event, in the same order.
  std::vector<ProfileEventExtra> extra;
};

// XLA's own cost of one op, from the stats of a TPU profile's "XLA Ops" event metadata; -1
// where the profile does not give the figure.
struct XlaOpCost {
  std::string op;           // the instruction's name ("fusion.3")
  uint64_t program_id = 0;  // the module's program id (the `program_id` stat); 0: none
  double flops = -1;
  double model_flops = -1;
  double bytes_accessed = -1;
};

// A device or a host: "/device:GPU:0", "/device:TPU:0", "/host:CPU".
struct ProfilePlane {
  std::string name;
  std::vector<ProfileLine> lines;
  // What the plane says the device is: its `device_type_string` stat on TPU ("TPU v6 Lite"),
  // `gpu_device_name` on GPU ("NVIDIA H100 80GB HBM3"); empty when it says nothing.
  std::string device_type;
  std::vector<XlaOpCost> xla_op_costs;  // one per op of the "XLA Ops" line that has any
};

struct Profile {
  std::string origin;  // the file read
  std::string format;  // "xplane" or "trace-json"
  std::vector<ProfilePlane> planes;
  std::vector<ProfileModuleProto> module_protos;  // XSpace only
};

// True when the profile is an XSpace hloroof wrote (`predict --xspace`, `profile --xspace`):
// its device planes say they were "predicted by hloroof, not measured". Such a profile is read
// (measure_module reads it as a profile of the module), but never taken for a measurement:
// compare_with_profile and calibrate refuse it (predicted_profile_error), and a log folder's
// runs are searched past it (read_profile).
bool is_predicted_profile(const Profile& profile);
// The error for such a profile given as a measurement; OK for any other.
absl::Status predicted_profile_error(const Profile& profile);

// The device kind the profile's device planes name ("TPU v6 Lite"), the first one found; empty
// when none does (trace JSON, old profiles).
std::string profile_device_type(const Profile& profile);

// The module a profile carries to read: the one `name` picks (a name "jit_step", a full name
// "jit_step(12)", or a program id "12"), by default the one whose executions took the most time
// in the profile (on TPU the "XLA Modules" line, on GPU the host's "NAME:XLA GPU module"
// events), the latest compiled of equal ones. `note` (if given) says which was read and what
// else there is. Errors: the profile carries no module, or none is named so (they are listed).
absl::StatusOr<const ProfileModuleProto*> pick_profile_module(const Profile& profile,
                                                              std::string_view name,
                                                              std::string* note = nullptr);

// A module a profile carries and the time its executions took in the profile (seconds, over
// all its devices; 0 when no event names it).
struct ProfileModuleTime {
  std::string name;  // "jit_step(12)"
  double time_s = 0;
};

// Every module the profile carries, the longest run first (ties in name order): what
// pick_profile_module chooses among.
std::vector<ProfileModuleTime> profile_module_times(const Profile& profile);

// The program id a profile's module name carries: "jit_f(12)" -> 12; 0 when it names none.
uint64_t profile_program_id(std::string_view name);

// The program id of the module given among the profile's programs named `name` ("jit_dot":
// recompiles and shape sweeps make many): the one whose HloProto's entry has the module's
// entry's ops and shapes, in order. Nothing when fewer than two programs are so named (the name
// alone tells). An error, listing them, when several are and none holds the module. `note` (if
// given) says which was joined.
absl::StatusOr<std::optional<uint64_t>> profile_program_of(const Profile& profile,
                                                           const Module& module,
                                                           std::string_view name,
                                                           std::string* note = nullptr);

// Reads a profile from a file (.xplane.pb, .json, .json.gz), a run folder holding one, a
// profile directory (DIR/plugins/profile/RUN/, the newest run), or a capture folder of
// tools/capture (its profile/ subfolder). An XSpace file is preferred to a JSON one. The file
// gets the checks of read_input_file (a regular file, at most kMaxProfileFileBytes).
absl::StatusOr<Profile> read_profile(std::string_view path);
// An XSpace protobuf. Bytes of names and strings that are not UTF-8 are replaced by U+FFFD.
absl::StatusOr<Profile> parse_xspace(std::string_view bytes, std::string_view origin);
// Chrome trace-event JSON, gzipped (one member or several, as `cat a.gz b.gz` makes) or not:
// "X" events grouped by process (plane) and thread (line) names; `args.hlo_op` and
// `args.hlo_module` as the XSpace stats. Read as a stream: only the events used are kept.
absl::StatusOr<Profile> parse_trace_json(std::string_view bytes, std::string_view origin);

// The plane of device `index`: the one named "/device:GPU:N" or "/device:TPU:N" (or naming
// "GPU:N" / "TPU:N"). Errors list the planes there are.
absl::StatusOr<const ProfilePlane*> device_plane(const Profile& profile, int index = 0);

// One execution of an op on the device, for the trace.
struct MeasuredEvent {
  std::string op;      // the HLO instruction
  std::string name;    // the kernel's or event's own name
  std::string track;   // the profile line it ran on
  double start_s = 0;  // from the start of its step
  double duration_s = 0;
};

struct MeasuredOp {
  std::string name;   // the HLO instruction
  double time_s = 0;  // per step: every kernel of every execution, summed
  // Executions per step: the events of the op's most frequent kernel (one execution may launch
  // several kernels: a library GEMM clears its workspace first).
  double occurrences = 0;
  double launches = 0;  // events (kernels launched) per step
  int64_t kernels = 0;  // distinct kernel (event) names
  // The op's time in its fastest and its slowest step: the run-to-run spread.
  double step_min_s = 0;
  double step_max_s = 0;
  // Its kernels were placed by launch order (CUDA graphs, async wrappers), and an equally good
  // placement gives one of them to another instruction: its time is not certain.
  bool alignment_uncertain = false;
  // An async start whose work the profile shows on a line of its own (TPU's "Async XLA Ops":
  // a copy-start's transfer from its start to its done): that work per step. time_s is then
  // the start's own event (the issue, nanoseconds on TPU). 0: none.
  double async_s = 0;
};

// The module's executions in one device plane.
struct MeasuredModule {
  std::string plane;
  std::string module;
  int64_t steps = 0;            // executions of the module seen
  std::vector<double> steps_s;  // each one's duration, in order
  double step_s = 0;            // the median (the lower of the middle two)
  // The median step's time with some op of the module running (the union of its events).
  double busy_s = 0;
  std::vector<MeasuredOp> ops;             // by name
  std::vector<MeasuredEvent> median_step;  // the events of the median step, by start
  std::vector<std::string> notes;          // how steps were found
};

struct ProfileOptions {
  // The plane "/device:GPU:N" / "/device:TPU:N". When plane 0 has no op event of the module
  // (a profile whose kernels ran on GPU:7 alone) and device_index is 0, the first device plane
  // that has some is read, and a note says so.
  int device_index = 0;
  // The module's name in the profile; empty: the module's own name (Module::name()).
  std::string module_name;
  // The module's program id ("jit_f(12)": 12), when the profile names several programs alike:
  // op events whose program_id stat names another are left out. 0: any.
  uint64_t program_id = 0;
};

// Finds the module's executions (steps) on the device plane, then the time of each HLO op
// within them. GPU kernels map to ops through their `hlo_op` stat, several kernels of one op
// adding up; without such stats (TPU) the events of the "XLA Ops" line are ops by name, and an
// event enclosing others of its line (a loop) counts as its children.
// Steps are the module's events on the "XLA Modules" line ("NAME" or "NAME(ID)", or an
// `hlo_module` stat of NAME). Without that line (JAX's GPU profiles have none), the host's
// "NAME:XLA GPU module" events are the executions, and each kernel belongs to the one that
// launched it (the launch and the kernel share a `correlation_id`). Without either, the profile
// is one step from the first op to the end of the last.
absl::StatusOr<MeasuredModule> measure_module(const Profile& profile, std::string_view module,
                                              const ProfileOptions& options = {});
// The same, knowing the module: kernels that ran inside CUDA graphs (XLA's command buffers,
// whose kernels carry the command buffer's name, "command_buffer_8", as their hlo_op) are given
// their instructions: by the kernel's name (XLA names a fusion's kernel after it, with
// characters outside [A-Za-z0-9_] made '_'), and library calls, memcpy and memset nodes between
// such kernels by launch order against the schedule. What cannot be told keeps the command
// buffer's name.
absl::StatusOr<MeasuredModule> measure_module(const Profile& profile, const Module& module,
                                              const ProfileOptions& options = {});

// An HLO op measured and predicted. Times per step (one execution times occurrences).
struct JoinedOp {
  std::string name;
  std::string opcode;
  std::string category;  // the prediction's ("loop fusion", "all-gather", ...)
  std::string bound;     // op_bound_name of the prediction
  double measured_s = 0;
  double expected_s = 0;  // an async collective's start: its own latency, not the wait
  double roofline_s = 0;
  double occurrences = 0;  // measured executions per step (MeasuredOp::occurrences)
  double launches = 0;     // measured kernel launches per step
  double predicted_occurrences = 0;
  int64_t kernels = 0;
  double lost_s = 0;  // measured - expected
  // An async start measured on the profile's async line (MeasuredOp::async_s): measured_s is
  // that work (a host-offload copy's transfer), compared with the start's expected work.
  bool measured_async = false;
  // An async start's done, where measured_async: the op whose row is this transfer's wait.
  std::string async_done;
  // Per execution: hloroof's cost (FLOPs; bytes read and written in HBM and host memory)
  // and, where the profile gives them (TPU's "XLA Ops" metadata), XLA's own: its `flops`,
  // `model_flops` and `bytes_accessed` stats; -1 where it does not.
  double flops = 0;
  double bytes_accessed = 0;
  double xla_flops = -1;
  double xla_model_flops = -1;
  double xla_bytes_accessed = -1;
  // MeasuredOp::alignment_uncertain: the measured time may hold another op's kernels; such ops
  // are not ranked.
  bool alignment_uncertain = false;
};

// An op seen on one side only: in the profile but not predicted ("measured"), or predicted
// but never seen in the profile ("predicted").
struct UnmatchedOp {
  std::string name;
  std::string side;    // "measured" or "predicted"
  std::string opcode;  // predicted side only
  double time_s = 0;   // per step, on its side
  double occurrences = 0;
};

// A category of the step gap: "matmul", "memory-bound", "other ops", "collectives exposed",
// "idle". Measured op rows are kernel time; expected ones the prediction's critical-path time.
struct GapRow {
  std::string category;
  double measured_s = 0;
  double expected_s = 0;
  double gap_s = 0;  // measured - expected
  // gap_s / the sum of every category's |gap_s|, in [-1, 1] (categories can offset each other,
  // so a share of the net step gap would not be bounded); 0 when no category has a gap.
  double share = 0;
};

struct ProfileComparison {
  std::string device;
  std::string plane;
  std::string module;
  std::string profile;  // the file read
  int64_t steps = 0;
  double measured_step_s = 0;  // median
  double expected_step_s = 0;
  double roofline_step_s = 0;
  double busy_s = 0;                   // the median step's union of op events
  double idle_s = 0;                   // median step - busy
  // Ranked by lost_s, most first; those whose alignment is uncertain after all others.
  std::vector<JoinedOp> ops;
  std::vector<UnmatchedOp> unmatched;  // by time, most first
  std::vector<GapRow> gaps;
  std::vector<std::string> notes;
  MeasuredModule measured;  // what the profile held
};

// Joins the prediction of `module` with its measured executions in `profile`.
absl::StatusOr<ProfileComparison> compare_with_profile(const Module& module,
                                                       const Prediction& prediction,
                                                       const Profile& profile,
                                                       const ProfileOptions& options = {});

// {"device", "plane", "module", "profile", "steps", "step": {"measured_s", "expected_s",
//  "roofline_s"}, "busy_s", "idle_s", "ops": [{"name", "opcode", "category", "bound",
//  "measured_s", "expected_s", "roofline_s", "occurrences", "launches", "predicted_occurrences",
//  "kernels", "lost_s", "measured_over_expected", "measured_over_roofline",
//  "alignment_uncertain"}],
//  "unmatched": [{"name", "side", "opcode", "time_s", "occurrences"}],
//  "gaps": [{"category", "measured_s", "expected_s", "gap_s", "share"}], "notes"}.
std::string profile_comparison_to_json(const ProfileComparison& comparison);
// The summary, the gap per category, the top ops by time lost and the unmatched ones; lines
// of at most 100 columns.
std::string render_profile_comparison(const ProfileComparison& comparison, size_t top = 20);
// One Perfetto trace: the median measured step ("measured: LINE" tracks) and the predicted
// step ("predicted: TRACK" tracks) from time 0, slices named by the HLO op.
std::string profile_comparison_to_trace_json(const ProfileComparison& comparison,
                                             const Prediction& prediction);

// ---- Calibration -------------------------------------------------------------------------

// One profiled run: its module and profile.
struct CalibrationRun {
  const Module* module = nullptr;
  const Profile* profile = nullptr;
  std::string label;  // for the report, e.g. the profile's path
  // The profile's program of the module ("jit_dot(21)": 21), told from other programs of its
  // name; 0: the one whose entry is the module's (profile_program_of), as `profile` joins it.
  uint64_t program_id = 0;
};

struct CalibrationOptions {
  ProfileOptions profile;  // module_name is ignored: each run's module names itself
  PredictOptions predict;
  // The slice, as the command's --topology gives it; empty: the device's (DEVICE:SHAPE), else
  // inferred.
  std::string topology;
  std::string name;  // the fitted device's name; empty: DEVICE_fitted
  // `PATH=VALUE` changes of the given device's figures, made before the fit (as the command's
  // --set: set_device_figures, e.g. "hbm.bandwidth=3e12"); the fit starts from them and the
  // written device keeps them, its notes naming them.
  std::vector<std::string> settings;
};

// Error of a model against the measured ops of one class: the root mean square of
// (predicted - measured) / measured over the class's ops (per execution).
struct ClassError {
  std::string op_class;  // "matmul", "memory", "collective", "other", "all"
  int64_t ops = 0;
  double before = 0;  // with the device as given
  double after = 0;   // with the fitted figures
};

struct FittedFigure {
  std::string field;  // "matmul_efficiency", "hbm_efficiency", "per_op_overhead", ...
  double before = 0;  // the given device's figure
  double after = 0;
  bool fitted = false;  // false: kept as given (`why` says why)
  std::string why;
  // The model the given device really applies to these ops in place of `before`, when it has
  // one: e.g. "gemm table h100 (measured, interpolated)" for matmul_efficiency on an H100.
  std::string given_model;
};

// One capture's step: measured (the median step), as the given device predicts it, and as the
// fitted figures predict it.
struct CalibrationStep {
  std::string label;
  double measured_s = 0;
  double given_s = 0;
  double fitted_s = 0;
  // The prediction is a floor (an assumed trip count, an op of unknown cost): not counted in
  // the verdict.
  bool lower_bound = false;
};

struct CalibrationResult {
  // Whether the fit is kept: false when it predicts the held-out steps (with one profile: the
  // profile's own step) worse than the given device does. `device` and `json` are then empty,
  // and `rejected_why` says what the fit would have done.
  bool accepted = true;
  std::string rejected_why;
  DeviceSpec device;  // the fitted device
  std::string json;   // the fitted device as a device JSON file (data/hardware/README.md)
  std::vector<FittedFigure> figures;
  std::vector<ClassError> errors;  // in-sample, per op
  std::vector<CalibrationStep> steps;  // in-sample, per capture
  // With several runs: each run predicted by the figures fitted to the others (leave one
  // out): the RMS op error ("all" class) and the step error, |predicted / measured - 1|.
  struct HeldOut {
    std::string label;
    double before = 0;
    double after = 0;
    double step_before = 0;
    double step_after = 0;
    bool lower_bound = false;  // not counted in the verdict
  };
  std::vector<HeldOut> held_out;
  int64_t ops_used = 0;
  // Measured ops left out of the fit: their kernels' placement is uncertain, their cost is
  // unknown, or they are outliers (more than 4x from the model that the other ops agree on).
  int64_t ops_left_out = 0;
  std::vector<std::string> notes;
};

// Fits matmul_efficiency, hbm_efficiency and per_op_overhead (and on GPUs, from the
// collectives inside one node, the collective latency and a factor on their bandwidth; from
// those whose groups cross nodes, interconnect.nic_efficiency) to the measured ops of the runs
// by weighted least squares: each op's execution time against the roofline terms of
// the bound the fitted figures give it, weighted by 1 / measured so every op counts alike.
// Ops whose kernels were placed uncertainly, ops of unknown cost and outliers (an op more than
// 4x, or 4 median absolute deviations, from what the given model and then the fit predict,
// relative to the other ops: a mis-joined kernel) are left out.
// The fit is kept only if it predicts steps better than the given device: with several runs,
// each run's step predicted by the fit to the others (leave one out), their mean |error|; with
// one, the run's own step. Otherwise `accepted` is false and the given device stays.
// `device` is resolved as the command's --device (resolve_device, hloroof/device_target.h),
// for the first run's module; a topology in it and `options.topology` must agree.
absl::StatusOr<CalibrationResult> calibrate(absl::Span<const CalibrationRun> runs,
                                            std::string_view device,
                                            const CalibrationOptions& options = {});
std::string render_calibration(const CalibrationResult& result);

}  // namespace hloroof

#endif  // HLOROOF_PROFILE_H_
