#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "hloroof/roofline_chart.h"
#include "hloroof/units.h"

namespace hloroof {
namespace {

constexpr double kWidth = 900, kHeight = 600;
// The left margin holds the rate ticks ("100 GFLOP/s", 11 characters of about 7.2 px right of
// x = kLeft - 6: from x = 25) and, left of them, the axis title (rotated, x = 6 to 18).
constexpr double kLeft = 110, kRight = 200, kTop = 50, kBottom = 70;  // margins
constexpr double kPlotW = kWidth - kLeft - kRight, kPlotH = kHeight - kTop - kBottom;
// A white outline under text keeps labels readable where they cross lines or markers.
constexpr const char* kHalo = " stroke=\"white\" stroke-width=\"3\" paint-order=\"stroke\"";
constexpr const char* kPalette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                    "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

std::string escape(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        // Control characters are not allowed in XML 1.0 text.
        if (static_cast<unsigned char>(c) >= 0x20 || c == '\n' || c == '\t') out += c;
    }
  }
  return out;
}

// Where a label's text lies, to keep labels from covering each other.
struct Box {
  double x0, y0, x1, y1;
  bool overlaps(const Box& o) const { return x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1; }
};

// The box of `text` drawn at baseline (x, y), anchored at its start or end; sans-serif glyphs
// average about 0.6 em.
Box text_box(std::string_view text, double x, double y, double font_px, bool anchor_end) {
  const double width = 0.6 * font_px * static_cast<double>(text.size());
  const double x0 = anchor_end ? x - width : x;
  return {x0, y - 0.8 * font_px, x0 + width, y + 0.2 * font_px};
}

// True when the segment (ax, ay)-(bx, by) crosses or touches the box: a label there would be
// struck through by a roof line.
bool crosses(const Box& box, double ax, double ay, double bx, double by) {
  // Clip the segment's parameter range to the box, one slab at a time (Liang-Barsky).
  double t0 = 0, t1 = 1;
  const double dx = bx - ax, dy = by - ay;
  const double p[] = {-dx, dx, -dy, dy};
  const double q[] = {ax - box.x0, box.x1 - ax, ay - box.y0, box.y1 - ay};
  for (int i = 0; i < 4; ++i) {
    if (p[i] == 0) {
      if (q[i] < 0) return false;
      continue;
    }
    const double t = q[i] / p[i];
    if (p[i] < 0) {
      t0 = std::max(t0, t);
    } else {
      t1 = std::min(t1, t);
    }
    if (t0 > t1) return false;
  }
  return true;
}

// A category keeps its colour from chart to chart: the XProf categories have fixed ones, any
// other takes one from a hash of its name.
const char* category_colour(std::string_view category) {
  static constexpr std::pair<std::string_view, size_t> kFixed[] = {
      {"convolution fusion", 0}, {"loop fusion", 1},     {"input fusion", 2},
      {"output fusion", 3},      {"data formatting", 4}, {"non-fusion elementwise", 5},
      {"custom-call", 6},        {"reduce", 8},          {"convolution", 9}};
  for (const auto& [name, index] : kFixed) {
    if (category == name) return kPalette[index];
  }
  // Darker shades, so that no hashed category takes a fixed one's colour and every one stands
  // out on the white chart (contrast at least 3:1, WCAG's figure for graphics).
  static constexpr const char* kMore[] = {"#393b79", "#637939", "#8c6d31", "#843c39", "#7b4173",
                                          "#3182bd", "#a63603", "#31a354", "#756bb1", "#525252"};
  uint32_t hash = 2166136261u;  // FNV-1a: the same on every platform and run
  for (char c : category) hash = (hash ^ static_cast<unsigned char>(c)) * 16777619u;
  return kMore[hash % std::size(kMore)];
}

// Every value drawn is first brought into [kTiny, kHuge]: a chart of any finite (or infinite)
// figures has finite coordinates and a bounded number of ticks.
constexpr double kTiny = 1e-300, kHuge = 1e300;
// At most this many grid lines per axis; wider axes draw every few decades.
constexpr double kMaxTicks = 12;

double bounded(double v) {
  if (std::isnan(v)) return kTiny;
  return std::clamp(v, kTiny, kHuge);
}

// A log10 axis spanning whole decades.
struct LogAxis {
  double lo_decade, hi_decade;  // exponents
  double step;                  // decades between grid lines
  double to(double v, double pixels) const {
    return (std::log10(bounded(v)) - lo_decade) / (hi_decade - lo_decade) * pixels;
  }
};

LogAxis axis_covering(double lo, double hi) {
  double a = std::floor(std::log10(bounded(lo))), b = std::ceil(std::log10(bounded(hi)));
  if (b <= a) b = a + 1;
  return {a, b, std::max(1.0, std::ceil((b - a) / kMaxTicks))};
}

bool plottable(const RooflineChart::Point& p) {
  return p.intensity >= kTiny && p.flop_rate >= kTiny && p.intensity <= kHuge &&
         p.flop_rate <= kHuge;
}

// The point's share of the step in [0, 1] (0 for a share that is not a number).
double share_of(const RooflineChart::Point& p) {
  return std::isnan(p.share) ? 0 : std::clamp(p.share, 0.0, 1.0);
}

// Marker radius: its area grows with the point's share of the step.
double radius(const RooflineChart::Point& p) { return 3 + 22 * std::sqrt(share_of(p)); }

std::string decade_label(double exponent, bool rate) {
  double v = std::pow(10.0, exponent);
  if (rate) return format_flop_rate(v);
  return exponent >= -3 && exponent < 5 ? absl::StrFormat("%g", v)
                                        : absl::StrFormat("1e%d", static_cast<int>(exponent));
}

// The chart's axes, the memory bandwidth its roofs slope by and where figures are drawn.
struct Frame {
  LogAxis xa, ya;
  double bw;         // bytes per second, bounded; 1 where the chart has none
  size_t unplotted;  // points that cannot be drawn
  double px(double x) const { return kLeft + xa.to(x, kPlotW); }
  double py(double y) const { return kTop + kPlotH - ya.to(y, kPlotH); }
  double x_min() const { return std::pow(10.0, xa.lo_decade); }
  double x_max() const { return std::pow(10.0, xa.hi_decade); }
};

Frame frame_of(const RooflineChart& chart) {
  double peak = 0;
  for (const auto& r : chart.roofs) {
    if (std::isfinite(r.flop_rate)) peak = std::max(peak, bounded(r.flop_rate));
  }
  const double bw = chart.memory_bandwidth > 0 ? bounded(chart.memory_bandwidth) : 1;
  const double ridge = peak > 0 ? bounded(peak / bw) : 1;

  // Axis ranges: the ridge point with two decades either side, widened to every point.
  double x_lo = bounded(ridge / 100), x_hi = bounded(ridge * 100),
         y_lo = peak > 0 ? bounded(peak / 1e4) : 1, y_hi = peak > 0 ? bounded(peak * 2) : 10;
  size_t unplotted = 0;
  for (const auto& p : chart.points) {
    if (!plottable(p)) {
      ++unplotted;
      continue;
    }
    x_lo = std::min(x_lo, p.intensity);
    x_hi = std::max(x_hi, p.intensity);
    y_lo = std::min(y_lo, p.flop_rate);
    y_hi = std::max(y_hi, p.flop_rate);
  }
  return {axis_covering(x_lo, x_hi), axis_covering(y_lo, y_hi), bw, unplotted};
}

// The chart's start: the title, the grid with a tick label per decade, the plot's frame and
// the axis titles.
std::string draw_axes(const RooflineChart& chart, const Frame& f) {
  std::string svg = absl::StrFormat(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
      "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"12\">\n"
      "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
      "<text x=\"%.0f\" y=\"22\" font-size=\"16\" font-weight=\"bold\">%s</text>\n",
      kWidth, kHeight, kWidth, kHeight, kLeft,
      escape(chart.title.substr(0, chart.title.find("; "))));
  // What follows the title's first "; " (ops left out, ...) goes on a second, smaller line.
  if (const size_t more = chart.title.find("; "); more != std::string::npos) {
    absl::StrAppendFormat(&svg, "<text x=\"%.0f\" y=\"40\" fill=\"#555\">%s</text>\n", kLeft,
                          escape(chart.title.substr(more + 2)));
  }

  // Grid and tick labels, one per decade.
  for (double e = f.xa.lo_decade; e <= f.xa.hi_decade; e += f.xa.step) {
    double x = f.px(std::pow(10.0, e));
    absl::StrAppendFormat(&svg,
                          "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                          "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
                          x, kTop, x, kTop + kPlotH, x, kTop + kPlotH + 18, decade_label(e, false));
  }
  for (double e = f.ya.lo_decade; e <= f.ya.hi_decade; e += f.ya.step) {
    double y = f.py(std::pow(10.0, e));
    absl::StrAppendFormat(&svg,
                          "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                          "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
                          kLeft, y, kLeft + kPlotW, y, kLeft - 6, y + 4, decade_label(e, true));
  }
  absl::StrAppendFormat(
      &svg,
      "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" fill=\"none\" "
      "stroke=\"#333\"/>\n"
      "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">arithmetic intensity (FLOP/B of "
      "HBM traffic)</text>\n"
      "<text transform=\"translate(16,%.0f) rotate(-90)\" text-anchor=\"middle\">FLOP/s</text>\n",
      kLeft, kTop, kPlotW, kPlotH, kLeft + kPlotW / 2, kHeight - 20, kTop + kPlotH / 2);
  return svg;
}

// Where labels may go: away from the roof lines and from the labels placed so far.
class LabelRoom {
 public:
  LabelRoom(const RooflineChart& chart, const Frame& f) {
    for (const auto& roof : chart.roofs) {
      if (roof.flop_rate <= 0) continue;
      const double knee = roof.flop_rate / f.bw;
      lines_.push_back({f.px(f.x_min()), f.py(f.x_min() * f.bw), f.px(knee), f.py(roof.flop_rate)});
      lines_.push_back({f.px(knee), f.py(roof.flop_rate), f.px(f.x_max()), f.py(roof.flop_rate)});
    }
  }
  bool crosses_a_line(const Box& box) const {
    return std::any_of(lines_.begin(), lines_.end(), [&](const Segment& s) {
      return crosses(box, s.ax, s.ay, s.bx, s.by);
    });
  }
  bool overlaps_a_label(const Box& box) const {
    return std::any_of(taken_.begin(), taken_.end(), [&](const Box& t) { return t.overlaps(box); });
  }
  void take(const Box& box) { taken_.push_back(box); }

 private:
  struct Segment {
    double ax, ay, bx, by;
  };
  std::vector<Segment> lines_;  // the roofs, which labels must not cross
  std::vector<Box> taken_;      // labels placed so far
};

// Where the memory slope's label goes: its baseline's start, its angle, and small boxes along
// it (for the labels placed after it to keep off).
struct SlopeLabel {
  double x, y, degrees;
  std::vector<Box> boxes;
};

// The label runs along the slope just above it, at the first place from the left where it
// covers no point's marker (each tried a tenth of a decade further right, while the label ends
// left of the lowest roof's knee and inside the plot); at the left end when there is none.
SlopeLabel slope_label(const RooflineChart& chart, const Frame& f, std::string_view text) {
  const double x_min = f.x_min(), bw = f.bw;
  const double radians =
      std::atan2(f.py(x_min) - f.py(x_min * 10), f.px(x_min * 10) - f.px(x_min));
  const double along_x = std::cos(radians), along_y = -std::sin(radians);  // the baseline
  const double up_x = -std::sin(radians), up_y = -std::cos(radians);       // the glyphs' height
  const double length = 0.6 * 12 * static_cast<double>(text.size());
  double knee = f.x_max();
  for (const auto& roof : chart.roofs) {
    if (roof.flop_rate > 0 && std::isfinite(roof.flop_rate)) {
      knee = std::min(knee, bounded(roof.flop_rate / bw));
    }
  }
  // Points along the text's baseline and its top, every 4 px.
  auto samples = [&](double x, double y) {
    std::vector<std::pair<double, double>> out;
    for (double t = 0; t <= length; t += 4) {
      for (double h : {-3.0, 3.0, 9.0, 12.0}) {
        out.emplace_back(x + t * along_x + h * up_x, y + t * along_y + h * up_y);
      }
    }
    return out;
  };
  struct Marker {
    double x, y, r;
  };
  std::vector<Marker> markers;
  for (const auto& p : chart.points) {
    if (plottable(p)) markers.push_back({f.px(p.intensity), f.py(p.flop_rate), radius(p) + 5});
  }
  auto clear = [&](double x, double y) {
    const std::vector<std::pair<double, double>> points = samples(x, y);
    Box span = {x, y, x, y};
    for (const auto& [sx, sy] : points) {
      if (sx < kLeft || sx > kLeft + kPlotW || sy < kTop || sy > kTop + kPlotH) return false;
      span = {std::min(span.x0, sx), std::min(span.y0, sy), std::max(span.x1, sx),
              std::max(span.y1, sy)};
    }
    for (const Marker& m : markers) {
      if (m.x + m.r < span.x0 || m.x - m.r > span.x1 || m.y + m.r < span.y0 ||
          m.y - m.r > span.y1) {
        continue;
      }
      for (const auto& [sx, sy] : points) {
        const double dx = sx - m.x, dy = sy - m.y;
        if (dx * dx + dy * dy < m.r * m.r) return false;
      }
    }
    return true;
  };
  auto place = [&](double from) {  // the baseline's start above the slope at x = `from`
    return std::pair<double, double>(f.px(from) + 8, f.py(from * bw * 2) - 4);
  };
  auto [x, y] = place(x_min);
  for (double e = 0; std::isfinite(e) && e < 64; e += 0.1) {
    const double from = x_min * std::pow(10.0, e);
    const auto [cx, cy] = place(from);
    if (cx + length * along_x > f.px(knee)) break;
    if (clear(cx, cy)) {
      x = cx;
      y = cy;
      break;
    }
  }
  SlopeLabel out{x, y, radians * 180 / M_PI, {}};
  for (double t = 0; t < length; t += 12) {
    const double bx = x + t * along_x, by = y + t * along_y;
    out.boxes.push_back({std::min(bx, bx + 12 * along_x), std::min(by, by + 12 * along_y) - 10,
                         std::max(bx, bx + 12 * along_x), std::max(by, by + 12 * along_y) + 2});
  }
  return out;
}

// Roofs: the memory slope up to each compute roof, then the flat roof, and the slope's label.
// Returns the roofs' labels, to be drawn over the points.
std::string draw_roofs(std::string& svg, const RooflineChart& chart, const Frame& f,
                       LabelRoom& room) {
  const double x_min = f.x_min(), x_max = f.x_max(), bw = f.bw;
  std::string roof_labels;
  for (const auto& roof : chart.roofs) {
    if (!(roof.flop_rate > 0) || !std::isfinite(roof.flop_rate)) continue;
    const double knee = bounded(roof.flop_rate / bw);
    absl::StrAppendFormat(&svg,
                          "<polyline fill=\"none\" stroke=\"#222\" stroke-width=\"2\" "
                          "points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f\"/>\n",
                          f.px(x_min), f.py(x_min * bw), f.px(knee), f.py(roof.flop_rate),
                          f.px(x_max), f.py(roof.flop_rate));
    // Right-aligned above the roof, else below it, else further left: wherever the label
    // crosses no roof line and no other label.
    const std::string text = absl::StrCat(roof.label, ": ", format_flop_rate(roof.flop_rate));
    const double y = f.py(roof.flop_rate);
    double lx = kLeft + kPlotW - 4, ly = y - 5;
    const std::pair<double, double> spots[] = {{kLeft + kPlotW - 4, y - 5},
                                               {kLeft + kPlotW - 4, y + 14},
                                               {kLeft + kPlotW - 120, y - 5},
                                               {kLeft + kPlotW - 120, y + 14}};
    for (const auto& [sx, sy] : spots) {
      const Box box = text_box(text, sx, sy, 12, true);
      if (box.x0 < f.px(knee) || box.y0 < kTop || box.y1 > kTop + kPlotH ||
          room.crosses_a_line(box) || room.overlaps_a_label(box)) {
        continue;
      }
      lx = sx;
      ly = sy;
      break;
    }
    absl::StrAppendFormat(&roof_labels,
                          "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" fill=\"#222\"%s>%s"
                          "</text>\n",
                          lx, ly, kHalo, escape(text));
    room.take(text_box(text, lx, ly, 12, true));
  }
  const std::string hbm = absl::StrCat("HBM ", format_byte_rate(bw));
  const SlopeLabel at = slope_label(chart, f, hbm);
  absl::StrAppendFormat(&roof_labels,
                        "<text x=\"%.1f\" y=\"%.1f\" fill=\"#222\"%s transform=\"rotate(-%.1f "
                        "%.1f %.1f)\">%s</text>\n",
                        at.x, at.y, kHalo, at.degrees, at.x, at.y, escape(hbm));
  for (const Box& b : at.boxes) room.take(b);
  return roof_labels;
}

// Points, largest first so small ones stay visible on top. Returns them in that order; each
// drawn category's colour goes to `colours`.
std::vector<const RooflineChart::Point*> draw_points(std::string& svg,
                                                     const RooflineChart& chart,
                                                     const Frame& f,
                                                     std::map<std::string, const char*>& colours) {
  std::vector<const RooflineChart::Point*> order;
  for (const auto& p : chart.points) {
    if (!plottable(p)) continue;  // the legend lists what is drawn
    colours.emplace(p.category, category_colour(p.category));
    order.push_back(&p);
  }
  std::stable_sort(order.begin(), order.end(),
                   [](auto* a, auto* b) { return share_of(*a) > share_of(*b); });
  for (const auto* p : order) {
    const double r = radius(*p);
    absl::StrAppendFormat(
        &svg,
        "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"%s\" "
        "fill-opacity=\"0.75\" stroke=\"%s\"><title>%s (%s): %.3g FLOP/B, "
        "%s, %s of step</title></circle>\n",
        f.px(p->intensity), f.py(p->flop_rate), r, colours[p->category], colours[p->category],
        escape(p->label), escape(p->category),
        p->intensity, format_flop_rate(p->flop_rate), format_percent(share_of(*p)));
  }
  return order;
}

// Labels for the largest points: right of the marker, else above, below, or on its left,
// wherever no other label is and the plot still holds it; a point with no room goes without.
void label_points(std::string& svg, const std::vector<const RooflineChart::Point*>& order,
                  int labelled_points, const Frame& f, LabelRoom& room) {
  const Box plot = {kLeft, kTop, kLeft + kPlotW, kTop + kPlotH};
  const size_t labelled = std::min<size_t>(order.size(), std::max(0, labelled_points));
  for (size_t i = 0; i < labelled; ++i) {
    const auto* p = order[i];
    const double cx = f.px(p->intensity), cy = f.py(p->flop_rate), r = radius(*p);
    const struct {
      double x, y;
      bool anchor_end;
    } candidates[] = {{cx + r + 3, cy + 4, false},
                      {cx + r * 0.7, cy - r * 0.7 - 3, false},
                      {cx + r * 0.7, cy + r * 0.7 + 11, false},
                      {cx - r - 3, cy + 4, true},
                      {cx - r * 0.7, cy - r * 0.7 - 3, true},
                      {cx - r * 0.7, cy + r * 0.7 + 11, true}};
    for (const auto& c : candidates) {
      const Box box = text_box(p->label, c.x, c.y, 11, c.anchor_end);
      const bool inside =
          box.x0 >= plot.x0 && box.x1 <= plot.x1 && box.y0 >= plot.y0 && box.y1 <= plot.y1;
      if (!inside || room.overlaps_a_label(box) || room.crosses_a_line(box)) continue;
      absl::StrAppendFormat(&svg, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\"%s%s>%s</text>\n",
                            c.x, c.y, c.anchor_end ? " text-anchor=\"end\"" : "", kHalo,
                            escape(p->label));
      room.take(box);
      break;
    }
  }
}

// Legend: one entry per category, then the note about points that cannot be drawn.
void draw_legend(std::string& svg, const std::map<std::string, const char*>& colours,
                 size_t unplotted) {
  double ly = kTop + 10;
  for (const auto& [category, colour] : colours) {
    absl::StrAppendFormat(&svg,
                          "<circle cx=\"%.0f\" cy=\"%.0f\" r=\"6\" fill=\"%s\" "
                          "fill-opacity=\"0.6\"/><text x=\"%.0f\" y=\"%.0f\">%s</text>\n",
                          kWidth - kRight + 20, ly, colour,
                          kWidth - kRight + 32, ly + 4,
                          // The margin holds about 24 characters; a longer name is cut with "~".
                          escape(category.size() > 24 ? category.substr(0, 23) + "~" : category));
    ly += 20;
  }
  if (unplotted > 0) {
    absl::StrAppendFormat(&svg,
                          "<text x=\"%.0f\" y=\"%.0f\" font-size=\"11\" fill=\"#555\">%d %s "
                          "without FLOPs or</text><text x=\"%.0f\" y=\"%.0f\" font-size=\"11\" "
                          "fill=\"#555\">HBM bytes not shown</text>\n",
                          kWidth - kRight + 14, ly + 10, unplotted,
                          unplotted == 1 ? "point" : "points", kWidth - kRight + 14, ly + 24);
  }
}

}  // namespace

std::string render_roofline_svg(const RooflineChart& chart) {
  const Frame f = frame_of(chart);
  std::string svg = draw_axes(chart, f);
  // Roofs, points and their labels, clipped to the plot.
  svg += "<g clip-path=\"url(#plot)\">\n";
  absl::StrAppendFormat(&svg,
                        "<clipPath id=\"plot\"><rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" "
                        "height=\"%.0f\"/></clipPath>\n",
                        kLeft, kTop, kPlotW, kPlotH);
  LabelRoom room(chart, f);
  const std::string roof_labels = draw_roofs(svg, chart, f, room);
  std::map<std::string, const char*> colours;
  const std::vector<const RooflineChart::Point*> order = draw_points(svg, chart, f, colours);
  label_points(svg, order, chart.labelled_points, f, room);
  svg += roof_labels;
  svg += "</g>\n";
  draw_legend(svg, colours, f.unplotted);
  svg += "</svg>\n";
  return svg;
}

}  // namespace hloroof
