// The HLO module a command reads: a file, standard input ("-") or an XLA dump directory
// (`--xla_dump_to`), and what about it the figures do not assume (no ENTRY computation, HLO
// before optimization).
#ifndef HLOROOF_TOOLS_INPUT_H_
#define HLOROOF_TOOLS_INPUT_H_

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "cli.h"
#include "hloroof/hlo_proto.h"
#include "hloroof/module.h"
#include "hloroof/predict.h"
#include "hloroof/profile.h"

namespace hloroof::cli {

// One module of a dump directory: `module_0004.jit_train_step.tpu_after_optimizations.txt`.
struct DumpModule {
  std::string name;  // "jit_train_step"
  std::string id;    // "0004": XLA numbers modules in the order it compiles them; "" if none
  std::string file;  // the path of its `*after_optimizations.txt`
  int64_t bytes = 0;
};

// The optimized modules of an XLA dump directory (files ending in `after_optimizations.txt`),
// largest first. Errors: not a directory, or no such file in it.
absl::StatusOr<std::vector<DumpModule>> dump_modules(const std::string& directory);

// The module of a dump directory to read: the one named `module_name`, or numbered so ("0004",
// "module_0004"), by default the largest `jit_*` module (the largest module when none is
// `jit_*`). A name compiled more than once (a recompile) reads its latest compilation, the
// highest id. Errors list the modules there are.
absl::StatusOr<DumpModule> pick_dump_module(const std::vector<DumpModule>& modules,
                                            std::string_view module_name);

struct LoadedModule {
  Module module;
  std::string file;                   // the file parsed ("-" for standard input)
  std::vector<std::string> notes;     // which module of a dump directory was read
  std::vector<std::string> warnings;  // the input is not what the figures assume
  // Set when the figures are not those of the input's whole step, for the top of every
  // report: no computation is marked ENTRY (a cut dump: no step time), or --entry named the
  // computation taken as the step.
  std::string banner;
  // True when the figures' entry is the computation the input marked ENTRY (JSON
  // `entry_marked`, as `parse --json` says it of the input).
  bool entry_marked = true;
  // When the module came from a proto (an HloProto or HloModuleProto, or a profile's): XLA's
  // buffer assignment it carries (no allocations for an HloModuleProto) or the error reading
  // it, read from the same parse as the module; unset for text.
  std::optional<absl::StatusOr<XlaBufferAssignment>> xla_assignment;
  // From a profile, the module's name there ("jit_f(12)").
  std::string profile_module;
  // From a profile whose device planes name a built-in device: that device ("tpu_v6e"), and
  // the device kind they name ("TPU v6 lite").
  std::string profile_device;
  std::string profile_device_kind;
};

// The device to predict on: `given` (--device), else the device the profile the module came
// from ran on (and a note on stderr says so), else "" (the module's platform decides).
std::string device_or_profile(const std::string& given, const LoadedModule& loaded);

// Reads and parses `path`: HLO text, an HloProto or HloModuleProto, or an XSpace profile (by
// content, whatever the name), "-", or a dump directory. `module_name` picks the module of a
// dump directory or a profile (default: the largest jit_* module of a dump, the one that ran
// longest in a profile); for a single module it must be empty. Files that hold no HLO (empty,
// JSON, StableHLO, other binary files) are errors that say what the file is.
// `entry`, when not empty, names the computation to take as the step (--entry): any
// computation of the module, the way out for a module that marks none ENTRY.
absl::StatusOr<LoadedModule> load_module(const std::string& path, std::string_view module_name,
                                         std::string_view entry = {});

// The module of a file's bytes that are not HLO text: an HloProto or HloModuleProto, or an
// XSpace (`module_name` picks one of its modules); for bytes that hold no HLO (empty, JSON,
// StableHLO, other binary), an error that says what they are. nullopt for HLO text.
std::optional<absl::StatusOr<LoadedModule>> load_non_text(std::string_view bytes,
                                                          const std::string& file,
                                                          std::string_view module_name);
// A text parse error that ran into the end of the input gets a note: the file is truncated?
absl::Status explain_parse_error(const absl::Status& status);

// The sentence for a module that marks no computation ENTRY, empty for one that marks one.
std::string no_entry_warning(const Module& module);
// What about a parsed module the figures do not assume, one sentence each: no computation
// marked ENTRY (no_entry_warning); HLO before optimization (`file` named
// `*before_optimizations*`, or, unless it is named `*after_optimizations*`, unscheduled with
// unfused chains of elementwise ops).
std::vector<std::string> input_warnings(const Module& module, std::string_view file);

// Prints `note: ...` for each note and `warning: ...` for each warning on stderr; the banner
// too when `with_banner` (a report that has no top of its own to show it: CSV).
void print_input_messages(const LoadedModule& loaded, bool with_banner = false);
// The banner as a report's first lines (empty when there is none), wrapped to 100 columns.
std::string banner_text(const LoadedModule& loaded);

// Every op of `prediction`, one CSV row each, its cells the keys of `predict --json`'s ops,
// nested ones as `collective.kind`, `async.stream`, ... (as Python's to_pandas() names them),
// after a header line where `header` says so; with `device_column`, first a column `device`,
// the device and slice of the prediction ("h100:1x8"): `predict --csv` and `compare --csv`
// (one call per device). Written to `out` as it is made, 256 rows at a time (a large
// module's rows are tens of MB), the pieces made by `threads` threads at once.
void write_ops_csv(std::ostream& out, const Prediction& prediction, bool device_column,
                   bool header = true, int threads = 1);

// "device figures set: PATH=VALUE, ..." for the command's --set (as resolve_device words it
// in a prediction's assumptions), or "" without one: for the reports that show no assumptions
// (advise, compare, diff, profile), so that a what-if never passes for the device as built.
std::string settings_note(const Args& args);

// Puts the input's warnings, then the device choice's notes, before `assumptions` (a
// prediction's): what its reader should know first.
// The banner, then the device choice's warnings, go to the prediction's warnings.
void prepend_input_notes(const LoadedModule& loaded, const DeviceTarget& choice,
                         Prediction& prediction);

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
                                               const std::string& profile_path);
// An error when the profile ran on one platform and `spec` is a device of the other.
absl::Status check_same_platform(const MeasuredDevice& measured, const DeviceSpec& spec);

}  // namespace hloroof::cli

#endif  // HLOROOF_TOOLS_INPUT_H_
