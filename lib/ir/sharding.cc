#include "hloroof/sharding.h"

namespace hloroof {

int64_t Sharding::tile_count() const {
  if (type != Type::kTiled) return 1;
  int64_t n = 1;
  for (int64_t d : tile_shape) n *= d;
  return n;
}

}  // namespace hloroof
