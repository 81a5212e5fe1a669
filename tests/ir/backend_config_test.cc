// Kernel time estimates in backend_config (docs/sources.md, "Kernel cost estimates").
#include "hloroof/backend_config.h"

#include <catch2/catch.hpp>

namespace hloroof {
namespace {

TEST_CASE("a kernel time estimate is read where XLA's GPU backend config keeps one") {
  // Newer XLA: a list at the top level; the first entry with a positive exec_time_us counts.
  std::optional<KernelTimeEstimate> top =
      BackendConfig(
          R"({"operation_queue_id":"0","reification_cost":[{"end_to_end_cycles":100},)"
          R"({"exec_time_us":12.5,"compute_time_us":10,"memory_access_time_us":"4","name":"sol"}]})")
          .kernel_time_estimate();
  REQUIRE(top);
  CHECK(top->exec_time_s == Approx(12.5e-6));
  CHECK(top->compute_time_s == Approx(10e-6));
  CHECK(top->memory_access_time_s == Approx(4e-6));  // a JSON string, as 64-bit fields are
  CHECK(top->model == "sol");
  CHECK(top->key == "reification_cost");

  // Older XLA: one message under fusion_backend_config.
  std::optional<KernelTimeEstimate> fusion =
      BackendConfig(R"({"fusion_backend_config":{"kind":"__triton","reification_cost":)"
                    R"({"end_to_end_cycles":1980,"exec_time_us":1}}})")
          .kernel_time_estimate();
  REQUIRE(fusion);
  CHECK(fusion->exec_time_s == Approx(1e-6));
  CHECK(fusion->compute_time_s == 0);
  CHECK(fusion->model.empty());
  CHECK(fusion->key == "fusion_backend_config.reification_cost");

  std::optional<KernelTimeEstimate> gemm =
      BackendConfig(R"({"gemm_backend_config":{"reification_cost":[{"exec_time_us":3}]}})")
          .kernel_time_estimate();
  REQUIRE(gemm);
  CHECK(gemm->key == "gemm_backend_config.reification_cost");
}

TEST_CASE("no kernel time estimate where none is usable") {
  // What XLA writes on most instructions.
  CHECK_FALSE(
      BackendConfig(R"({"operation_queue_id":"0","reification_cost":[]})").kernel_time_estimate());
  // Cycles alone: turning them into time needs the clock the estimate assumed.
  CHECK_FALSE(
      BackendConfig(R"({"fusion_backend_config":{"reification_cost":{"end_to_end_cycles":38.4}}})")
          .kernel_time_estimate());
  CHECK_FALSE(
      BackendConfig(R"({"reification_cost":[{"exec_time_us":-1}]})").kernel_time_estimate());
  CHECK_FALSE(
      BackendConfig(R"({"reification_cost":[{"exec_time_us":"nan"}]})").kernel_time_estimate());
  CHECK_FALSE(BackendConfig(R"({"reification_cost":"12"})").kernel_time_estimate());
  CHECK_FALSE(BackendConfig("not json {").kernel_time_estimate());
  CHECK_FALSE(BackendConfig("").kernel_time_estimate());
  CHECK_FALSE(BackendConfig("[1, 2]").kernel_time_estimate());
}

}  // namespace
}  // namespace hloroof
