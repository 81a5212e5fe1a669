// Fuzzes parse_module: no input may crash it or trip a sanitizer, and whatever parses must
// print, parse again, print the same text and compare structurally equal.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "hloroof/hlo_text.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<hloroof::Module> module = hloroof::parse_module(text);
  if (!module.ok()) {
    // Errors must carry a location.
    if (!hloroof::parse_error_location(module.status()).has_value()) std::abort();
    return 0;
  }
  std::string printed = hloroof::print(*module);
  absl::StatusOr<hloroof::Module> again = hloroof::parse_module(printed);
  if (!again.ok()) std::abort();
  if (hloroof::print(*again) != printed) std::abort();
  if (!hloroof::structurally_equal(*module, *again)) std::abort();
  return 0;
}
