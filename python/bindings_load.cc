// The options every module Python reads is loaded with (bindings_calls.cc reads them through
// load_path_or_text and load_module, which tell paths, HLO text, protos and profiles apart and
// refuse what holds no HLO with what to give instead).
#include "bindings.h"

namespace hloroof::python {

LoadOptions python_load_options(const std::string& module_name) {
  LoadOptions options;
  options.module_name = module_name;
  options.module_option = "module_name";
  options.entry_option = "Module.set_entry";
  options.entry_naming = "Module.set_entry(NAME)";
  options.read_cut_dump = false;
  return options;
}

}  // namespace hloroof::python
