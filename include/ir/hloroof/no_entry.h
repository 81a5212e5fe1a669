// The words for a module that marks no computation ENTRY (Module::entry_marked() false), one
// wording for every message that says it: loading's warning, the prediction's refusal.
#ifndef HLOROOF_NO_ENTRY_H_
#define HLOROOF_NO_ENTRY_H_

#include <string_view>

namespace hloroof {

inline constexpr std::string_view kNoEntryMarked =
    "no computation is marked ENTRY (a dump cut off before its end?)";

}  // namespace hloroof

#endif  // HLOROOF_NO_ENTRY_H_
