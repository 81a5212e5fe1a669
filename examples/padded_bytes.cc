// How much memory does a TPU-tiled array really take? Reads shapes from the command line and
// prints their logical and padded sizes.
//
//   padded_bytes 'bf16[4,512,512,64]{3,0,2,1:T(4,128)(2,1)}'
#include <cstdio>

#include "hloroof/shape_size.h"
#include "hloroof/shape_text.h"

int main(int argc, char** argv) {
  int failures = 0;
  for (int i = 1; i < argc; ++i) {
    absl::StatusOr<hloroof::Shape> shape = hloroof::parse_shape(argv[i]);
    if (!shape.ok()) {
      std::fprintf(stderr, "error: %s\n", std::string(shape.status().message()).c_str());
      ++failures;
      continue;
    }
    absl::StatusOr<hloroof::ShapeSize> size = hloroof::shape_size(*shape);
    if (!size.ok()) {
      std::fprintf(stderr, "error: %s\n", std::string(size.status().message()).c_str());
      ++failures;
      continue;
    }
    std::printf("%s: %lld B logical, %lld B padded (%.2fx)\n",
                hloroof::to_string(*shape).c_str(), static_cast<long long>(size->logical_bytes),
                static_cast<long long>(size->padded_bytes), size->padding_factor());
  }
  return failures == 0 ? 0 : 1;
}
