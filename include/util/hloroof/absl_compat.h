// Debian's abseil is built with its own absl::string_view (not an alias of std::string_view),
// so std::string_view does not convert to absl::AlphaNum. `sv(x)` bridges the two at no cost;
// str_cat and str_append are absl::StrCat and absl::StrAppend that take std::string_view too.
#ifndef HLOROOF_ABSL_COMPAT_H_
#define HLOROOF_ABSL_COMPAT_H_

#include <string>
#include <string_view>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace hloroof {

inline absl::string_view sv(std::string_view s) { return absl::string_view(s.data(), s.size()); }
inline std::string_view sv(absl::string_view s) { return std::string_view(s.data(), s.size()); }
inline absl::string_view sv(const std::string& s) { return absl::string_view(s.data(), s.size()); }

namespace strings_internal {
template <typename T>
decltype(auto) to_alpha_num(const T& value) {
  if constexpr (std::is_convertible_v<const T&, std::string_view> &&
                !std::is_convertible_v<const T&, absl::string_view>) {
    return sv(std::string_view(value));
  } else {
    return (value);
  }
}
}  // namespace strings_internal

template <typename... Args>
std::string str_cat(const Args&... args) {
  return absl::StrCat(strings_internal::to_alpha_num(args)...);
}

template <typename... Args>
void str_append(std::string* out, const Args&... args) {
  absl::StrAppend(out, strings_internal::to_alpha_num(args)...);
}

}  // namespace hloroof

#endif  // HLOROOF_ABSL_COMPAT_H_
