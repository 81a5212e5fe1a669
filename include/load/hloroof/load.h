// Reading a module: one front door for the command and Python. An input is a file, standard
// input ("-"), an XLA dump directory (`--xla_dump_to`) or bytes in memory, told apart by their
// content: HLO text, an HloProto or HloModuleProto, or an XSpace profile carrying modules.
// Inputs that hold no HLO (empty, JSON, StableHLO/MLIR text, other binary files) are errors that
// say what they are and what to give instead. Beside the module come what about it the figures
// do not assume (no computation marked ENTRY, HLO before optimization), said once.
//
//   absl::StatusOr<hloroof::LoadedModule> loaded = hloroof::load_module("dump_dir");
//   loaded->module;                 // the largest jit_* module of the dump
//   loaded->diagnostics.notes;      // "read module jit_train_step (...) of the 3 ..."
#ifndef HLOROOF_LOAD_H_
#define HLOROOF_LOAD_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hloroof/diagnostics.h"
#include "hloroof/hlo_proto.h"
#include "hloroof/module.h"

namespace hloroof {

struct LoadOptions {
  // The module of a dump directory or a profile to read: its name or number ("jit_step",
  // "0004", "module_0004"; a profile's "jit_step(12)" or "12"). Empty: the largest jit_*
  // module of a dump, the one that ran longest in a profile. For an input that holds one
  // module it must be empty, unless `module_name_everywhere` is false.
  std::string module_name;
  // False: module_name is ignored for HLO text (a command over many files, some of them
  // profiles); an HLO proto still refuses it.
  bool module_name_everywhere = true;
  // The computation to take as the step, when not empty: any computation of the module, the
  // way out for a module that marks none ENTRY.
  std::string entry;
  // A text file that ends inside a computation (a cut dump) is read up to that computation,
  // which is dropped, saying so; false: the parse error. Standard input and bytes never are.
  bool read_cut_dump = true;
  // What parse errors call standard input's text ("" : no name before LINE:COLUMN).
  std::string stdin_name;
  // How messages name the two options above, in the caller's words ("--module" and "--entry"
  // for the command, "module_name" and "Module.set_entry" for Python); by default these fields.
  std::string module_option = "LoadOptions::module_name";
  std::string entry_option = "LoadOptions::entry";
  // How a computation is named as the step, for the warning about a module without ENTRY:
  // "--entry NAME" for the command, "Module.set_entry(NAME)" for Python.
  std::string entry_naming = "LoadOptions::entry = NAME";
};

// Bytes in memory to read as a module (load_module's second form), and the name messages give
// them ("" : none; "-" stands for standard input).
struct ModuleBytes {
  std::string_view bytes;
  std::string name;
};

struct LoadedModule {
  Module module;
  // Notes: which module of a dump directory or a profile was read. Warnings: what about the
  // input the figures do not assume (HLO before optimization, a cut dump's dropped
  // computation); the missing ENTRY is the banner's.
  Diagnostics diagnostics;
  std::string file;  // the file parsed ("-" for standard input, the name of bytes)
  // Set when the figures are not those of the input's whole step, for the top of every
  // report: no computation is marked ENTRY (a cut dump: no step time), or the entry option
  // named the computation taken as the step.
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
  // From a profile: the device kind its device planes name ("TPU v6 lite"; device_for_kind,
  // hloroof/device_target.h, gives the built-in device), empty when they name none.
  std::string profile_device_kind;
};

// Reads `path`: HLO text, an HloProto or HloModuleProto, or an XSpace profile (by content,
// whatever the name), "-" for standard input, or a dump directory (its optimized modules,
// dump_modules; options.module_name picks one). Errors say what is wrong and what to give
// instead.
absl::StatusOr<LoadedModule> load_module(const std::string& path, const LoadOptions& options = {});
// The same for bytes in memory (no dump directory, no cut dump read in part).
absl::StatusOr<LoadedModule> load_module(const ModuleBytes& input,
                                         const LoadOptions& options = {});

// A string given where a module is wanted, as one argument that may be either (Python's
// `hloroof.parse("step.hlo")` and `hloroof.parse(text)`): a path when it names a file or a
// directory that exists (one line, under 4096 bytes); a missing path when it can only be one (one
// line without a computation's braces, with a folder separator or ending in a file extension:
// "runs/step", "step.hlo.txt"); else HLO text.
enum class InputForm { kPath, kMissingPath, kText };
InputForm input_form(std::string_view path_or_text);
// Reads `path_or_text` as input_form tells: a path by load_module(path) ("-" is a file of that
// name, never standard input), text by load_module(ModuleBytes{path_or_text, text_name}).
// Errors: load_module's; absl::NotFoundError for a missing path, saying so.
absl::StatusOr<LoadedModule> load_path_or_text(std::string_view path_or_text,
                                               const LoadOptions& options = {},
                                               std::string_view text_name = "");

// One module of a dump directory: `module_0004.jit_train_step.tpu_after_optimizations.txt`.
struct DumpModule {
  std::string name;  // "jit_train_step"
  std::string id;    // "0004": XLA numbers modules in the order it compiles them; "" if none
  std::string file;  // the path of its `*after_optimizations.txt` (or `.hlo.pb`)
  int64_t bytes = 0;
};

// The optimized modules of an XLA dump directory, largest first: files ending in
// `after_optimizations.txt` (--xla_dump_hlo_as_text, the default) or
// `after_optimizations.hlo.pb` (--xla_dump_hlo_as_proto: HloProtos with XLA's buffer
// assignment), a module dumped both ways read from its text. Errors: not a directory, or no
// such file in it.
absl::StatusOr<std::vector<DumpModule>> dump_modules(const std::string& directory);

// The module of a dump directory to read: the one named `module_name`, or numbered so ("0004",
// "module_0004"), by default the largest `jit_*` module (the largest module when none is
// `jit_*`). A name compiled more than once (a recompile) reads its latest compilation, the
// highest id. Errors list the modules there are.
absl::StatusOr<DumpModule> pick_dump_module(
    const std::vector<DumpModule>& modules, std::string_view module_name,
    std::string_view module_option = "LoadOptions::module_name");

// The warning for a module that marks no computation ENTRY, empty for one that marks one;
// `entry_naming` says how to name a computation as the step (LoadOptions::entry_naming).
std::string no_entry_warning(const Module& module,
                             std::string_view entry_naming = "LoadOptions::entry = NAME");

// What about a parsed module the figures do not assume, one sentence each: no computation
// marked ENTRY (no_entry_warning); HLO before optimization (`file` named
// `*before_optimizations*`, or, unless it is named `*after_optimizations*`, unscheduled with
// unfused chains of elementwise ops).
std::vector<std::string> input_warnings(
    const Module& module, std::string_view file,
    std::string_view entry_naming = "LoadOptions::entry = NAME");

// A text parse error that ran into the end of the input gets a note: the file is truncated?
absl::Status explain_parse_error(const absl::Status& status);

}  // namespace hloroof

#endif  // HLOROOF_LOAD_H_
