// GPU kernels that carry XLA's estimate of their run time (docs/prediction-model.md, "Kernel
// estimates").
#include <catch2/catch.hpp>
#include <string>

#include "predict_test_util.h"

namespace hloroof {
namespace {

using testing::predict;

// Two Triton fusions of f32[1024] (4 KiB in, 4 KiB out: well under a microsecond at the
// roofline on any GPU), one estimated by XLA at 500 us, one at 1 ns; a third carries the
// empty list most instructions have.
constexpr const char* kKernels = R"(HloModule kernels, is_scheduled=true
fused_negate {
  p = f32[1024]{0} parameter(0)
  ROOT n = f32[1024]{0} negate(p)
}
ENTRY main {
  a = f32[1024]{0} parameter(0)
  slow = f32[1024]{0} fusion(a), kind=kCustom, calls=fused_negate, backend_config={"operation_queue_id":"0","fusion_backend_config":{"kind":"__triton"},"reification_cost":[{"exec_time_us":500,"compute_time_us":20,"memory_access_time_us":480,"name":"sol"}]}
  fast = f32[1024]{0} fusion(slow), kind=kCustom, calls=fused_negate, backend_config={"fusion_backend_config":{"kind":"__triton","reification_cost":{"exec_time_us":0.001}}}
  ROOT plain = f32[1024]{0} fusion(fast), kind=kCustom, calls=fused_negate, backend_config={"fusion_backend_config":{"kind":"__triton"},"reification_cost":[]}
}
)";

TEST_CASE("a GPU kernel's own estimate is its expected time, never below its roofline") {
  auto p = predict(kKernels, "h100");
  const OpPrediction& slow = p.op("slow");
  CHECK(slow.time_s == Approx(500e-6));
  CHECK(slow.roofline_time_s < 10e-6);  // the roofline is left alone
  CHECK(slow.model() == "kernel's own estimate (XLA cost model sol)");
  // 500 us = 0.0005 s; compute 20 us, memory 480 us.
  CHECK_THAT(std::string(slow.explanation()),
             Catch::Contains("reification_cost") && Catch::Contains("0.0005 s") &&
                 Catch::Contains("compute 2e-05 s, memory 0.00048 s"));
  // Below the roofline: the roofline's time is kept, and the explanation says so. f32[1024]
  // read and written, 8192 B / 3.35e12 B/s = 2.445 ns, + 1 us overhead = 1.002445 us; its floor
  // is the H100's 0.9 us launch floor (the larger of that and 2.445 ns).
  const OpPrediction& fast = p.op("fast");
  CHECK(fast.time_s == Approx(8192 / 3.35e12 + 1e-6));
  CHECK(fast.roofline_time_s == Approx(0.9e-6));
  CHECK(fast.model() == "kernel's own estimate (XLA cost model)");
  CHECK_THAT(std::string(fast.explanation()),
             Catch::Contains("fusion_backend_config.reification_cost") &&
                 Catch::Contains("below the roofline, which is kept"));
  // An empty list is no estimate.
  CHECK_THAT(std::string(p.op("plain").model()), !Catch::Contains("kernel's own estimate"));
  CHECK(p.assumes("reification_cost"));
}

TEST_CASE("kernel estimates are the GPU's: a TPU prediction ignores them") {
  auto p = predict(kKernels, "tpu_v5e");
  CHECK_THAT(std::string(p.op("slow").model()), !Catch::Contains("kernel's own estimate"));
  CHECK(p.op("slow").time_s < 10e-6);
  CHECK_FALSE(p.assumes("reification_cost"));
}

TEST_CASE("the roofline walk ignores kernel estimates") {
  PredictOptions options;
  options.roofline_only = true;
  auto p = predict(kKernels, "h100", options);
  CHECK(p.op("slow").time_s == Approx(p.op("slow").roofline_time_s));
  CHECK(p->step_time_s == Approx(p->roofline_step_time_s));
}

}  // namespace
}  // namespace hloroof
