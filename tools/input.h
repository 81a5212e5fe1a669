// What the commands share about their inputs: reading a module with the command's options
// (hloroof/load.h does the reading), printing what loading said, the ops' CSV, the device a
// profile was measured on.
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
#include "hloroof/analysis.h"
#include "hloroof/hlo_proto.h"
#include "hloroof/load.h"
#include "hloroof/module.h"
#include "hloroof/predict.h"
#include "hloroof/profile.h"

namespace hloroof::cli {

// LoadOptions whose messages name the command's flags (--module, --entry), with their values.
LoadOptions cli_load_options(std::string_view module_name = {}, std::string_view entry = {});
// Reads `path` as every command does (load_module): `module_name` is --module's, `entry`
// --entry's.
absl::StatusOr<LoadedModule> load_input(const std::string& path, std::string_view module_name,
                                        std::string_view entry = {});

// The module at `path` read as load_input reads it, what reading it said printed
// (print_input_messages), and its device chosen (choose_device: `device` is --device's,
// `options` the other device flags), the profile's choice said on stderr.
absl::StatusOr<AnalysisInput> prepare_input(const std::string& path,
                                            std::string_view module_name,
                                            std::string_view entry, const std::string& device,
                                            DeviceTargetOptions options,
                                            bool with_banner = false);

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
// (advise, compare, profile), so that a what-if never passes for the device as built.
std::string settings_note(const Args& args);

}  // namespace hloroof::cli

#endif  // HLOROOF_TOOLS_INPUT_H_
