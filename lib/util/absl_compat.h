// Debian's abseil is built with its own absl::string_view (not an alias of std::string_view),
// so std::string_view does not convert to absl::AlphaNum. `sv(x)` bridges the two at no cost.
#ifndef HLOROOF_LIB_UTIL_ABSL_COMPAT_H_
#define HLOROOF_LIB_UTIL_ABSL_COMPAT_H_

#include <string_view>

#include "absl/strings/string_view.h"

namespace hloroof {

inline absl::string_view sv(std::string_view s) { return absl::string_view(s.data(), s.size()); }
inline std::string_view sv(absl::string_view s) { return std::string_view(s.data(), s.size()); }

}  // namespace hloroof

#endif  // HLOROOF_LIB_UTIL_ABSL_COMPAT_H_
