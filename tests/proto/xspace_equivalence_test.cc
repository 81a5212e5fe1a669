// The bundled captures (tests/data/h100, tests/data/h200) hold each module twice: as module.hlo
// (XLA's text dump) and inside the XSpace, whose /host:metadata plane carries it as an
// HloProto. Read either way, it is the same module (structurally equal, and printing the same
// text) with the same prediction. Two differences are allowed, both in how XLA wrote the two:
// the numbering of the stack-frame tables (written afresh each time), and the order of
// computations (XLA's dump walks each computation's instructions in their order in memory,
// which the proto does not keep, so gemm_sweep's split-K reductions print elsewhere).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "examples.h"
#include "hloroof/hlo_proto.h"
#include "hloroof/hlo_text.h"
#include "hloroof/predict.h"
#include "hloroof/profile.h"
#include "predict_on.h"
#include "require_ok.h"

namespace fs = std::filesystem;
using namespace hloroof;

namespace {

using hloroof::testing::read_file;

// The printed module as blocks (header, each computation), sorted, with each stack_frame_id
// replaced by the stack it names (file:line function, innermost first) and the stack-frame
// tables left out: XLA numbers the tables afresh each time it writes them, so the dump and the
// proto number the same stacks differently.
std::vector<std::string> normalized_blocks(const Module& m) {
  const std::string text = print(m);
  std::vector<std::string> blocks;
  size_t start = 0;
  for (size_t at = text.find("\n\n"); start <= text.size();
       at = text.find("\n\n", start)) {
    std::string block = text.substr(start, at == std::string::npos ? std::string::npos
                                                                  : at - start);
    start = at == std::string::npos ? text.size() + 1 : at + 2;
    if (block.empty() || block.rfind("FileNames", 0) == 0 ||
        block.rfind("FunctionNames", 0) == 0 || block.rfind("FileLocations", 0) == 0 ||
        block.rfind("StackFrames", 0) == 0) {
      continue;
    }
    std::string out;
    const std::regex id("stack_frame_id=([0-9]+)");
    auto begin = std::sregex_iterator(block.begin(), block.end(), id);
    size_t last = 0;
    for (auto it = begin; it != std::sregex_iterator(); ++it) {
      out += block.substr(last, static_cast<size_t>(it->position()) - last);
      out += "stack=";
      for (const SourceFrame& f : m.stack_frames().stack(std::stoll((*it)[1].str()))) {
        out += std::string(f.file) + ":" + std::to_string(f.line) + ":" +
               std::string(f.function) + ";";
      }
      last = static_cast<size_t>(it->position() + it->length());
    }
    out += block.substr(last);
    blocks.push_back(out);
  }
  std::sort(blocks.begin(), blocks.end());
  return blocks;
}

}  // namespace

TEST_CASE("every capture's XSpace carries the module of its module.hlo") {
  int captures = 0;
  int normalized = 0;
  for (const char* gpu : {"h100", "h200"}) {
    const fs::path root = fs::path(HLOROOF_SOURCE_DIR) / "tests" / "data" / gpu;
    for (const auto& config : fs::directory_iterator(root)) {
      if (!config.is_directory()) continue;
      for (const auto& capture : fs::directory_iterator(config.path())) {
        const fs::path hlo = capture.path() / "module.hlo";
        if (!fs::exists(hlo)) continue;
        INFO(capture.path().string());
        absl::StatusOr<Module> text = parse_module(read_file(hlo));
        REQUIRE_OK(text);
        absl::StatusOr<Profile> profile = read_profile((capture.path() / "profile").string());
        REQUIRE_OK(profile);
        // The capture's module by its name (a capture also runs small helper modules).
        absl::StatusOr<const ProfileModuleProto*> carried =
            pick_profile_module(*profile, text->name());
        REQUIRE_OK(carried);
        absl::StatusOr<Module> proto = parse_hlo_proto((*carried)->hlo_proto);
        REQUIRE_OK(proto);
        // Header attributes XLA keeps in the module config, not the proto, are not compared.
        std::erase_if(text->mutable_attributes().others, [](const RawModuleAttribute& a) {
          return a.name.rfind("allow_spmd_sharding_propagation", 0) == 0;
        });
        std::string difference;
        if (structurally_equal(*text, *proto, &difference)) {
          CHECK(print(*proto) == print(*text));
        } else {
          // The same computations and instructions, each printing the same text once stack
          // frame ids are resolved, perhaps in another order.
          INFO(difference);
          CHECK(normalized_blocks(*proto) == normalized_blocks(*text));
          ++normalized;
        }
        absl::StatusOr<Prediction> from_text = testing::predict_on(*text, gpu);
        absl::StatusOr<Prediction> from_proto = testing::predict_on(*proto, gpu);
        REQUIRE_OK(from_text);
        REQUIRE_OK(from_proto);
        CHECK(from_proto->step_time_s == from_text->step_time_s);
        CHECK(from_proto->flops == from_text->flops);
        CHECK(from_proto->hbm_bytes == from_text->hbm_bytes);
        CHECK(from_proto->ops.size() == from_text->ops.size());
        ++captures;
      }
    }
  }
  // 19 examples captured twice on the H100 (default, no_command_buffers), 18 on the H200.
  CHECK(captures == 56);
  // Those whose stack frames the two number differently, or whose computations they order
  // differently (the header says why), are compared as normalized text; the rest are equal.
  CHECK(normalized < captures);}
