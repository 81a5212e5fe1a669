// One module analysed on one device: its prediction, memory analysis, advice and XSpace, made
// at the same time where they do not depend on each other, and each large structure freed as
// soon as nothing left to make reads it. The command's `predict` is this and its rendering.
//
//   hloroof::Analysis analysis(loaded->module, *target,
//                              {.memory = hloroof::MemoryOptions{.live_curves = false},
//                               .advise = hloroof::AdviseOptions{.top = 5}});
//   if (absl::Status s = analysis.run(); !s.ok()) return s;
//   analysis.prediction()->step_time_s;
//   absl::StatusOr<hloroof::Advice> advice = analysis.advice();
#ifndef HLOROOF_ANALYSIS_H_
#define HLOROOF_ANALYSIS_H_

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hloroof/advise.h"
#include "hloroof/device_target.h"
#include "hloroof/load.h"
#include "hloroof/memory.h"
#include "hloroof/module.h"
#include "hloroof/predict.h"
#include "hloroof/profile.h"
#include "hloroof/xspace.h"

namespace hloroof {

struct AnalysisOptions {
  // The prediction's options; its slice is the device target's, as resolving it parsed it.
  PredictOptions predict;
  // The memory analysis that memory() gives, made beside the prediction (neither reads the
  // other's results); unset: none. advice() reads it.
  std::optional<MemoryOptions> memory;
  // advice(): the findings of the prediction alone are made on the prediction's thread while
  // the memory analysis runs, the rest by advice(). Unset: no advice. Needs `memory`.
  std::optional<AdviseOptions> advise;
  // Not empty: the predicted step is written as an XSpace into this log folder once the
  // prediction is made, while the memory analysis its buffer assignment needs may still run
  // (the device's planes are laid out meanwhile). One analysis then lists every buffer and
  // allocation; memory() is that one narrowed to `memory`'s options, and the rest of it freed as
  // soon as the XSpace has read it. write_xspace() gives the file.
  std::string xspace_dir;
  // The XSpace's options; start_time_ns 0: the time it is written. The analysis sets
  // memory_future and memory_read, and timeline_read unless `keep_timeline`.
  XSpaceOptions xspace;
  // Keep the prediction's timeline after the XSpace has read it (a trace written afterwards
  // reads it); false frees it then.
  bool keep_timeline = false;
  // Threads that run at once (the prediction beside the memory analysis); 1: one after the
  // other.
  int threads = 1;
  // Called once with the prediction, on the thread that made it, before the XSpace reads it:
  // what the caller adds to it (diagnostics, assumptions), and what it makes of it while the
  // memory analysis still runs (a report). Not called for a failed prediction.
  std::function<void(Prediction&)> predicted;
};

class Analysis {
 public:
  // The module and the device target must outlive the analysis.
  Analysis(const Module& module, const DeviceTarget& device, AnalysisOptions options = {});
  Analysis(Analysis&&) noexcept;
  Analysis& operator=(Analysis&&) noexcept;
  ~Analysis();

  // Makes what the options ask for (once; later calls return the same status). Errors: the
  // prediction's, else the XSpace's. The memory analysis's error is memory()'s and advice()'s.
  absl::Status run();

  // The prediction (the caller may add to it), the memory analysis (an error where the options
  // asked for none), the XSpace written (an error where none was asked for): each runs run()
  // first where it has not run. Once it has, they may be called from several threads at once.
  absl::StatusOr<Prediction>& prediction();
  const absl::StatusOr<MemoryReport>& memory();
  const absl::StatusOr<XSpaceFile>& write_xspace();
  // Once: the advice (AdviseOptions as given), or why there is none (the memory
  // analysis failed, or the options asked for no advice). It reads the prediction and the
  // memory analysis only: other work that reads them may run beside it.
  absl::StatusOr<Advice> advice();

  const DeviceSpec& device() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// ---- One module on several devices: the command's `compare` is this and its rendering.
//
//   std::vector<hloroof::DeviceTarget> devices = ...;  // resolve_device, one per device
//   hloroof::DeviceComparison c = hloroof::compare_devices(module, devices, {.threads = 4});
//   c.predictions[1]->step_time_s / c.predictions[0]->step_time_s;

struct DeviceComparisonOptions {
  // Each device's prediction options; its slice is the device target's.
  PredictOptions predict;
  // Set: the devices after the first keep their `later_ops` costliest ops only (records made
  // for those only where it is above 0), as a table that shows every op of the first device and
  // the top ones of the others needs.
  std::optional<size_t> later_ops;
  // Analyse the module's memory once (it depends on no device: the footprint of XLA's buffer
  // assignment), beside the first device's prediction, and check each device's capacity
  // against it (DeviceComparison::memory and fits).
  bool check_capacity = false;
  // Threads that run at once (the devices' predictions side by side); 1: one after the other.
  int threads = 1;
  // Set: called with each device's prediction (index k in `devices`) in their order, as soon
  // as it and those before it are made, on whichever thread is free and never two at once:
  // each written while later ones are still being made. `threads`: how many threads the call
  // may use (1 while another prediction may start). Returning false makes it the last call (no
  // prediction starts after it; those running finish). At most two devices' op records are
  // held at once (a prediction waits to make them until the one two before it is handed
  // over), and each prediction is freed once the call returns, on a thread of its own but for
  // the last one: the call moves out what it keeps. Unset: DeviceComparison::predictions holds
  // them all.
  std::function<bool(size_t k, absl::StatusOr<Prediction>& prediction, int threads)> each;
};

struct DeviceComparison {
  // One per device, in their order (empty with DeviceComparisonOptions::each).
  std::vector<absl::StatusOr<Prediction>> predictions;
  // check_capacity: the memory analysis (analyze_memory without a device), and whether the
  // module fits each device by it (check_capacity with CapacityBasis::kFootprint; unset where
  // the analysis failed).
  std::optional<absl::StatusOr<MemoryReport>> memory;
  std::vector<std::optional<CapacityCheck>> fits;
};

// The module's predicted step on each device: the module's cost analysed once for them all
// while the devices' measured tables are read, then the predictions side by side. The
// predictions are those of predict_step_time(module, devices[k], options.predict) (but for
// `later_ops`); what resolving each device said is the caller's to add (add_diagnostics). The
// module and the devices are only read.
DeviceComparison compare_devices(const Module& module, absl::Span<const DeviceTarget> devices,
                                 DeviceComparisonOptions options = {});

// ---- A measured profile beside the prediction: the command's `profile` is this and its
// rendering.
//
//   absl::StatusOr<hloroof::Profile> profile = hloroof::read_profile("capture/profile");
//   absl::StatusOr<hloroof::ProfileJoin> joined =
//       hloroof::join_profile(module, *target, *profile);
//   joined->comparison.measured_step_s / joined->comparison.expected_step_s;

struct ProfileJoinOptions {
  // The prediction's options; its slice is the device target's.
  PredictOptions predict;
  // Which of the profile's device planes and programs is the module's.
  ProfileOptions profile;
};

struct ProfileJoin {
  Prediction prediction;
  ProfileComparison comparison;
};

// The module's predicted step on the device (predict_step_time), joined per HLO op with its
// measured executions in `profile` (compare_with_profile). What resolving the device said is
// the caller's to add to the prediction (add_diagnostics). Errors: the prediction's, else the
// join's.
absl::StatusOr<ProfileJoin> join_profile(const Module& module, const DeviceTarget& device,
                                         const Profile& profile,
                                         const ProfileJoinOptions& options = {});

// The measured XSpace and the predicted step as two runs of one log directory,
// LOG_DIR/plugins/profile/{measured_RUN,predicted_DEVICE}/, which XProf lists side by side.
struct ProfileXSpaces {
  std::string measured_path;     // the measured run's file
  bool measured_copied = false;  // false: it lay in LOG_DIR already and is left where it is
  XSpaceFile predicted;          // the predicted run's (write_xspace)
};
// Copies the measured file as it is (RUN: the folder it lies in, when that is a run of a log
// directory) and writes the joined prediction with `options`; `options.program_id` 0: the
// measured module's program id, so that both runs name the module alike ("jit_f(12)").
// `inputs`: files the copy must not replace (write_output_file). Errors: a trace JSON profile
// (XProf opens XSpaces only), a folder or file that cannot be written, write_xspace's.
absl::StatusOr<ProfileXSpaces> write_profile_xspaces(
    const Module& module, const ProfileJoin& joined, const DeviceSpec& device,
    const Profile& profile, std::string_view log_dir, XSpaceOptions options = {},
    absl::Span<const std::string> inputs = {});

// The device a profile was measured on, as the capture names it.
struct MeasuredDevice {
  std::string kind;      // "TPU v6 Lite", "NVIDIA H100 80GB HBM3"; empty: the capture is silent
  std::string device;    // the built-in device of that kind (device_for_kind); empty: none
  std::string platform;  // "tpu" or "gpu" when the kind tells; empty otherwise
  std::string source;    // where the kind was read: "the profile's device plane", "meta.json"
};
// What the profile's device planes say (device_type_string, gpu_device_name), else the
// `device_kind` of a capture's meta.json (tools/capture) in the profile's folder or above it.
absl::StatusOr<MeasuredDevice> measured_device(const Profile& profile,
                                               std::string_view profile_path);
// An error when the profile ran on one platform and `spec` is a device of the other.
absl::Status check_same_platform(const MeasuredDevice& measured, const DeviceSpec& spec);

// The device a profile is joined with a prediction on, as the command's `profile` and Python's
// compare_profile() choose it.
struct ProfileDevice {
  DeviceTarget target;
  // Where the device came from when none was given, also the first of the target's notes:
  // "device h100 from the profile, which ran on 'NVIDIA H100 80GB HBM3' (the profile's device
  // plane); --device overrides it", or which device stands in for one hloroof has no spec for.
  // Empty: the device was given.
  std::string said;
  // A default device stands in for the measured one: `said` is a warning, which the
  // comparison's notes carry too.
  bool stand_in = false;
};
// `device` (as resolve_device takes it, with `options`) when given; else the built-in device
// of the kind the capture names (measured_device); else, for a capture of a platform whose
// device has no built-in spec (an AMD GPU), that platform's default device (kDefaultGpuDevice,
// kDefaultTpuDevice), standing in. Errors: none given and the capture names no device of a
// known platform (with kCalibrationUsagePayload: the caller must name one); measured_device's;
// resolve_device's; a device of another platform than the capture's (check_same_platform).
absl::StatusOr<ProfileDevice> resolve_profile_device(std::string_view device,
                                                     const Profile& profile,
                                                     std::string_view profile_path,
                                                     const Module& module,
                                                     const DeviceTargetOptions& options = {});

// A device fitted to measured profiles from files, as the command's `calibrate` and Python's
// calibrate() do it: each profile read and joined with its module, the device inferred from
// the captures when none is given.
struct ProfileCalibrationInputs {
  std::vector<std::string> profiles;  // files or folders, as read_profile takes them
  // The module of each profile (as many as profiles, or one for all): files or XLA dump
  // directories (load.module_name picks a directory's module). Empty: each profile's capture
  // folder's module.hlo, else the module the profile carries (load.module_name picks it).
  std::vector<std::string> module_paths;
  // Modules in memory instead of module_paths (as many as profiles, or one for all).
  std::vector<const Module*> modules;
  std::string device;  // as resolve_device takes it; empty: the one every profile names
  LoadOptions load;
  CalibrationOptions options;
  // How messages name the device and module_paths options ("--device" and "--hlo" for the
  // command).
  std::string device_option = "ProfileCalibrationInputs::device";
  std::string modules_option = "ProfileCalibrationInputs::module_paths";
  // Called with each module as it is read, and with the note saying which device the profiles
  // named when it was inferred, before the next step (the command prints what they say).
  std::function<void(const LoadedModule&)> on_loaded;
  std::function<void(const std::string&)> on_note;
};

struct ProfileCalibration {
  CalibrationResult result;
  std::string device;               // the device fitted from, as given or inferred
  std::vector<std::string> inputs;  // every file read (for write_output_file)
};

// The payload (absl::Status::GetPayload) of an error about the inputs themselves: no device
// given and the profiles name none, or name different ones (calibrate_profiles,
// resolve_profile_device).
inline constexpr char kCalibrationUsagePayload[] = "hloroof.calibration.usage";

// Reads the profiles and their modules, infers the device where none is given, checks each
// profile's platform against it, and fits (calibrate). Errors: reading, the device, the fit
// (a module that did not run advises giving the one that did).
absl::StatusOr<ProfileCalibration> calibrate_profiles(const ProfileCalibrationInputs& inputs);

// ---- The front door: what every command and the Python module do around an analysis. A
// module is read (load_module), its device chosen by one rule (choose_device), and what both
// said merged into each result in one order (add_input_diagnostics).
//
//   absl::StatusOr<hloroof::AnalysisInput> in =
//       hloroof::prepare_analysis({.path = "train_step.hlo", .device = "tpu_v5e:2x2"});
//   hloroof::Analysis analysis(in->loaded.module, in->target);
//   absl::StatusOr<hloroof::Prediction>& p = analysis.prediction();
//   if (p.ok()) hloroof::add_input_diagnostics(in->said(), *p);

// What was said before an analysis ran, in the order every result gives it.
struct InputDiagnostics {
  std::string banner;  // the module's figures are not its whole step (LoadedModule::banner)
  Diagnostics loaded;  // reading the module: which module was read (notes), its warnings
  // What the caller read besides the module (a JAX object's devices), after loading's.
  std::vector<std::string> caller_notes;
  Diagnostics device;  // choosing the device (DeviceTarget::diagnostics)
  // Loading's notes were shown apart (the command prints them on standard error): not merged.
  bool loaded_notes_shown = false;
};

// The device `loaded` is analysed on: `device` as resolve_device reads it (with `options`);
// empty, the built-in device of the kind the profile it was read from ran on
// (LoadedModule::profile_device_kind), else the default of the module's platform. An unset
// `options.compiled_for` takes what the file's name tells (platform_of_file_name: XLA's dump
// names). `profile_note` says when the profile chose the device ("device h100 from the
// profile, which ran on 'NVIDIA H100 80GB HBM3' (the profile's device plane); --device
// overrides it", `options.device_option` naming the option). Errors: resolve_device's.
struct DeviceChoice {
  DeviceTarget target;
  std::string profile_note;
};
absl::StatusOr<DeviceChoice> choose_device(const LoadedModule& loaded, std::string_view device,
                                           DeviceTargetOptions options = {});
// The same for a module held apart from what loading it said (Python's): `file` the file it
// was read from (empty: none), `profile_device_kind` as LoadedModule's; `module` may be null
// (the device alone).
absl::StatusOr<DeviceChoice> choose_device(const Module* module, std::string_view file,
                                           std::string_view profile_device_kind,
                                           std::string_view device,
                                           DeviceTargetOptions options = {});

// A module read and its device chosen: what every analysis starts from.
struct AnalysisRequest {
  std::string path;  // as load_module reads it: a file, an XLA dump folder, "-"
  LoadOptions load;
  std::string device;  // as choose_device takes it
  DeviceTargetOptions device_options;
  // Called with the module once read, before its device is chosen (the command prints what
  // reading it said, then the device's note or error).
  std::function<void(const LoadedModule&)> on_loaded;
};
struct AnalysisInput {
  LoadedModule loaded;
  DeviceTarget target;
  std::string profile_note;  // choose_device's
  // What reading the module and choosing its device said; `loaded_notes_shown` as the caller
  // shows loading's notes.
  InputDiagnostics said(bool loaded_notes_shown = false) const;
};
// load_module, then choose_device. Errors: either's.
absl::StatusOr<AnalysisInput> prepare_analysis(const AnalysisRequest& request);

// What reading `loaded` and choosing `target` said.
InputDiagnostics input_diagnostics(const LoadedModule& loaded, const DeviceTarget& target,
                                   bool loaded_notes_shown = false);

// Merges `said` into a result, in the one order every report shows. A prediction: loading's
// notes (unless shown), its warnings, the caller's notes and the device choice's notes lead
// its assumptions; the banner leads its warnings, the device choice's follow them. A memory
// report (as `memory --json` gives it): the banner and loading's warnings, each marked
// "warning: ", then loading's notes (unless shown) lead its notes, the caller's and the device
// choice's notes follow them; the device choice's warnings follow its warnings. Advice: the
// prediction's leading notes lead its notes (its warnings are its prediction's).
void add_input_diagnostics(const InputDiagnostics& said, Prediction& prediction);
void add_input_diagnostics(const InputDiagnostics& said, MemoryReport& report);
void add_input_diagnostics(const InputDiagnostics& said, Advice& advice);

}  // namespace hloroof

#endif  // HLOROOF_ANALYSIS_H_
