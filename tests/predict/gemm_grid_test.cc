// Every GEMM of a grid of shapes, on every built-in GPU and TPU: the expected time stays within
// 3x the roofline wherever the roofline is 50 us or more (docs/prediction-model.md, "Measured
// models (GPUs)": outside the measured table the time is extrapolated along the table's
// marginal rate, not clamped to its edge).
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hloroof/device.h"
#include "hloroof/hlo_text.h"
#include "hloroof/predict.h"
#include "predict_on.h"
#include "require_ok.h"

namespace hloroof {
namespace {

struct GridShape {
  int64_t m, n, k;
};

// M, N and K from 16 to 2^23: 16, 64, 256, ..., 2^22 and 2^23.
std::vector<GridShape> grid() {
  std::vector<int64_t> sizes;
  for (int64_t s = 16; s <= (int64_t{1} << 22); s *= 4) sizes.push_back(s);
  sizes.push_back(int64_t{1} << 23);
  std::vector<GridShape> out;
  for (int64_t m : sizes) {
    for (int64_t n : sizes) {
      for (int64_t k : sizes) out.push_back({m, n, k});
    }
  }
  return out;
}

// One module holding every GEMM of the grid, dot `d<i>` of bf16[m, k] x bf16[k, n]. On a TPU the
// arrays carry the tiled layout XLA's TPU compiler gives 2-D bf16 arrays, (8, 128) tiles of
// packed pairs, so that their bytes are those the chip moves.
std::string grid_module(const std::vector<GridShape>& shapes, bool tpu) {
  const std::string layout = tpu ? "{1,0:T(8,128)(2,1)}" : "{1,0}";
  std::string text = "HloModule grid\n\nENTRY e {\n";
  std::vector<std::string> outs, types;
  for (size_t i = 0; i < shapes.size(); ++i) {
    const GridShape& s = shapes[i];
    absl::StrAppend(&text, "  a", i, " = bf16[", s.m, ",", s.k, "]", layout, " parameter(",
                    2 * i, ")\n  b", i, " = bf16[", s.k, ",", s.n, "]", layout, " parameter(",
                    2 * i + 1, ")\n  d", i, " = bf16[", s.m, ",", s.n, "]", layout, " dot(a", i,
                    ", b", i, "), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n");
    outs.push_back(absl::StrCat("d", i));
    types.push_back(absl::StrCat("bf16[", s.m, ",", s.n, "]", layout));
  }
  absl::StrAppend(&text, "  ROOT t = (", absl::StrJoin(types, ", "), ") tuple(",
                  absl::StrJoin(outs, ", "), ")\n}\n");
  return text;
}

TEST_CASE("no GEMM of the grid is expected above 3x its roofline of 50 us or more") {
  const std::vector<GridShape> shapes = grid();
  int devices = 0;
  for (const std::string& name : builtin_device_names()) {
    absl::StatusOr<DeviceSpec> spec = device(name);
    REQUIRE_OK(spec);
    if (spec->kind != DeviceKind::kGpu && spec->kind != DeviceKind::kTpu) continue;
    ++devices;
    absl::StatusOr<Module> module =
        parse_module(grid_module(shapes, spec->kind == DeviceKind::kTpu));
    REQUIRE_OK(module);
    absl::StatusOr<Prediction> p = testing::predict_on(*module, *spec);
    REQUIRE_OK(p);
    int large = 0, over = 0;
    for (const OpPrediction& op : p->ops) {
      if (op.opcode() != "dot") continue;
      if (op.roofline_time_s < 50e-6) continue;
      ++large;
      const double ratio = op.time_s / op.roofline_time_s;
      if (ratio > 3) {
        ++over;
        const GridShape& s = shapes[std::stoul(std::string(op.name().substr(1)))];
        UNSCOPED_INFO(name << " " << s.m << "x" << s.n << "x" << s.k << ": expected "
                           << op.time_s << " s, " << ratio << " x the roofline ("
                           << op.model() << ")");
      }
    }
    INFO(name);
    CHECK(large > 500);  // the grid holds that many GEMMs of 50 us or more on every device
    CHECK(over == 0);
  }
  CHECK(devices >= 12);  // data/hardware: 6 GPUs, 7 TPUs
}

}  // namespace
}  // namespace hloroof
