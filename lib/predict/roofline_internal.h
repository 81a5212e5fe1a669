// What roofline_time cites for each term's rate, for a caller that cites the figures of one
// device once rather than for every op (a prediction's CombinedModel).
#ifndef HLOROOF_LIB_PREDICT_ROOFLINE_INTERNAL_H_
#define HLOROOF_LIB_PREDICT_ROOFLINE_INTERNAL_H_

#include <string>
#include <string_view>

#include "hloroof/device.h"
#include "hloroof/roofline.h"

namespace hloroof {

// The device figure a term of `bound` takes its rate from ("hbm.bandwidth", ...); empty for
// kMatrix (the figure of the class that runs, or of a fallback: roofline_time cites it) and
// kOverhead (never a term).
std::string_view rate_figure(Bound bound);

// "hbm.bandwidth (GC-v5e)": the figure at `path` and its source, as a term's rate_source reads;
// just the path when the spec has no such figure or no source.
std::string cite_figure(const DeviceSpec& device, std::string_view path);

}  // namespace hloroof

#endif  // HLOROOF_LIB_PREDICT_ROOFLINE_INTERNAL_H_
