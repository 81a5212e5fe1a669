// accuracy_bench: how close the roofline and the expected time come to the measured tables
// (data/measured/*.tsv: GPUs from openxla/xla, TPU7x from accelerator-microbenchmarks).
//
// Every measured row is in the fit half or the test half (by shape, a fixed hash:
// measured::in_fit_half); the shipped model is fitted on the fit half only. For each device and
// op class this prints, on the test half (or the fit half with --fit), for the roofline and for
// the expected time: the median of |predicted / measured - 1|, the median ratio
// predicted / measured, and the share of rows within 10% and 25%.
//
//   accuracy_bench          # test half
//   accuracy_bench --fit    # fit half, for comparison
//   accuracy_bench --loo    # how the GEMM tables' options were chosen, on the fit half alone
//   accuracy_bench --captures [DIR]   # against real profiles (default tests/data/h100, h200)
//   accuracy_bench --rows   # every row of both halves: CLASS<TAB>HALF<TAB>EXPECTED/MEASURED
//                           # (what bench/ledger.py reads)
//
// --loo predicts every fit-half GEMM row from the other fit-half rows of its table (leave one
// shape out) with each GemmFitOptions of a grid around the shipped one, and prints per option
// the worst and the mean of the classes' median |expected / measured - 1| (the expected time
// of a lone GEMM: the slowest of the table's time, HBM at kGpuHbmFraction and the roofline).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_format.h"
#include "hloroof/collective.h"
#include "hloroof/device.h"
#include "hloroof/device_target.h"
#include "hloroof/hlo_text.h"
#include "hloroof/input_file.h"
#include "hloroof/predict.h"
#include "hloroof/profile.h"
#include "hloroof/roofline.h"
#include "hloroof/topology.h"
#include "predict/expected_time.h"
#include "predict/measured_models.h"
#include "predict/op_model.h"
#include "predict/tpu_models.h"

#include "predict_named.h"

namespace {

using hloroof::bench::predict_named;
using hloroof::bench::predict_text;

using hloroof::PrimitiveType;
namespace measured = hloroof::measured;
namespace predict = hloroof::predict;

struct Ratios {
  std::vector<double> roofline, expected;  // predicted / measured
};

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : (v[h - 1] + v[h]) / 2;
}

std::string summary(const std::vector<double>& ratios) {
  std::vector<double> err;
  int in10 = 0, in25 = 0;
  for (double r : ratios) {
    err.push_back(std::abs(r - 1));
    in10 += std::abs(r - 1) <= 0.10;
    in25 += std::abs(r - 1) <= 0.25;
  }
  const double n = static_cast<double>(ratios.size());
  return absl::StrFormat("%6.1f%% %6.3f %4.0f%% %4.0f%%", 100 * median(err), median(ratios),
                         100 * in10 / n, 100 * in25 / n);
}

PrimitiveType type_named(std::string_view name) {
  if (name == "bf16") return PrimitiveType::kBF16;
  if (name == "f32") return PrimitiveType::kF32;
  if (name == "f8e4m3fn") return PrimitiveType::kF8E4M3FN;
  if (name == "f8e5m2") return PrimitiveType::kF8E5M2;
  return PrimitiveType::kInvalid;
}

// "bf16xbf16->bf16" -> lhs, rhs, out types.
bool parse_dtypes(const std::string& s, PrimitiveType& lhs, PrimitiveType& rhs,
                  PrimitiveType& out) {
  const size_t x = s.find('x'), arrow = s.find("->");
  if (x == std::string::npos || arrow == std::string::npos) return false;
  lhs = type_named(s.substr(0, x));
  rhs = type_named(s.substr(x + 1, arrow - x - 1));
  out = type_named(s.substr(arrow + 2));
  return lhs != PrimitiveType::kInvalid && rhs != PrimitiveType::kInvalid &&
         out != PrimitiveType::kInvalid;
}

double bytes_of(PrimitiveType t) {
  return t == PrimitiveType::kF32 ? 4 : t == PrimitiveType::kBF16 ? 2 : 1;
}

std::string size_class(double flops) {
  if (flops < std::exp2(30)) return "small";
  if (flops < std::exp2(35)) return "medium";
  return "large";
}

std::string dtype_label(PrimitiveType lhs) {
  return lhs == PrimitiveType::kF32    ? "f32 (tf32)"
         : lhs == PrimitiveType::kBF16 ? "bf16"
                                       : "fp8";
}

// A measured GEMM row as a prediction sees it: its work, and its roofline as a kernel duration
// (no launch overhead).
struct GemmCase {
  hloroof::OpWork work;
  hloroof::RooflineEstimate roof;
};

GemmCase gemm_case(const hloroof::DeviceSpec& device, const measured::GemmShape& s,
                   PrimitiveType lhs, PrimitiveType rhs, PrimitiveType result) {
  GemmCase c;
  c.work.matrix_flops = s.flops();
  c.work.matrix_type = lhs;  // the tables pair like types, or two fp8 types
  c.work.matrix_class = predict::matrix_unit(device, c.work.matrix_type, false, false);
  c.work.hbm_bytes = s.b * (s.m * s.k * bytes_of(lhs) + s.k * s.n * bytes_of(rhs) +
                            s.m * s.n * bytes_of(result));
  c.roof = hloroof::roofline_time(device, c.work,
                                  {.include_overhead = false, .apply_efficiency = false});
  return c;
}

void gemms(bool test_half, std::map<std::string, Ratios>& out) {
  std::map<std::string, hloroof::DeviceSpec> specs;
  for (const measured::GemmRecord& r : measured::gemm_records()) {
    if (measured::in_fit_half(r.shape_key()) == test_half) continue;
    if (!specs.contains(r.device)) {
      absl::StatusOr<hloroof::DeviceSpec> d = hloroof::device(r.device);
      if (!d.ok()) continue;
      specs.emplace(r.device, *d);
    }
    const hloroof::DeviceSpec& device = specs.at(r.device);
    PrimitiveType lhs, rhs, result;
    if (!parse_dtypes(r.dtypes, lhs, rhs, result)) continue;
    const measured::GemmShape& s = r.row.shape;
    const double measured_s = s.flops() / r.row.flop_per_s;
    const GemmCase c = gemm_case(device, s, lhs, rhs, result);
    const hloroof::OpWork& work = c.work;
    const hloroof::RooflineEstimate& roof = c.roof;
    predict::OpView op;
    op.work = work;
    op.include_overhead = false;
    op.gemms = {predict::GemmCall{s, lhs, rhs, work.matrix_class}};
    predict::OpEstimate roofline;
    roofline.roofline = roof;
    roofline.time_s = roof.time_s;
    predict::GemmTimeCache gemm_times;
    const predict::OpEstimate e =
        predict::pick_device_model(device, gemm_times)->estimate(op, std::move(roofline));
    const std::string dtype = dtype_label(lhs);
    // A row faster than the dense peak of its class cannot be a dense GEMM as measured (87 H100
    // fp8 rows upstream, up to 1.32 x peak): the model leaves it out of its fit, and here it is
    // scored on a line of its own, not in its size class.
    const auto peak = device.matrix_flops_per_s.find(work.matrix_class);
    const bool suspect =
        peak != device.matrix_flops_per_s.end() && r.row.flop_per_s > peak->second;
    Ratios& k = out[absl::StrFormat("%-6s gemm %-6s %s", r.device,
                                    suspect ? "above-peak" : size_class(s.flops()),
                                    dtype)];
    k.roofline.push_back(roof.time_s / measured_s);
    k.expected.push_back(e.time_s / measured_s);
  }
}

void collectives(bool test_half, std::map<std::string, Ratios>& out) {
  std::map<std::string, hloroof::DeviceSpec> specs;
  for (const measured::CollectiveRecord& r : measured::collective_records()) {
    if (measured::in_fit_half(r.shape_key()) == test_half) continue;
    if (!specs.contains(r.device)) {
      absl::StatusOr<hloroof::DeviceSpec> d = hloroof::device(r.device);
      if (!d.ok()) continue;  // gb300: measured, but no device spec
      specs.emplace(r.device, *d);
    }
    const hloroof::DeviceSpec& device = specs.at(r.device);
    // collective-permute: group_size is the number of source-target pairs (8 devices on an
    // 8-GPU node; one pair per device on the larger NVLink domains).
    const int64_t total = std::max<int64_t>(
        8, r.op == "collective-permute" ? r.group_size : r.groups * r.group_size);
    absl::StatusOr<hloroof::Topology> topology =
        hloroof::make_topology(device, absl::StrFormat("1x%d", total));
    if (!topology.ok()) continue;
    hloroof::CollectiveInput in;
    in.bytes = r.point.bytes;
    if (r.op == "collective-permute") {
      in.kind = hloroof::CollectiveKind::kCollectivePermute;
      const int64_t shift = r.group_size == 4 ? 4 : 1;
      for (int64_t i = 0; i < r.group_size; ++i) in.pairs.emplace_back(i, (i + shift) % total);
    } else {
      in.kind = r.op == "all-reduce"       ? hloroof::CollectiveKind::kAllReduce
                : r.op == "all-gather"     ? hloroof::CollectiveKind::kAllGather
                : r.op == "reduce-scatter" ? hloroof::CollectiveKind::kReduceScatter
                                           : hloroof::CollectiveKind::kAllToAll;
      // The table's all-to-all size is one device's buffer; V is N of them.
      if (in.kind == hloroof::CollectiveKind::kAllToAll) {
        in.bytes *= static_cast<double>(r.group_size);
      }
      for (int64_t g = 0; g < r.groups; ++g) {
        std::vector<int64_t>& group = in.groups.emplace_back();
        for (int64_t d = 0; d < r.group_size; ++d) group.push_back(g * r.group_size + d);
      }
    }
    absl::StatusOr<hloroof::CollectiveEstimate> roof =
        hloroof::collective_time(device, *topology, in);
    if (!roof.ok()) continue;
    std::vector<std::string> notes;
    const predict::CollectiveExpectedTime e =
        predict::expected_collective_time(in.kind, *roof, device, notes);
    Ratios& k = out[absl::StrFormat("%-6s %-18s", r.device, r.op)];
    k.roofline.push_back(roof->time_s / r.point.time_s);
    k.expected.push_back(e.time_s / r.point.time_s);
  }
}

// The expected time of the TPU7x GEMM microbenchmark `left` with its row left out of the ramp:
// a GEMM alone takes the ramp's time (the fixed cost is the fit's latency, taken out of the
// work and added back), never below its roofline. 0 when the rest does not fit.
double gemm_left_out_s(const measured::TpuRecord& left, double roofline_s) {
  std::vector<measured::TpuRecord> rest;
  for (const measured::TpuRecord& r : measured::tpu_records()) {
    if (r.fit_half && &r != &left) rest.push_back(r);
  }
  absl::StatusOr<hloroof::DeviceSpec> spec = hloroof::device(measured::kTpuTableDevice);
  if (!spec.ok()) return 0;
  absl::StatusOr<measured::TpuFits> fits = measured::fit_tpu(rest, *spec);
  const hloroof::DeviceFigure* width = spec->figure("mxu_size");
  if (!fits.ok() || width == nullptr) return 0;
  const double padded = measured::padded_flops({1, left.size, left.size, left.size},
                                                static_cast<int64_t>(width->value));
  return std::max(roofline_s, fits->gemm_time_s(padded));
}

// The TPU7x microbenchmarks (data/measured/tpu7x.tsv), each row predicted end to end from the
// HLO of what the benchmark ran: dot(bf16[m,m], bf16[m,m]), a copy of the array, the all-gather
// of its even and odd device ids on the slice it names (docs/prediction-model.md, "Measured
// models (TPUs)"). The measured time is the rate's work over its rate. Every GEMM row is a
// knot of the shipped ramp (TpuRecord::fit_half): the test half scores each but the smallest,
// which nothing below it could bound, with its own row left out of the ramp.
void tpus(bool test_half, std::map<std::string, Ratios>& out) {
  double smallest_gemm = 0;
  for (const measured::TpuRecord& r : measured::tpu_records()) {
    if (r.table == "gemm" && (smallest_gemm == 0 || r.size < smallest_gemm)) {
      smallest_gemm = r.size;
    }
  }
  for (const measured::TpuRecord& r : measured::tpu_records()) {
    const bool left_out = test_half && r.table == "gemm" && r.size > smallest_gemm;
    if (!left_out && r.fit_half == test_half) continue;
    std::string hlo, device = "tpu7x";
    const auto size = static_cast<int64_t>(r.size);
    if (r.table == "gemm") {
      hlo = absl::StrFormat(
          "HloModule g\nENTRY e {\n a = bf16[%d,%d] parameter(0)\n b = bf16[%d,%d] parameter(1)\n"
          " ROOT d = bf16[%d,%d] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}",
          size, size, size, size, size, size);
    } else if (r.table == "hbm") {
      hlo = absl::StrFormat("HloModule c\nENTRY e {\n p = f32[%d] parameter(0)\n"
                            " ROOT c = f32[%d] copy(p)\n}",
                            size / 4, size / 4);
    } else {
      // One TensorCore of every chip per group: even ids, odd ids (8 devices on 2x2x1, 16 on
      // 2x2x2: groups of 4 over the first 4 chips' cores, as the benchmark's mesh).
      const int64_t rows = size / (4 * 8 * 128);
      hlo = absl::StrFormat(
          "HloModule ag, num_partitions=8\nENTRY e {\n p = f32[%d,8,128] parameter(0)\n"
          " ROOT g = f32[%d,8,128] all-gather(p), channel_id=1, replica_groups={{0,2,4,6},"
          "{1,3,5,7}}, dimensions={0}, use_global_device_ids=true\n}",
          rows, rows * r.group);
      device = "tpu7x:" + r.slice;
    }
    absl::StatusOr<hloroof::Prediction> p = predict_text(hlo, device);
    if (!p.ok()) {
      std::fprintf(stderr, "tpu7x %s %g: %s\n", r.table.c_str(), r.size,
                   std::string(p.status().message()).c_str());
      continue;
    }
    const double expected_s =
        left_out ? gemm_left_out_s(r, p->roofline_step_time_s) : p->step_time_s;
    if (!(expected_s > 0)) continue;
    Ratios& k = out[absl::StrFormat("%-6s %-18s", "tpu7x", r.table)];
    k.roofline.push_back(p->roofline_step_time_s / r.time_s());
    k.expected.push_back(expected_s / r.time_s());
  }
}

void leave_one_out() {
  // The fit half of every table, above-peak rows left out as the shipped model does; with each
  // row, the slowest of its other terms as the expected time takes them (the roofline, HBM at
  // kGpuHbmFraction), so that a row is scored as a prediction of it would be.
  std::map<std::pair<std::string, std::string>, std::vector<measured::GemmRow>> tables;
  std::map<std::pair<std::string, std::string>, std::vector<double>> other_terms;
  std::map<std::string, hloroof::DeviceSpec> specs;
  for (const measured::GemmRecord& r : measured::gemm_records()) {
    if (!measured::in_fit_half(r.shape_key())) continue;
    if (!specs.contains(r.device)) {
      absl::StatusOr<hloroof::DeviceSpec> d = hloroof::device(r.device);
      if (!d.ok()) continue;
      specs.emplace(r.device, *d);
    }
    PrimitiveType lhs, rhs, result;
    if (!parse_dtypes(r.dtypes, lhs, rhs, result)) continue;
    const hloroof::DeviceSpec& device = specs.at(r.device);
    const auto peak =
        device.matrix_flops_per_s.find(predict::matrix_unit(device, lhs, false, false));
    if (peak != device.matrix_flops_per_s.end() && r.row.flop_per_s > peak->second) continue;
    tables[{r.device, r.dtypes}].push_back(r.row);
    const GemmCase c = gemm_case(device, r.row.shape, lhs, rhs, result);
    double other = c.roof.time_s;
    for (const hloroof::RooflineTerm& t : c.roof.terms) {
      if (t.bound == hloroof::Bound::kHbm) {
        other = std::max(other, t.time_s / predict::kGpuHbmFraction);
      }
    }
    other_terms[{r.device, r.dtypes}].push_back(other);
  }
  std::printf("leave-one-shape-out on the fit half of data/measured GEMM tables: per option, the\n"
              "worst and the mean over classes (device, size, type) of the median "
              "|expected / measured - 1|\n");
  std::printf("%10s %6s | %6s  %-28s | %6s\n", "neighbours", "aspect", "worst", "(class)",
              "mean");
  const measured::GemmFitOptions shipped;
  for (size_t neighbours : {12, 16, 24, 32}) {
    for (double aspect : {0.05, 0.1, 0.15, 0.2, 0.5, 1.0}) {
      const measured::GemmFitOptions options{neighbours, aspect};
      std::map<std::string, std::vector<double>> errors;
      for (const auto& [key, rows] : tables) {
        PrimitiveType lhs, rhs, result;
        if (!parse_dtypes(key.second, lhs, rhs, result)) continue;
        for (size_t i = 0; i < rows.size(); ++i) {
          std::vector<measured::GemmRow> others = rows;
          others.erase(others.begin() + static_cast<std::ptrdiff_t>(i));
          absl::StatusOr<measured::GemmTable> table =
              measured::GemmTable::from_rows(others, options);
          if (!table.ok()) continue;
          const measured::GemmShape& s = rows[i].shape;
          const double measured_s = s.flops() / rows[i].flop_per_s;
          const double expected_s = std::max(other_terms.at(key)[i], table->time_s(s));
          errors[absl::StrFormat("%s %s %s", key.first, size_class(s.flops()), dtype_label(lhs))]
              .push_back(std::abs(expected_s / measured_s - 1));
        }
      }
      double worst = 0, sum = 0;
      std::string worst_class;
      for (const auto& [name, e] : errors) {
        const double m = median(e);
        sum += m;
        if (m > worst) {
          worst = m;
          worst_class = name;
        }
      }
      const bool is_shipped = neighbours == shipped.neighbours && aspect == shipped.aspect;
      std::printf("%10zu %6.2f | %5.1f%%  %-28s | %5.2f%%%s\n", neighbours, aspect, 100 * worst,
                  ("(" + worst_class + ")").c_str(),
                  errors.empty() ? 0.0 : 100 * sum / static_cast<double>(errors.size()),
                  is_shipped ? "  shipped" : "");
    }
  }
}

}  // namespace

// The built-in device a capture ran on, from its meta.json's device_kind ("NVIDIA H200").
std::string device_of(const std::filesystem::path& capture) {
  absl::StatusOr<hloroof::InputFile> file =
      hloroof::read_input_file((capture / "meta.json").string());
  const std::string_view meta = file.ok() ? file->text() : std::string_view();
  for (const auto& [kind, device] : {std::pair{"H200", "h200"}, std::pair{"H100", "h100"},
                                     std::pair{"B200", "b200"}, std::pair{"A100", "a100"}}) {
    if (meta.find(kind) != std::string::npos) return device;
  }
  return "h100";
}

// --captures: each capture folder under DIR/SET/NAME (tools/capture/capture.py) predicted
// for the device it ran on and joined with its profile, as `hloroof profile` does. Prints each
// step's measured, expected and roofline time, and per set and bound the op-level summary
// (each joined op's per-step time; ops under 2 us left out of the summary, launch noise).
int captures(const std::string& root) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(root, ec)) {
    std::fprintf(stderr, "accuracy_bench: %s: no such folder of captures\n", root.c_str());
    return 1;
  }
  std::vector<fs::path> sets;
  for (const auto& e : fs::directory_iterator(root)) {
    if (e.is_directory()) sets.push_back(e.path());
  }
  std::sort(sets.begin(), sets.end());
  std::printf("real captures under %s (time per step)\n", root.c_str());
  for (const fs::path& set : sets) {
    std::vector<fs::path> dirs;
    for (const auto& e : fs::directory_iterator(set)) {
      if (e.is_directory()) dirs.push_back(e.path());
    }
    std::sort(dirs.begin(), dirs.end());
    std::printf("\n%s/%s\n%-18s %10s %10s %10s %8s %8s\n", fs::path(root).filename().c_str(),
                set.filename().c_str(), "capture",
                "measured", "expected", "roofline", "exp/meas", "roof/meas");
    std::vector<double> steps_expected, steps_roofline;
    std::map<std::string, Ratios> bounds;
    for (const fs::path& dir : dirs) {
      absl::StatusOr<hloroof::InputFile> text =
          hloroof::read_input_file((dir / "module.hlo").string());
      absl::StatusOr<hloroof::Module> module =
          text.ok() ? hloroof::parse_module(*std::move(text)) : text.status();
      absl::StatusOr<hloroof::Profile> profile = hloroof::read_profile(dir.string());
      if (!module.ok() || !profile.ok()) {
        std::printf("%-18s unreadable\n", dir.filename().c_str());
        continue;
      }
      const std::string device = device_of(dir);
      absl::StatusOr<hloroof::Prediction> p = predict_named(*module, device);
      if (!p.ok()) continue;
      absl::StatusOr<hloroof::ProfileComparison> c =
          hloroof::compare_with_profile(*module, *p, *profile);
      if (!c.ok()) {
        const std::string why(c.status().message());
        std::printf("%-18s %s\n", dir.filename().c_str(), why.c_str());
        continue;
      }
      const double m = c->measured_step_s;
      std::printf("%-18s %8.1f us %8.1f us %8.1f us %8.2f %8.2f\n", dir.filename().c_str(),
                  m * 1e6, c->expected_step_s * 1e6, c->roofline_step_s * 1e6,
                  c->expected_step_s / m, c->roofline_step_s / m);
      // A prediction that is a lower bound (a loop's trip count assumed) is no estimate of the
      // step: shown, left out of the summary.
      if (p->is_lower_bound) {
        std::printf("%-18s (a lower bound: a trip count was assumed; left out below)\n", "");
        continue;
      }
      steps_expected.push_back(c->expected_step_s / m);
      steps_roofline.push_back(c->roofline_step_s / m);
      for (const hloroof::JoinedOp& op : c->ops) {
        if (op.measured_s < 2e-6) continue;
        Ratios& r = bounds[op.bound];
        r.expected.push_back(op.expected_s / op.measured_s);
        r.roofline.push_back(op.roofline_s / op.measured_s);
      }
    }
    std::printf("%-32s %4s | %-29s | %-29s\n", "", "n", "roofline", "expected");
    std::printf("%-32s %4s | %7s %6s %5s %5s | %7s %6s %5s %5s\n", "", "", "|err|", "ratio",
                "<10%", "<25%", "|err|", "ratio", "<10%", "<25%");
    std::printf("%-32s %4zu | %s | %s\n", "steps", steps_expected.size(),
                summary(steps_roofline).c_str(), summary(steps_expected).c_str());
    for (const auto& [bound, r] : bounds) {
      std::printf("%-32s %4zu | %s | %s\n", ("ops bound by " + bound).c_str(), r.expected.size(),
                  summary(r.roofline).c_str(), summary(r.expected).c_str());
    }
  }
  std::printf("\n|err|: median |predicted / measured - 1|; ratio: median predicted / measured\n");
  return 0;
}

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "--captures") == 0) {
    if (argc > 2) return captures(argv[2]);
    int failed = 0;
    for (const char* device : {"h100", "h200"}) {
      failed += captures(std::string(HLOROOF_SOURCE_DIR "/tests/data/") + device);
    }
    return failed;
  }
  if (argc > 1 && std::strcmp(argv[1], "--loo") == 0) {
    leave_one_out();
    return 0;
  }
  if (argc > 1 && std::strcmp(argv[1], "--rows") == 0) {
    for (const bool half : {true, false}) {
      std::map<std::string, Ratios> rows;
      gemms(half, rows);
      collectives(half, rows);
      tpus(half, rows);
      for (const auto& [name, r] : rows) {
        for (double x : r.expected) {
          std::printf("%s\t%s\t%.9g\n", name.c_str(), half ? "test" : "fit", x);
        }
      }
    }
    return 0;
  }
  const bool test_half = !(argc > 1 && std::strcmp(argv[1], "--fit") == 0);
  std::map<std::string, Ratios> classes;
  gemms(test_half, classes);
  collectives(test_half, classes);
  tpus(test_half, classes);
  std::printf("accuracy on the %s half of data/measured (predicted / measured time)\n",
              test_half ? "test" : "fit");
  std::printf("%-32s %4s | %-29s | %-29s\n", "device, class", "rows", "roofline", "expected");
  std::printf("%-32s %4s | %7s %6s %5s %5s | %7s %6s %5s %5s\n", "", "", "|err|", "ratio",
              "<10%", "<25%", "|err|", "ratio", "<10%", "<25%");
  for (const auto& [name, r] : classes) {
    std::printf("%-32s %4zu | %s | %s\n", name.c_str(), r.roofline.size(),
                summary(r.roofline).c_str(), summary(r.expected).c_str());
  }
  std::printf("|err|: median |predicted / measured - 1|; ratio: median predicted / measured\n");
  std::printf("above-peak: rows measured faster than the dense peak of their class (suspect; "
              "left out\nof the fit and of the size classes)\n");
  std::printf("elementwise: not scored; data/measured holds no elementwise kernel time (the op "
              "profiles\nare per-op latencies in cycles, an input of the model, not a check of "
              "it)\n");
  return 0;
}
