// infer_platform_of: which platform's compiler left its marks in a module, and where.
#include "hloroof/platform.h"

#include <string>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "catch2/catch.hpp"
#include "hloroof/hlo_text.h"
#include "require_ok.h"

namespace hloroof {
namespace {

// A module of one parameter and one negate, with `attributes` on the negate.
PlatformInference infer(std::string_view attributes, std::string_view layout = "{0}") {
  const std::string text = absl::StrCat(
      "HloModule m\nENTRY e {\n  p = f32[8]", std::string(layout),
      " parameter(0)\n  ROOT n = f32[8]{0} negate(p)", std::string(attributes), "\n}\n");
  absl::StatusOr<Module> module = parse_module(text);
  REQUIRE_OK(module);
  return infer_platform_of(*module);
}

TEST_CASE("a backend-config key of one platform's compiler tells the platform") {
  PlatformInference tpu = infer(
      R"(, backend_config={"flag_configs":[],"scoped_memory_configs":[],"x":"y"})");
  CHECK(tpu.platform == "tpu");
  CHECK(tpu.marker == "backend config \"scoped_memory_configs\"");
  CHECK(tpu.instruction == "n");

  CHECK(infer(R"(, backend_config={"operation_queue_id":"0"})").marker ==
        "backend config \"operation_queue_id\"");
  // A key marker given as a prefix ("cudnn_ and "onednn_) matches any key it starts.
  CHECK(infer(R"(, backend_config={"cudnn_conv_backend_config":{}})").platform == "gpu");
  CHECK(infer(R"(, backend_config={"onednn_matmul_config":{}})").platform == "cpu");
}

TEST_CASE("a config holding markers of two platforms: the table's first marker decides") {
  // "operation_queue_id" (GPU) comes before "outer_dimension_partitions" (CPU) in the table,
  // whichever comes first in the text; the one pass over the config's quotes must agree.
  CHECK(infer(R"(, backend_config={"outer_dimension_partitions":[],"operation_queue_id":"0"})")
            .platform == "gpu");
  CHECK(infer(R"(, backend_config={"scoped_memory_configs":[],"force_earliest_schedule":false})")
            .platform == "gpu");
}

TEST_CASE("quotes that start no marker, or end the config, tell nothing") {
  CHECK(infer(R"(, backend_config={"o":"u","s":"g","":"\""})").platform.empty());
  CHECK(infer(R"(, backend_config="\"")").platform.empty());
  // A marker key cut short is no marker.
  CHECK(infer(R"(, backend_config={"scoped_memory_config":1})").platform.empty());
}

TEST_CASE("a TPU tiled layout decides only where no marker does") {
  PlatformInference tiled = infer("", "{0:T(256)}");
  CHECK(tiled.platform == "tpu");
  CHECK(tiled.marker == "tiled layout or memory space");
  CHECK(tiled.instruction == "p");
  CHECK(infer(R"(, backend_config={"outer_dimension_partitions":[]})", "{0:T(256)}").platform ==
        "cpu");
  CHECK(infer("").platform.empty());
}

TEST_CASE("a GPU marker anywhere outranks another platform's found first") {
  absl::StatusOr<Module> module = parse_module(R"(HloModule m
ENTRY e {
  p = f32[8]{0} parameter(0)
  a = f32[8]{0} negate(p), backend_config={"scoped_memory_configs":[]}
  ROOT b = f32[8]{0} custom-call(a), custom_call_target="__cublas$gemm"
})");
  REQUIRE_OK(module);
  PlatformInference found = infer_platform_of(*module);
  CHECK(found.platform == "gpu");
  CHECK(found.marker == "custom call \"__cublas$gemm\"");
  CHECK(found.instruction == "b");
}

TEST_CASE("a config met again tells what it told the first time; another text is read anew") {
  // Configs are read once per distinct text: the second "a" config must still be a TPU
  // marker, and a GPU key in a text met later must still outrank it.
  absl::StatusOr<Module> module = parse_module(R"(HloModule m
ENTRY e {
  p = f32[8]{0} parameter(0)
  a = f32[8]{0} negate(p), backend_config={"x":1}
  b = f32[8]{0} negate(a), backend_config={"scoped_memory_configs":[]}
  c = f32[8]{0} negate(b), backend_config={"scoped_memory_configs":[]}
  d = f32[8]{0} negate(c), backend_config={"x":1}
  ROOT e = f32[8]{0} negate(d), backend_config={"scoped_memory_configs":[],"operation_queue_id":"1"}
})");
  REQUIRE_OK(module);
  PlatformInference found = infer_platform_of(*module);
  CHECK(found.platform == "gpu");
  CHECK(found.marker == "backend config \"operation_queue_id\"");
  CHECK(found.instruction == "e");

  absl::StatusOr<Module> tpu = parse_module(R"(HloModule m
ENTRY e {
  p = f32[8]{0} parameter(0)
  a = f32[8]{0} negate(p), backend_config={"x":1}
  b = f32[8]{0} negate(a), backend_config={"used_scoped_memory_configs":[]}
  ROOT c = f32[8]{0} negate(b), backend_config={"used_scoped_memory_configs":[]}
})");
  REQUIRE_OK(tpu);
  found = infer_platform_of(*tpu);
  CHECK(found.platform == "tpu");
  CHECK(found.instruction == "b");  // the first instruction that carries it
}

}  // namespace
}  // namespace hloroof
