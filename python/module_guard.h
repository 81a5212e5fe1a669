// One module edited and analysed from several Python threads. The library reads a module with
// the GIL released (analyses, printing, verify); an edit on another thread meanwhile changed
// what it read (SIGSEGV, double free). Each such read marks the module and its computations in
// use for its length (ModuleUse), and an edit of any of them meanwhile raises RuntimeError
// "module in use" (check_editable). An edited module is verified before it is next analysed:
// an edit the parser would have refused (`lhs_contracting_dims={99}` on a dot) raises
// ValueError then, where the analysis would have predicted from it. The tables are touched
// with the GIL held only, which guards them.
#ifndef HLOROOF_PYTHON_MODULE_GUARD_H_
#define HLOROOF_PYTHON_MODULE_GUARD_H_

#include <stdexcept>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "bindings.h"

namespace hloroof::python {

namespace module_guard {

struct Tables {
  absl::flat_hash_map<const void*, int> readers;  // a module or computation -> reads running
  absl::flat_hash_set<const void*> edited;        // modules and computations edited since
};

inline Tables& tables() {
  static Tables* const kTables = new Tables();  // lives with the interpreter
  return *kTables;
}

// The module and its computations: what an edit names (an instruction's edit names its
// computation).
inline std::vector<const void*> keys_of(const Module& module) {
  std::vector<const void*> keys = {&module};
  for (const Computation* c : module.computations()) keys.push_back(c);
  return keys;
}

}  // namespace module_guard

// Raises RuntimeError when a read of the thing `key` names (a module, or the computation an
// edited instruction is in) runs on another thread; else marks it edited.
inline void check_editable(const void* key) {
  module_guard::Tables& t = module_guard::tables();
  if (auto it = t.readers.find(key); it != t.readers.end() && it->second > 0) {
    throw std::runtime_error(
        "module in use: an analysis on another thread reads this module (hloroof releases the "
        "GIL while it runs); edit it once that call returns");
  }
  t.edited.insert(key);
}
inline void check_editable(const Instruction& i) {
  if (i.parent() != nullptr) check_editable(static_cast<const void*>(i.parent()));
}

// Made with the GIL held, before the GIL is released for a read of `module`, and destroyed
// with it held again (declare it before the GilRelease). With `verify_edits`, a
// module edited since it was last verified is verified first: ValueError when it fails.
class ModuleUse {
 public:
  explicit ModuleUse(const Module& module, bool verify_edits = true)
      : keys_(module_guard::keys_of(module)) {
    module_guard::Tables& t = module_guard::tables();
    for (const void* k : keys_) ++t.readers[k];
    if (!verify_edits) return;
    bool edited = false;
    for (const void* k : keys_) edited = edited || t.edited.contains(k);
    if (!edited) return;
    absl::Status verified;
    {
      GilRelease release;
      verified = verify(module);
    }
    if (!verified.ok()) {
      release();
      throw StatusError(absl::InvalidArgumentError(
          str_cat("the module was edited into one that does not verify, so it is not analysed "
                  "(Module.verify() says the same): ",
                  verified.message())));
    }
    for (const void* k : keys_) t.edited.erase(k);
  }
  ~ModuleUse() { release(); }
  ModuleUse(const ModuleUse&) = delete;
  ModuleUse& operator=(const ModuleUse&) = delete;

 private:
  void release() {
    module_guard::Tables& t = module_guard::tables();
    for (const void* k : keys_) {
      if (auto it = t.readers.find(k); it != t.readers.end() && --it->second <= 0) {
        t.readers.erase(it);
      }
    }
    keys_.clear();
  }
  std::vector<const void*> keys_;
};

}  // namespace hloroof::python

#endif  // HLOROOF_PYTHON_MODULE_GUARD_H_
