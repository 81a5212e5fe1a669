// Valid-position counting of convolution windows, against brute-force enumeration.
#include <catch2/catch.hpp>

#include "cost/cost_internal.h"

namespace hloroof::cost {
namespace {

int64_t brute_force(int64_t input, int64_t kernel, int64_t output, const WindowDim& w) {
  int64_t count = 0;
  for (int64_t k = 0; k < kernel; ++k) {
    for (int64_t o = 0; o < output; ++o) {
      const int64_t dilated = o * w.stride - w.pad_low + k * w.rhs_dilation;
      if (dilated < 0 || dilated % w.lhs_dilation != 0) continue;
      if (dilated / w.lhs_dilation < input) ++count;
    }
  }
  return count;
}

TEST_CASE("valid window positions match enumeration") {
  // Sweep small windows with every kind of stride, padding and dilation.
  int checked = 0;
  for (int64_t input : {1, 3, 7}) {
    for (int64_t kernel : {1, 2, 3, 5}) {
      for (int64_t output : {1, 4, 9}) {
        for (int64_t stride : {1, 2, 3}) {
          for (int64_t pad : {-1, 0, 2}) {
            for (int64_t base : {1, 2, 3}) {
              for (int64_t window : {1, 2}) {
                WindowDim w{.size = kernel,
                            .stride = stride,
                            .pad_low = pad,
                            .pad_high = pad,
                            .lhs_dilation = base,
                            .rhs_dilation = window};
                INFO("input " << input << " kernel " << kernel << " output " << output << " stride "
                              << stride << " pad " << pad << " base " << base << " window "
                              << window);
                REQUIRE(valid_window_positions(input, kernel, output, w) ==
                        brute_force(input, kernel, output, w));
                ++checked;
              }
            }
          }
        }
      }
    }
  }
  CHECK(checked == 3 * 4 * 3 * 3 * 3 * 3 * 2);
}

TEST_CASE("huge windows are counted in closed form") {
  // XLA's ConvolutionExtreme tests: 512Ki taps; 2 * 512Ki FLOPs each.
  constexpr int64_t kLarge = 512 * 1024;
  WindowDim strided{.size = kLarge, .stride = kLarge - 1, .lhs_dilation = kLarge};
  CHECK(valid_window_positions(kLarge, kLarge, kLarge, strided) == kLarge);
  WindowDim padded{.size = kLarge, .pad_low = kLarge - 1, .pad_high = kLarge - 1};
  CHECK(valid_window_positions(1, kLarge, 2 * kLarge - 1, padded) == kLarge);
}

}  // namespace
}  // namespace hloroof::cost
