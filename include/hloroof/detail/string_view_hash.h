// A hash for std::string_view keys. The abseil this project builds against has its own
// absl::string_view, so absl::Hash<std::string_view> falls back to std::hash; hashing through
// absl::string_view uses abseil's faster string hash instead.
#ifndef HLOROOF_DETAIL_STRING_VIEW_HASH_H_
#define HLOROOF_DETAIL_STRING_VIEW_HASH_H_

#include <cstddef>
#include <string_view>

#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"
#include "absl/strings/string_view.h"

namespace hloroof::detail {

struct StringViewHash {
  size_t operator()(std::string_view s) const {
    return absl::Hash<absl::string_view>{}(absl::string_view(s.data(), s.size()));
  }
};

template <typename Value>
using StringViewMap = absl::flat_hash_map<std::string_view, Value, StringViewHash>;

}  // namespace hloroof::detail

#endif  // HLOROOF_DETAIL_STRING_VIEW_HASH_H_
