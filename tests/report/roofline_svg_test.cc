// The roofline plot is a valid SVG document with the roofs, the points and their labels.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <array>
#include <limits>
#include <regex>
#include <vector>
#include <string>
#include <utility>

#include "hloroof/roofline_chart.h"

namespace hloroof {
namespace {

RooflineChart sample_chart() {
  RooflineChart c;
  c.title = "tpu_v5e: step 1.23 ms <&>";
  c.memory_bandwidth = 8.19e11;  // tpu_v5e HBM (data/hardware/tpu_v5e.json)
  c.roofs = {{"bf16 matrix", 1.97e14}, {"vector", 1.4e13}};
  // A matmul at 240 FLOP/B running at 150 TFLOP/s, an elementwise fusion at 0.25 FLOP/B
  // running at its memory roof (0.25 x 819 GB/s), and a copy without FLOPs.
  c.points = {{"fusion.dot", "convolution fusion", 240, 1.5e14, 0.6},
              {"fusion.add", "loop fusion", 0.25, 0.25 * 8.19e11, 0.3},
              {"copy.1", "data movement", 0, 0, 0.1}};
  return c;
}

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

TEST_CASE("roofline SVG has roofs, points, labels and escapes text") {
  std::string svg = render_roofline_svg(sample_chart());
  CHECK(svg.rfind("<svg", 0) == 0);
  CHECK(count(svg, "<polyline") == 2);  // one per roof
  // Two plotted points and their two legend entries; the copy, not drawn, has none.
  CHECK(count(svg, "<circle") == 2 + 2);
  CHECK_THAT(svg, Catch::Contains("fusion.dot"));
  CHECK_THAT(svg, Catch::Contains("197 TFLOP/s"));
  CHECK_THAT(svg, Catch::Contains("HBM 819 GB/s"));
  CHECK_THAT(svg, Catch::Contains("1 point without FLOPs"));
  CHECK_THAT(svg, Catch::Contains("&lt;&amp;&gt;"));
  CHECK_THAT(svg, !Catch::Contains("<&>"));
}

TEST_CASE("roofline SVG stays small and finite for any figures") {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double huge = std::numeric_limits<double>::max();
  const double tiny = std::numeric_limits<double>::denorm_min();
  for (double peak : {1e308, huge, inf, nan, tiny, 0.0, -1.0}) {
    for (double bandwidth : {1e-300, tiny, huge, inf, nan, 0.0}) {
      RooflineChart c = sample_chart();
      c.roofs.push_back({"extreme", peak});
      c.memory_bandwidth = bandwidth;
      c.points.push_back({"far", "extreme", huge, huge, 0.5});
      c.points.push_back({"near", "extreme", tiny, tiny, nan});
      c.points.push_back({"nowhere", "extreme", inf, nan, inf});
      INFO("peak " << peak << ", bandwidth " << bandwidth);
      const std::string svg = render_roofline_svg(c);
      // Ticks are bounded (at most 13 grid lines per axis: kMaxTicks + 1), so is the text.
      CHECK(svg.size() < 20000);
      CHECK(count(svg, "stroke=\"#ddd\"") <= 26);
      CHECK_THAT(svg, !Catch::Contains("inf") && !Catch::Contains("nan"));
      CHECK(svg.rfind("</svg>\n") == svg.size() - 7);
    }
  }
}

TEST_CASE("roofline SVG renders with rsvg-convert") {
  if (std::system("command -v rsvg-convert >/dev/null 2>&1") != 0) {
    WARN("rsvg-convert not installed (Debian librsvg2-bin); rendering not checked");
    return;
  }
  // Under the build tree, never the source tree.
  const std::string svg_path = std::string(HLOROOF_TEST_OUT) + "/roofline_test.svg";
  const std::string png_path = std::string(HLOROOF_TEST_OUT) + "/roofline_test.png";
  std::ofstream(svg_path) << render_roofline_svg(sample_chart());
  const std::string cmd = "rsvg-convert -o " + png_path + " " + svg_path;
  REQUIRE(std::system(cmd.c_str()) == 0);
  std::ifstream png(png_path, std::ios::binary);
  char magic[4] = {};
  png.read(magic, 4);
  CHECK(std::string(magic + 1, 3) == "PNG");
}

TEST_CASE("a category keeps its colour from chart to chart") {
  RooflineChart a = sample_chart();
  RooflineChart b = sample_chart();
  // b lists its categories the other way round, and has one more.
  std::swap(b.points[0], b.points[1]);
  b.points.push_back({"fusion.x", "some new category", 1, 1e11, 0.1});
  const std::string loop = R"(fill="#ff7f0e")";  // the fixed colour of "loop fusion"
  const std::string sa = render_roofline_svg(a), sb = render_roofline_svg(b);
  CHECK(count(sa, loop) == 2);  // its point and its legend entry
  CHECK(count(sb, loop) == 2);
}

// WCAG's contrast ratio of an sRGB colour "#rrggbb" against white.
double contrast_on_white(const std::string& hex) {
  auto channel = [&](int at) {
    const double c = std::stoi(hex.substr(at, 2), nullptr, 16) / 255.0;
    return c <= 0.03928 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
  };
  const double l = 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
  return 1.05 / (l + 0.05);
}

TEST_CASE("categories without a fixed colour stand out on the white chart") {
  // "dot" (a bare matmul) and other categories outside XProf's list take a hashed colour: each
  // must keep a contrast of at least 3:1 with the background (it was 1.5:1, too faint).
  for (const char* category : {"dot", "copy", "some new category", "collective", "while"}) {
    RooflineChart c = sample_chart();
    c.points.push_back({"op.x", category, 1, 1e11, 0.1});
    const std::string svg = render_roofline_svg(c);
    const std::string marker = R"(<title>op.x ()";
    const size_t title = svg.find(marker);
    REQUIRE(title != std::string::npos);
    const size_t fill = svg.rfind("fill=\"#", title);
    REQUIRE(fill != std::string::npos);
    const std::string colour = svg.substr(fill + 6, 7);
    INFO(category << " " << colour);
    CHECK(contrast_on_white(colour) >= 3.0);
  }
}

TEST_CASE("a long title's tail goes on a second line, not off the chart") {
  RooflineChart c = sample_chart();
  c.title = "Google TPU v5e (tpu_v5e:2x2): predicted step 146 ms, HFU 40.3%; 100 of 136 ops drawn";
  const std::string svg = render_roofline_svg(c);
  CHECK_THAT(svg, Catch::Contains(">Google TPU v5e (tpu_v5e:2x2): predicted step 146 ms, HFU "
                                  "40.3%</text>"));
  CHECK_THAT(svg, Catch::Contains(">100 of 136 ops drawn</text>"));
}

// Where the SVG draws text: `<text x=.. y=..` (or a translate) and its content.
struct Text {
  double x = 0, y = 0, degrees = 0;
  std::string anchor, content;
};

std::vector<Text> texts(const std::string& svg) {
  std::vector<Text> out;
  static const std::regex text(R"re(<text ([^>]*)>([^<]*)</text>)re");
  static const std::regex xy(R"re(x="([-0-9.]+)" y="([-0-9.]+)")re");
  static const std::regex translate(
      R"re(translate\(([-0-9.]+),([-0-9.]+)\) rotate\(([-0-9.]+)\))re");
  static const std::regex rotate(R"re(rotate\(([-0-9.]+) )re");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), text); it != std::sregex_iterator();
       ++it) {
    const std::string attributes = (*it)[1].str();
    Text t;
    t.content = (*it)[2].str();
    std::smatch m;
    if (std::regex_search(attributes, m, translate)) {
      t.x = std::stod(m[1].str());
      t.y = std::stod(m[2].str());
      t.degrees = std::stod(m[3].str());
    } else if (std::regex_search(attributes, m, xy)) {
      t.x = std::stod(m[1].str());
      t.y = std::stod(m[2].str());
      if (std::regex_search(attributes, m, rotate)) t.degrees = std::stod(m[1].str());
    }
    if (attributes.find("text-anchor=\"end\"") != std::string::npos) t.anchor = "end";
    out.push_back(t);
  }
  return out;
}

TEST_CASE("the rate axis's title keeps clear of its tick labels") {
  // Tick labels end 6 px left of the plot; "100 GFLOP/s", 11 characters of about 7.2 px at
  // 12 px, is the widest. The title, rotated a quarter turn, spans its font's height (12 px)
  // left of its x. It must lie left of every tick label's start.
  const std::string svg = render_roofline_svg(sample_chart());
  double title_right = -1, ticks_left = 1e9;
  for (const Text& t : texts(svg)) {
    if (t.content == "FLOP/s" && t.degrees == -90) title_right = t.x + 3;
    if (t.anchor == "end" && t.content.find("FLOP/s") != std::string::npos && t.degrees == 0) {
      ticks_left = std::min(ticks_left, t.x - 0.6 * 12 * static_cast<double>(t.content.size()));
    }
  }
  REQUIRE(title_right > 0);
  CHECK(title_right < ticks_left);
}

TEST_CASE("the memory slope's label covers no point's marker") {
  // An H200's elementwise fusions near the slope's foot, and one tiny op that stretches the
  // rate axis over ten decades, flattening the slope (as the H200 MLP's chart).
  RooflineChart c;
  c.title = "h200";
  c.memory_bandwidth = 4.8e12;
  c.roofs = {{"bf16/f16 matrix", 9.89e14}};
  for (double intensity : {0.33, 0.5, 0.75, 1.6}) {
    c.points.push_back({"loop_fusion", "loop fusion", intensity, 0.9 * intensity * 4.8e12, 0.2});
  }
  c.points.push_back({"tiny", "loop fusion", 0.12, 1.4e6, 0.01});
  const std::string svg = render_roofline_svg(c);
  std::vector<std::array<double, 3>> markers;  // x, y, r
  static const std::regex circle(
      R"re(<circle cx="([-0-9.]+)" cy="([-0-9.]+)" r="([-0-9.]+)"[^>]*><title>)re");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), circle); it != std::sregex_iterator();
       ++it) {
    markers.push_back({std::stod((*it)[1].str()), std::stod((*it)[2].str()),
                       std::stod((*it)[3].str())});
  }
  REQUIRE(markers.size() == 5);
  bool found = false;
  for (const Text& t : texts(svg)) {
    if (t.content.rfind("HBM ", 0) != 0) continue;
    found = true;
    // The text's box, rotated by -degrees about its start: along the baseline its length
    // (0.6 em a character), across it from the baseline to the cap height (0.8 em).
    const double a = t.degrees * M_PI / 180;
    const double length = 0.6 * 12 * static_cast<double>(t.content.size());
    double nearest = 1e9;  // the least distance from the text's box into a marker's edge
    for (double along = 0; along <= length; along += 1) {
      for (double up = 0; up <= 0.8 * 12; up += 1) {
        const double x = t.x + along * std::cos(a) - up * std::sin(a);
        const double y = t.y - along * std::sin(a) - up * std::cos(a);
        for (const auto& [cx, cy, r] : markers) {
          nearest = std::min(nearest, std::hypot(x - cx, y - cy) - r);
        }
      }
    }
    CHECK(nearest >= 0);
  }
  CHECK(found);
}

TEST_CASE("an empty chart is still a valid document") {
  RooflineChart empty;
  std::string svg = render_roofline_svg(empty);
  CHECK(svg.rfind("<svg", 0) == 0);
  CHECK_THAT(svg, Catch::EndsWith("</svg>\n"));
}

}  // namespace
}  // namespace hloroof
