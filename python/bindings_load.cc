// Python bindings of reading modules: from a path (a file or an XLA dump directory) and from
// text or bytes in memory, all through load_module, which tells HLO text, protos and profiles
// apart and refuses what holds no HLO (StableHLO, JSON, ...) with what to give instead.
#include "bindings.h"

namespace hloroof::python {
namespace {

Module module_or_raise(absl::StatusOr<LoadedModule> loaded) {
  if (!loaded.ok()) throw StatusError(loaded.status());
  return std::move(loaded->module);
}

}  // namespace

LoadOptions python_load_options(const std::string& module_name) {
  LoadOptions options;
  options.module_name = module_name;
  options.module_option = "module_name";
  options.entry_option = "Module.set_entry";
  options.entry_naming = "Module.set_entry(NAME)";
  options.read_cut_dump = false;
  return options;
}

void bind_load(py::module_& m) {
  m.def(
      "_parse",
      [](std::string_view text, const std::string& file_name) {
        // The text is not copied (a str or bytes object does not change, and the argument
        // holds it while the GIL is released).
        absl::StatusOr<LoadedModule> loaded;
        {
          py::gil_scoped_release release;
          loaded = load_module(ModuleBytes{.bytes = text, .name = file_name},
                               python_load_options());
        }
        return module_or_raise(std::move(loaded));
      },
      py::arg("text"), py::arg("file_name") = "",
      "The Module of HLO text, or of the bytes of an HloProto, an HloModuleProto or an XSpace "
      "carrying modules (the one that ran longest). ParseError for text that does not parse; "
      "ValueError for input that holds no HLO (StableHLO, JSON, ...), saying what to give.");
  m.def(
      "_load_path",
      [](const std::string& path, const std::string& module_name) {
        absl::StatusOr<LoadedModule> loaded;
        {
          py::gil_scoped_release release;
          loaded = load_module(path, python_load_options(module_name));
        }
        return module_or_raise(std::move(loaded));
      },
      py::arg("path"), py::arg("module_name") = "",
      "The Module of a file (read as the commands read their inputs: /dev/zero or a FIFO is "
      "refused, not read forever) or of an XLA dump directory (its largest jit_* module after "
      "optimization, or the one `module_name` names).");
  m.def(
      "_no_entry_warning",
      [](const Module& module) {
        return no_entry_warning(module, python_load_options().entry_naming);
      },
      py::arg("module"),
      "The warning for a module that marks no computation ENTRY; empty when it marks one.");
}

}  // namespace hloroof::python
