// Convolution FLOPs by counting, per spatial dimension, the (output position, kernel tap) pairs
// that touch a real input element (docs/cost-conventions.md, "Where hloroof follows XLA"). The
// count is closed-form per tap (or per output position, whichever is fewer), so huge windows cost
// microseconds, not hours.
#include <algorithm>
#include <numeric>

#include "cost/cost_internal.h"

namespace hloroof::cost {
namespace {

// Products of two 64-bit sizes stay exact in 128 bits.
__extension__ typedef __int128 Wide;

Wide floor_div(Wide a, Wide b) {
  Wide q = a / b;
  if (a % b != 0 && ((a < 0) != (b < 0))) --q;
  return q;
}

Wide ceil_div(Wide a, Wide b) { return -floor_div(-a, b); }

Wide positive_mod(Wide a, Wide m) {
  Wide r = a % m;
  return r < 0 ? r + m : r;
}

// x with a * x == 1 (mod m), for coprime a and m.
Wide modular_inverse(Wide a, Wide m) {
  Wide old_r = positive_mod(a, m), r = m, old_s = 1, s = 0;
  while (r != 0) {
    Wide q = old_r / r;
    Wide t = old_r - q * r;
    old_r = r;
    r = t;
    t = old_s - q * s;
    old_s = s;
    s = t;
  }
  return positive_mod(old_s, m);
}

// Counts x in [0, n) with lo <= a*x + c <= hi and a*x + c divisible by m (a, m >= 1).
class AffineCounter {
 public:
  AffineCounter(int64_t a, int64_t m) : a_(a), m_(m) {
    Wide g = std::gcd(a, m);
    g_ = g;
    m_reduced_ = m / g;
    inverse_ = m_reduced_ == 1 ? 0 : modular_inverse(a / g, m_reduced_);
  }

  Wide count(Wide c, Wide lo, Wide hi, Wide n) const {
    Wide x0 = std::max<Wide>(0, ceil_div(lo - c, a_));
    Wide x1 = std::min<Wide>(n - 1, floor_div(hi - c, a_));
    if (x0 > x1) return 0;
    if (m_ == 1) return x1 - x0 + 1;
    // a*x == -c (mod m) has solutions only when gcd(a, m) divides c; they repeat every m/g.
    Wide target = positive_mod(-c, m_);
    if (target % g_ != 0) return 0;
    Wide r = m_reduced_ == 1 ? 0 : positive_mod((target / g_) * inverse_, m_reduced_);
    return floor_div(x1 - r, m_reduced_) - floor_div(x0 - 1 - r, m_reduced_);
  }

 private:
  Wide a_, m_, g_ = 1, m_reduced_ = 1, inverse_ = 0;
};

// Beyond this many terms the sum is sampled evenly; no real convolution comes near it.
constexpr int64_t kMaxExactTerms = int64_t{1} << 22;

}  // namespace

int64_t valid_window_positions(int64_t input_size, int64_t kernel_size, int64_t output_size,
                               const WindowDim& window) {
  if (input_size <= 0 || kernel_size <= 0 || output_size <= 0) return 0;
  const int64_t stride = std::max<int64_t>(1, window.stride);
  const int64_t window_dilation = std::max<int64_t>(1, window.rhs_dilation);
  const int64_t base_dilation = std::max<int64_t>(1, window.lhs_dilation);
  // The dilated input index of (output o, tap k) is o*stride - pad_low + k*window_dilation; it
  // is a real element when it lies in [0, (input-1)*base_dilation] and is a multiple of
  // base_dilation.
  const Wide highest = Wide{input_size - 1} * base_dilation;
  const bool per_tap = kernel_size <= output_size;
  const int64_t terms = per_tap ? kernel_size : output_size;
  const AffineCounter counter(per_tap ? stride : window_dilation, base_dilation);
  const int64_t step = terms > kMaxExactTerms ? terms / kMaxExactTerms : 1;
  Wide total = 0;
  for (int64_t t = 0; t < terms; t += step) {
    Wide c =
        per_tap ? Wide{t} * window_dilation - window.pad_low : Wide{t} * stride - window.pad_low;
    total += counter.count(c, 0, highest, per_tap ? output_size : kernel_size) * step;
  }
  return static_cast<int64_t>(std::min<Wide>(total, INT64_MAX));
}

std::optional<double> convolution_flops(const Shape& lhs, const Shape& rhs, const Shape& result,
                                        const Window* window, const ConvDimLabels& labels,
                                        int64_t feature_group_count, int64_t batch_group_count) {
  auto fits = [](const Shape& s, int64_t dim) { return dim >= 0 && dim < s.rank(); };
  if (!lhs.is_array() || !rhs.is_array() || !result.is_array() || !fits(lhs, labels.input_batch) ||
      !fits(lhs, labels.input_feature) || !fits(result, labels.output_feature)) {
    return std::nullopt;
  }
  const size_t spatial = labels.input_spatial.size();
  if (labels.kernel_spatial.size() != spatial || labels.output_spatial.size() != spatial ||
      (spatial > 0 && (window == nullptr || window->dims.size() != spatial))) {
    return std::nullopt;
  }
  double valid = 1;
  for (size_t d = 0; d < spatial; ++d) {
    if (!fits(lhs, labels.input_spatial[d]) || !fits(rhs, labels.kernel_spatial[d]) ||
        !fits(result, labels.output_spatial[d])) {
      return std::nullopt;
    }
    valid *= static_cast<double>(valid_window_positions(
        lhs.dims[labels.input_spatial[d]].size, rhs.dims[labels.kernel_spatial[d]].size,
        result.dims[labels.output_spatial[d]].size, window->dims[d]));
  }
  // XLA divides with integers: a feature count that is not a multiple of the groups rounds down.
  const int64_t input_features =
      lhs.dims[labels.input_feature].size / std::max<int64_t>(1, feature_group_count);
  const int64_t batch = lhs.dims[labels.input_batch].size / std::max<int64_t>(1, batch_group_count);
  const int64_t output_features = result.dims[labels.output_feature].size;
  return 2.0 * static_cast<double>(input_features) * static_cast<double>(output_features) *
         static_cast<double>(batch) * valid;
}

}  // namespace hloroof::cost
