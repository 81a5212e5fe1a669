// The roofline chart of a prediction: the device's roofs and one point per op or category
// (figures from sample_prediction.h and data/hardware/*.json).
#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>

#include "hloroof/report.h"
#include "sample_prediction.h"

namespace hloroof {
namespace {

using testing::sample_prediction;

const RooflineChart::Point* point_named(const RooflineChart& c, const std::string& label) {
  for (const auto& p : c.points) {
    if (p.label == label) return &p;
  }
  return nullptr;
}

TEST_CASE("roofs are the device's matrix peaks, its vector rate and its HBM slope") {
  const DeviceSpec v5e = *device("tpu_v5e");
  RooflineChart c = roofline_chart(sample_prediction(), v5e);
  CHECK(c.memory_bandwidth == v5e.hbm_bandwidth);
  // tpu_v5e lists int8 3.94e14 and bf16 1.97e14, and a vector rate: highest first.
  REQUIRE(c.roofs.size() == 3);
  CHECK(c.roofs[0].label == "int8 matrix");
  CHECK(c.roofs[0].flop_rate == v5e.matrix_flops_per_s.at("int8"));
  CHECK(c.roofs[1].label == "bf16 matrix");
  CHECK(c.roofs[2].label == "vector");
  CHECK(c.roofs[2].flop_rate == v5e.vector_flops_per_s);

  // h100: bf16 and f16 share 9.89e14, fp8 and int8 1.979e15, tf32 is 4.945e14; the vector
  // rate equals f32's and f64's (6.7e13).
  RooflineChart h = roofline_chart(sample_prediction(), *device("h100"));
  std::vector<std::string> labels;
  for (const auto& r : h.roofs) labels.push_back(r.label);
  CHECK(labels == std::vector<std::string>{"fp8/int8 matrix", "bf16/f16 matrix", "tf32 matrix",
                                           "f32/f64 matrix, vector"});
}

TEST_CASE("each op is a point at its intensity and FLOP rate, sized by its time") {
  RooflineChart c = roofline_chart(sample_prediction(), *device("tpu_v5e"));
  CHECK_THAT(c.title, Catch::Contains("tpu_v5e:2x2") && Catch::Contains("12 ms") &&
                          Catch::Contains("HFU 33.4%"));
  // The all-gather's start and done spend network time: left out, and the title says so.
  REQUIRE(c.points.size() == 5);
  CHECK_THAT(c.title, Catch::Contains("5 of 7 ops drawn, 2 collective/async left out"));
  const auto* add = point_named(c, "fusion.add");
  REQUIRE(add != nullptr);
  CHECK(add->category == "loop fusion");
  CHECK(add->intensity == Approx(1e8 / 8.19e8));
  CHECK(add->flop_rate == Approx(8e10));  // 4 x 1e8 FLOP in 5 ms
  CHECK(add->share == Approx(5 / 12.002));
  const auto* conv = point_named(c, "convolution.1");
  CHECK(conv->flop_rate == Approx(1.97e14));  // on the bf16 roof
  CHECK(point_named(c, "all-gather-start.1") == nullptr);

  RooflineChart top2 = roofline_chart(sample_prediction(), *device("tpu_v5e"), {.max_points = 2});
  REQUIRE(top2.points.size() == 2);
  CHECK_THAT(top2.title, Catch::Contains("2 of 7 ops drawn, 3 smallest left out"));
  CHECK(top2.points[0].label == "fusion.add");
  CHECK(top2.points[1].label == "convolution.1");
}

TEST_CASE("by category, a point sums its ops") {
  RooflineChart c = roofline_chart(sample_prediction(), *device("tpu_v5e"), {.by_category = true});
  REQUIRE(c.points.size() == 4);  // the all-gather category is off the roofline
  CHECK_THAT(c.title, Catch::Contains("2 collective/async ops left out"));
  const auto* loop = point_named(c, "loop fusion");
  REQUIRE(loop != nullptr);
  // 4 x (1e8 + 4.1e8) FLOP over 4 x (8.19e8 + 2.0475e8) B, in 5 + 1 ms.
  CHECK(loop->intensity == Approx(2.04e9 / 4.095e9));
  CHECK(loop->flop_rate == Approx(2.04e9 / 6e-3));
  CHECK(loop->share == Approx(6 / 12.002));
}

TEST_CASE("the chart renders to PNG") {
  if (std::system("command -v rsvg-convert >/dev/null 2>&1") != 0) {
    WARN("rsvg-convert not installed (Debian librsvg2-bin); rendering not checked");
    return;
  }
  // Under the build tree, never the source tree.
  const std::string svg_path = std::string(HLOROOF_TEST_OUT) + "/roofline_view_test.svg";
  const std::string png_path = std::string(HLOROOF_TEST_OUT) + "/roofline_view_test.png";
  std::ofstream(svg_path) << render_roofline_svg(
      roofline_chart(sample_prediction(), *device("tpu_v5e")));
  REQUIRE(std::system(("rsvg-convert -o " + png_path + " " + svg_path).c_str()) == 0);
  std::ifstream png(png_path, std::ios::binary);
  char magic[4] = {};
  png.read(magic, 4);
  CHECK(std::string(magic + 1, 3) == "PNG");
}

}  // namespace
}  // namespace hloroof
