#include "hloroof/sharding.h"

#include "util/checked_math.h"

namespace hloroof {

int64_t Sharding::tile_count() const {
  if (type != Type::kTiled) return 1;
  int64_t n = 1;
  for (int64_t d : tile_shape) n = saturating_mul(n, d);  // tile sizes come from text
  return n;
}

}  // namespace hloroof
