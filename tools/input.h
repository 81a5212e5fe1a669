// The HLO module a command reads: a file, standard input ("-") or an XLA dump directory
// (`--xla_dump_to`), and what about it the figures do not assume (no ENTRY computation, HLO
// before optimization).
#ifndef HLOROOF_TOOLS_INPUT_H_
#define HLOROOF_TOOLS_INPUT_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "cli.h"
#include "hloroof/module.h"
#include "hloroof/predict.h"

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
};

// Reads and parses `path` (a file, "-", or a dump directory, where `module_name` picks the
// module; outside a directory `module_name` must be empty).
absl::StatusOr<LoadedModule> load_module(const std::string& path, std::string_view module_name);

// What about a parsed module the figures do not assume, one sentence each: no computation
// marked ENTRY; HLO before optimization (`file` named `*before_optimizations*`, or, unless it
// is named `*after_optimizations*`, unscheduled with unfused chains of elementwise ops).
std::vector<std::string> input_warnings(const Module& module, std::string_view file);

// Prints `note: ...` for each note and `warning: ...` for each warning on stderr.
void print_input_messages(const LoadedModule& loaded);

// Puts the input's warnings, then the device choice's notes, before `assumptions` (a
// prediction's): what its reader should know first.
// The device choice's warnings go to the prediction's warnings.
void prepend_input_notes(const LoadedModule& loaded, const DeviceChoice& choice,
                         Prediction& prediction);

}  // namespace hloroof::cli

#endif  // HLOROOF_TOOLS_INPUT_H_
