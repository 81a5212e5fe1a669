// A roofline plot as an SVG document, written by the project (no plotting dependency).
// The chart takes plain numbers, so anything that has intensities and rates can be drawn.
#ifndef HLOROOF_ROOFLINE_CHART_H_
#define HLOROOF_ROOFLINE_CHART_H_

#include <string>
#include <vector>

namespace hloroof {

struct RooflineChart {
  struct Roof {
    std::string label;      // e.g. "bf16 matrix"
    double flop_rate = 0;   // FLOP/s
  };
  struct Point {
    std::string label;      // op or category name
    std::string category;   // picks the colour; also the legend entry
    double intensity = 0;   // FLOP per HBM byte
    double flop_rate = 0;   // achieved (predicted) FLOP/s
    double share = 0;       // fraction of step time, sizes the marker
  };
  std::string title;
  double memory_bandwidth = 0;  // B/s: the slope
  std::vector<Roof> roofs;
  std::vector<Point> points;
  int labelled_points = 8;      // the largest points (by share) get a text label
};

// Log-log chart: x = arithmetic intensity (FLOP/B), y = FLOP/s; one horizontal roof per entry
// of `roofs`, the memory slope, one marker per point sized by share and coloured by category.
// Points without FLOPs or bytes cannot sit on log axes: they are counted in a note instead.
std::string render_roofline_svg(const RooflineChart& chart);

}  // namespace hloroof

#endif  // HLOROOF_ROOFLINE_CHART_H_
