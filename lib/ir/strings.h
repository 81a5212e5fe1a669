// absl::StrCat and absl::StrAppend for std::string_view arguments. The abseil this project builds
// against has its own absl::string_view type, distinct from std::string_view, which the
// project's API uses; these wrappers convert at the call.
#ifndef HLOROOF_IR_STRINGS_H_
#define HLOROOF_IR_STRINGS_H_

#include <string>
#include <string_view>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace hloroof {

inline absl::string_view absl_view(std::string_view s) { return {s.data(), s.size()}; }

namespace strings_internal {
template <typename T>
decltype(auto) to_alpha_num(const T& value) {
  if constexpr (std::is_convertible_v<const T&, std::string_view> &&
                !std::is_convertible_v<const T&, absl::string_view>) {
    return absl_view(std::string_view(value));
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

#endif  // HLOROOF_IR_STRINGS_H_
