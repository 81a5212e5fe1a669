// Fuzzes the printer: for any text that parses, the printed text must parse to a module equal to
// the first (structurally, and printing the same text again), and re-printing a reprinted module
// must not change it. The parser's own failures are parse_module_fuzzer's concern.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "hloroof/hlo_text.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<hloroof::Module> module = hloroof::parse_module(text);
  if (!module.ok()) return 0;
  const std::string printed = hloroof::print(*module);
  absl::StatusOr<hloroof::Module> again = hloroof::parse_module(printed);
  if (!again.ok()) std::abort();  // a reprint that does not parse
  if (!hloroof::structurally_equal(*module, *again)) std::abort();
  const std::string reprinted = hloroof::print(*again);
  if (reprinted != printed) std::abort();  // printing is not a fixed point
  // The reprint, parsed from a string it does not own, is the same module too.
  absl::StatusOr<hloroof::Module> third = hloroof::parse_module(std::string_view(reprinted));
  if (!third.ok() || !hloroof::structurally_equal(*again, *third)) std::abort();
  return 0;
}
