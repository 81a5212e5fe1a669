// The peak the FLOP-rate headline (HFU) is measured against is that of the units that ran.
#include <catch2/catch.hpp>

#include "hloroof/device.h"
#include "predict_test_util.h"
#include "require_ok.h"

namespace hloroof {
namespace {

using testing::predict;

TEST_CASE("a step without matrix FLOPs is measured against the vector rate, not a bf16 peak") {
  // f64 elementwise work only: 2^20 multiplies, no matrix unit involved.
  auto p = predict(R"(HloModule f64_step
ENTRY e {
  a = f64[1048576]{0} parameter(0)
  ROOT m = f64[1048576]{0} multiply(a, a)
})",
                   "h100");
  absl::StatusOr<DeviceSpec> h100 = device("h100");
  REQUIRE_OK(h100);
  CHECK(p->matrix_flops == 0);
  CHECK(p->flops == 1048576);
  CHECK(p->peak_flop_rate_type == "vector");
  CHECK(p->peak_flop_rate == h100->vector_flops_per_s);
  CHECK(p->hfu == Approx(p->flops / (p->step_time_s * h100->vector_flops_per_s)));

  // A bf16 dot keeps the bf16 matrix peak.
  auto dot = predict(R"(HloModule bf16_dot
ENTRY e {
  a = bf16[256,256]{1,0} parameter(0)
  ROOT d = bf16[256,256]{1,0} dot(a, a), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})",
                     "h100");
  CHECK(dot->peak_flop_rate_type == "bf16");
  CHECK(dot->peak_flop_rate == h100->matrix_flops_per_s.at("bf16"));
}

}  // namespace
}  // namespace hloroof
