// The profile report's layout: every line within 100 columns, op names whole where the columns
// leave room for them and otherwise cut at their separators, and a category measured above the
// step explained under the gap table.
#include <catch2/catch.hpp>

#include <sstream>
#include <string>

#include "hloroof/profile.h"

namespace hloroof {
namespace {

JoinedOp op(std::string name, bool uncertain) {
  JoinedOp o;
  o.name = std::move(name);
  o.bound = "memory";
  o.measured_s = 1.25e-3;
  o.expected_s = 1.2e-3;
  o.roofline_s = 1e-3;
  o.lost_s = 5e-5;
  o.occurrences = 100;
  o.alignment_uncertain = uncertain;
  return o;
}

ProfileComparison comparison() {
  ProfileComparison c;
  c.device = "h200:1x1";
  c.plane = "/device:GPU:0";
  c.module = "jit_train_step";
  c.profile = "x.xplane.pb";
  c.steps = 3;
  c.measured.steps_s = {12.44e-6, 9.64e-6, 9.28e-6};
  c.measured_step_s = 9.64e-6;
  c.expected_step_s = 7.49e-6;
  c.busy_s = 9.64e-6;
  c.gaps = {{"matmul", 10.4533e-6, 7.49e-6, 2.9633e-6, 1.0}, {"idle", 0, 0, 0, 0}};
  // Names of 25 to 41 characters, as XLA:GPU gives a ResNet's fusions; then ten ops whose
  // kernels launch order could give to another op (not ranked).
  c.ops = {op("convolution_add_fusion.12", false),
           op("loop_convert_reduce_fusion.345", false),
           op("cudnn_conv_bias_activation_forward.17", false)};
  for (int k = 0; k < 10; ++k) {
    c.ops.push_back(op("input_concatenate_transpose_fusion_" + std::to_string(k), true));
  }
  return c;
}

TEST_CASE("profile report: lines fit 100 columns, names are not cut where there is room") {
  const std::string text = render_profile_comparison(comparison());
  INFO(text);
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    INFO(line);
    CHECK(line.size() <= 100);
  }
  // The ranked names fit whole in the room the other columns leave (100 columns in all).
  CHECK(text.find(" convolution_add_fusion.12 ") != std::string::npos);
  CHECK(text.find(" loop_convert_reduce_fusion.345 ") != std::string::npos);
  CHECK(text.find(" cudnn_conv_bias_activation_forward.17 ") != std::string::npos);
  CHECK(text.find('~') == std::string::npos);
  // The count of unranked ops, two digits, with its explanation (103 columns on one line):
  // wrapped within 100.
  CHECK(text.find("\nNot ranked (10): launch order could give their kernels to another op as "
                  "well; their times are\n  uncertain\n") != std::string::npos);
}

TEST_CASE("profile report: a name longer than its room is cut at its separators") {
  ProfileComparison c = comparison();
  c.ops.resize(1);
  c.ops[0].name = "loop_dynamic_update_slice_convert_multiply_add_reduce_window_fusion.1234";
  const std::string text = render_profile_comparison(c);
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) CHECK(line.size() <= 100);
  // The start ends and the end starts at a separator: no word is cut.
  const size_t tilde = text.find('~');
  REQUIRE(tilde != std::string::npos);
  const size_t start = text.rfind(' ', tilde) + 1;
  const std::string shown = text.substr(start, text.find(' ', tilde) - start);
  INFO(shown);
  // 37 columns (100 less the others'): the end from a separator, at most half of them, and
  // the start up to the last separator that leaves room for it.
  CHECK(shown == "loop_dynamic_update_slice~fusion.1234");
}

TEST_CASE("profile report: a category measured above the step says why") {
  const std::string text = render_profile_comparison(comparison());
  INFO(text);
  CHECK(text.find("% of gap: of the gaps' sizes added up (a category's gap can offset another's)"
                  "\nmeasured above the step (matmul 10.5 us): a category's time is its mean over "
                  "the 3 steps: 12.4 us,\n  9.64 us, 9.28 us; the step is their median, so a "
                  "slower step raises the mean above it\n") != std::string::npos);
  ProfileComparison within = comparison();
  within.gaps[0].measured_s = 9e-6;
  CHECK(render_profile_comparison(within).find("above the step") == std::string::npos);
}

}  // namespace
}  // namespace hloroof
