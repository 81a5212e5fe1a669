// Kernel time estimates in backend_config (docs/sources.md, "Kernel cost estimates").
#include "hloroof/backend_config.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

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

TEST_CASE("lookups in a row decode a text once, and any other bytes anew") {
  // Two configs of one length: each lookup answers from its own text, in any order.
  const std::string a = R"({"k":{"n":"7"},"s":"xx","f":1.5,"b":true})";
  const std::string b = R"({"k":{"n":"9"},"s":"y","f":2.5,"b":false})";
  REQUIRE(a.size() == b.size());
  for (int round = 0; round < 2; ++round) {
    CHECK(BackendConfig(a).find_int("/k/n") == 7);  // "7": as XLA writes 64-bit integers
    CHECK(BackendConfig(a).find_string("/s") == "xx");
    CHECK(BackendConfig(b).find_int("/k/n") == 9);
    CHECK(BackendConfig(b).find_double("/f") == 2.5);
    CHECK(BackendConfig(a).find_bool("/b") == true);
    CHECK(BackendConfig(b).find_bool("/b") == false);
    CHECK(BackendConfig(a).find_json("/k") == R"({"n":"7"})");
  }
  // The same bytes of memory changed in place (a module freed, another read where it was):
  // the new text's values.
  std::string text = a;
  const BackendConfig view(text);
  CHECK(view.find_int("/k/n") == 7);
  text[11] = '8';  // {"k":{"n":"8"}...
  CHECK(view.find_int("/k/n") == 8);
  text = "not json, as long ";
  const BackendConfig bad(text);
  CHECK_FALSE(bad.is_json());
  CHECK_FALSE(bad.find_int("/k/n"));
  CHECK(BackendConfig(a).is_json());
  // A pointer that is not one, or points nowhere: no value, no throw.
  CHECK_FALSE(BackendConfig(a).find_int("k"));
  CHECK_FALSE(BackendConfig(a).find_int("/missing/n"));
  CHECK_FALSE(BackendConfig("").find_int("/k/n"));
}

TEST_CASE("a GEMM call's dimensions and precision are read in either layout XLA writes") {
  // Current XLA: under gemm_backend_config, 64-bit integers as JSON strings.
  const std::optional<GemmConfig> nested =
      BackendConfig(R"({"operation_queue_id":"0","gemm_backend_config":{"alpha_real":1,)"
                    R"("dot_dimension_numbers":{"lhs_contracting_dimensions":["3"],)"
                    R"("rhs_contracting_dimensions":["3"],)"
                    R"("lhs_batch_dimensions":["0","1"],"rhs_batch_dimensions":["0","1"]},)"
                    R"("precision_config":{"operand_precision":["DEFAULT","HIGHEST"],)"
                    R"("algorithm":"ALG_DOT_TF32_TF32_F32"}}})")
          .gemm_config();
  REQUIRE(nested);
  CHECK(nested->lhs_batch == std::vector<int64_t>{0, 1});
  CHECK(nested->lhs_contracting == std::vector<int64_t>{3});
  CHECK(nested->operand_precision == std::vector<std::string>{"DEFAULT", "HIGHEST"});
  CHECK(nested->algorithm == "ALG_DOT_TF32_TF32_F32");

  // Older XLA: at the top level, numbers; no batch dimensions listed.
  const std::optional<GemmConfig> flat =
      BackendConfig(R"({"alpha_real":1,"dot_dimension_numbers":{"lhs_contracting_dimensions":[1],)"
                    R"("rhs_contracting_dimensions":[0]}})")
          .gemm_config();
  REQUIRE(flat);
  CHECK(flat->lhs_batch.empty());
  CHECK(flat->lhs_contracting == std::vector<int64_t>{1});
  CHECK(flat->operand_precision.empty());  // no precision_config
  CHECK(flat->algorithm.empty());

  // A list stops at its first entry that is not an integer.
  const std::optional<GemmConfig> odd =
      BackendConfig(R"({"dot_dimension_numbers":{"lhs_contracting_dimensions":[2,"x",4]}})")
          .gemm_config();
  REQUIRE(odd);
  CHECK(odd->lhs_contracting == std::vector<int64_t>{2});

  // No contracting list, in either place: not a GEMM's config.
  CHECK_FALSE(BackendConfig(R"({"gemm_backend_config":{"dot_dimension_numbers":)"
                            R"({"lhs_batch_dimensions":["0"]}}})")
                  .gemm_config());
  CHECK_FALSE(BackendConfig(R"({"lhs_contracting_dimensions":[1]})").gemm_config());
  CHECK_FALSE(BackendConfig("lhs_contracting_dimensions").gemm_config());
  CHECK_FALSE(BackendConfig("").gemm_config());
}

}  // namespace
}  // namespace hloroof
