// Fuzzes parse_shape: no crash, and every parsed shape prints and parses back to itself.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "hloroof/shape_text.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<hloroof::Shape> shape = hloroof::parse_shape(text);
  if (!shape.ok()) return 0;
  absl::StatusOr<hloroof::Shape> again = hloroof::parse_shape(hloroof::to_string(*shape));
  if (!again.ok() || !(*again == *shape)) std::abort();
  return 0;
}
