// What a step of the work says beside its result, one sentence each: notes (what was read or
// chosen) and warnings (what the figures do not assume). Loading a module (LoadedModule) and
// choosing a device (DeviceTarget) say them; add_diagnostics (hloroof/predict.h) merges them
// into a prediction, add_input_diagnostics (hloroof/analysis.h) both of them.
#ifndef HLOROOF_DIAGNOSTICS_H_
#define HLOROOF_DIAGNOSTICS_H_

#include <string>
#include <vector>

namespace hloroof {

struct Diagnostics {
  std::vector<std::string> notes;
  std::vector<std::string> warnings;

  bool empty() const { return notes.empty() && warnings.empty(); }
};

}  // namespace hloroof

#endif  // HLOROOF_DIAGNOSTICS_H_
