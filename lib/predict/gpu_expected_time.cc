// The general model of an op's expected time (expected_op_time, docs/prediction-model.md,
// "Measured models (GPUs)"): the measured GEMM tables, the HBM share and the elementwise
// issue rate on GPUs, a file's calibrated efficiencies elsewhere; TPUs with no calibration
// take the TPU fits (tpu_expected_time.cc).
#include "predict/expected_time.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <variant>

#include "absl/container/inlined_vector.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "cost/cost_internal.h"
#include "hloroof/absl_compat.h"
#include "hloroof/computation.h"
#include "predict/expected_time_internal.h"
#include "predict/gpu_families.h"
#include "predict/tpu_models.h"
#include "util/number_text.h"

namespace hloroof::predict {

namespace {

// The measured table for a GEMM of `call`'s class and types, and the class its rates are in
// units of (the table is read as efficiency relative to that peak).
const measured::GemmTable* table_for(const measured::DeviceTables& t, const GemmCall& call,
                                     std::string_view& table_class) {
  auto find = [&t](std::string_view key) -> const measured::GemmTable* {
    auto it = t.gemm.find(key);
    return it == t.gemm.end() ? nullptr : &it->second;
  };
  if (call.unit == "tf32") {
    table_class = "tf32";
    return find("f32xf32->f32");
  }
  if (call.unit == "fp8") {
    table_class = "fp8";
    const std::string key =
        absl::StrCat(sv(primitive_type_name(call.lhs)), "x", sv(primitive_type_name(call.rhs)),
                     "->bf16");
    if (const measured::GemmTable* exact = find(key)) return exact;
    return find("f8e4m3fnxf8e4m3fn->bf16");
  }
  // bf16, f16 and every class without a table of its own: the bf16 table's efficiency.
  table_class = "bf16";
  return find("bf16xbf16->bf16");
}

// How the GPU HBM fraction was measured: on the H100; other GPUs borrow it.
std::string_view hbm_measured(const DeviceSpec& device) {
  return table_device(device) == "h100" ? "measured" : "measured on h100, borrowed";
}

// The time of `gemms` on `device` from the measured tables of `source` (whose device is
// `src`); `used`: how many of them a table times (the others add nothing), `outside`: how many
// of those lie outside the table's measured shapes (extrapolated, GemmTable::time_s).
double table_gemm_time(absl::Span<const GemmCall> gemms, const DeviceSpec& device,
                       const Source& source, const measured::DeviceTables& tables,
                       const DeviceSpec& src, GemmTimeCache* cache,
                       std::vector<std::string>& assumptions, int& used, int& outside) {
  double gemm_s = 0;
  for (const GemmCall& g : gemms) {
    std::string_view table_class;
    const measured::GemmTable* table = table_for(tables, g, table_class);
    const std::optional<double> own = peak(device, g.unit);
    const std::optional<double> theirs = peak(src, table_class);
    if (table == nullptr || !own || !theirs) continue;
    // Efficiency at this shape relative to the table's peak, applied to this device's peak
    // of the class that runs: exact for the table's own device and class at its own peak (a
    // peak set anew, --set matrix_flops_per_s.bf16=..., scales the measured time with it).
    const bool same = !source.borrowed && table_class == g.unit && *own == *theirs;
    const double table_s =
        cache != nullptr ? cache->time_s(*table, g.shape) : table->time_s(g.shape);
    const double table_rate =
        table_s > 0 ? g.shape.flops() / table_s : table->max_flop_per_s();
    const double rate = same ? table_rate : table_rate / *theirs * *own;
    gemm_s += g.factor * g.shape.flops() / rate;
    ++used;
    if (!table->covers(g.shape)) ++outside;
    if (!same && !source.borrowed && table_class == g.unit) {
      note_once(assumptions,
                absl::StrCat(device.name, " ", sv(g.unit), " GEMMs: the measured ", sv(source.name),
                             " ", sv(table_class), " table's efficiency at each shape, applied "
                             "to the peak set (",
                             util::general_text(*own, 4), " FLOP/s; measured at ",
                             util::general_text(*theirs, 4), ")"));
    } else if (!same) {
      note_once(assumptions,
                absl::StrCat(device.name, " ", sv(g.unit),
                             " GEMMs: efficiency borrowed from the measured ", sv(source.name), " ",
                             sv(table_class), " table, relative to each device's own peak"));
    }
  }
  return gemm_s;
}

}  // namespace

ExpectedTime expected_op_time(absl::Span<const GemmCall> gemms, const OpWork& work,
                              const RooflineEstimate& roofline, const DeviceSpec& device,
                              bool include_overhead, std::vector<std::string>& assumptions,
                              GemmTimeCache* cache, const IssueTime& issue) {
  ExpectedTime e{roofline.time_s, "", {}};
  const bool gpu = device.kind == DeviceKind::kGpu;
  const bool matmul_knob = device.matmul_efficiency_set;
  const bool hbm_knob = device.hbm_efficiency_set;
  if (tpu_measured(device)) {
    return expected_tpu_op_time(gemms, work, roofline, device, include_overhead, assumptions);
  }
  if (!gpu && !matmul_knob && !hbm_knob) {
    e.model = "roofline (no measured model for TPUs)";
    return e;
  }
  const double overhead = include_overhead ? device.per_op_overhead_s : 0.0;
  // The terms the explanation names, with their times.
  GpuOpBasis basis;
  using Term = GpuOpBasis::Term;
  // The slowest term as expected, and the model behind it.
  double terms = 0;
  std::string model = "roofline";
  // `name` makes the model's name, only for a term that is the slowest so far.
  auto consider = [&terms, &model](double s, auto name) {
    if (s > terms) terms = s, model = name();
  };
  for (const RooflineTerm& t : roofline.terms) {
    if (t.bound == Bound::kHbm && (hbm_knob || gpu)) {
      const double fraction = hbm_knob ? device.hbm_efficiency : kGpuHbmFraction;
      const double s = t.time_s / fraction;
      // The fraction was measured on the H100; other GPUs borrow it.
      const std::string_view measured = hbm_measured(device);
      basis.terms.push_back({Term::kHbm, s});
      basis.hbm_fraction = fraction;
      basis.hbm_calibrated = hbm_knob;
      consider(s, [hbm_knob, measured] {
        return hbm_knob ? std::string("calibrated hbm_efficiency")
                        : absl::StrCat("achievable HBM (", sv(measured), ")");
      });
    } else if (t.bound == Bound::kMatrix && matmul_knob) {
      const double s = t.time_s / device.matmul_efficiency;
      basis.terms.push_back({Term::kMatrix, s});
      basis.matmul_efficiency = device.matmul_efficiency;
      consider(s, [] { return std::string("calibrated matmul_efficiency"); });
    } else {
      consider(t.time_s, [] { return std::string("roofline"); });
    }
  }

  // GEMMs: the measured tables.
  const Source source = gemm_source(device);
  const measured::DeviceTables* tables =
      source.name.empty() ? nullptr : measured::tables_for(source.name);
  const DeviceSpec* src = source.name.empty() ? nullptr : source_spec(source.name);
  if (!matmul_knob && work.matrix_flops > 0 && tables != nullptr && src != nullptr) {
    int used = 0, outside = 0;
    const double gemm_s = table_gemm_time(gemms, device, source, *tables, *src, cache,
                                          assumptions, used, outside);
    if (used > 0) {
      basis.table = source.name;
      basis.gemms = used;
      basis.outside = outside;
      basis.gemm_s = gemm_s;
      // A GEMM outside the table's measured shapes is extrapolated (GemmTable::time_s).
      consider(gemm_s, [&source, outside] {
        return absl::StrCat("gemm table ", sv(source.name),
                            source.borrowed ? " (measured, borrowed"
                            : outside > 0   ? " (measured, extrapolated"
                                            : " (measured, interpolated",
                            source.borrowed && outside > 0 ? ", extrapolated)" : ")");
      });
    }
  }
  // Elementwise work at the lanes' issue rate, each op costed by its measured profile; said
  // only when it is the slowest term (it then sets the expected time).
  if (gpu && !issue.profile.empty() && issue.time_s > terms) {
    basis.terms.push_back({Term::kIssue, issue.time_s});
    basis.element_ops = issue.element_ops;
    basis.slots = issue.slots;
    basis.profile = issue.profile;
    consider(issue.time_s, [&issue] {
      return absl::StrCat("elementwise issue (op profiles ", issue.profile, ", measured)");
    });
  }
  if (model == "roofline" || terms + overhead <= roofline.time_s) {
    model = gpu ? "roofline (no measured model)" : "roofline";
  }
  e.model = model;
  e.time_s = std::max(roofline.time_s, terms + overhead);
  if ((basis.gemms > 0 || !basis.terms.empty()) && e.time_s > roofline.time_s) {
    e.basis = std::move(basis);
  }
  return e;
}

// The explanation of a GPU op's expected time `e` (expected_op_time).
std::string_view explain_gpu_op(const ExpectedTime& e, const GpuOpBasis& basis,
                                const DeviceSpec& device, TextMemo& memo) {
  using Term = GpuOpBasis::Term;
  FigureKey& key = memo.new_key();
  key.add(ExplanationKind::kOp);
  key.add(reinterpret_cast<uintptr_t>(&device));
  key.add(e.time_s);
  key.add(basis.gemms);
  key.add(basis.outside);
  key.add(basis.gemm_s);
  for (const auto& [term, s] : basis.terms) {
    key.add(term);
    key.add(s);
    if (term == Term::kIssue) {
      key.add(basis.element_ops);
      key.add(basis.slots);
      key.add_text(basis.profile);
    }
  }
  return memo.text(key.bytes(), [&] {
    std::vector<std::string> how;
    if (basis.gemms > 0) {
      how.push_back(absl::StrCat(
          basis.gemms, " GEMM", basis.gemms == 1 ? "" : "s", " from the measured ",
          sv(basis.table), " table",
          basis.outside == 0
              ? std::string()
              : absl::StrCat(" (",
                             basis.outside == basis.gemms ? "" : absl::StrCat(basis.outside, " "),
                             "outside its measured shapes: extrapolated, the tile-padded work "
                             "beyond its edge at its marginal rate there)"),
          ": ", seconds(basis.gemm_s)));
    }
    for (const auto& [term, s] : basis.terms) {
      switch (term) {
        case Term::kHbm:
          how.push_back(absl::StrCat(
              "HBM at ", util::fixed_text(basis.hbm_fraction, 2), " of its bandwidth (",
              basis.hbm_calibrated ? "hbm_efficiency, calibrated" : sv(hbm_measured(device)),
              "): ", seconds(s)));
          break;
        case Term::kMatrix:
          how.push_back(absl::StrCat("matrix at ", util::fixed_text(basis.matmul_efficiency, 2),
                                     " of peak (matmul_efficiency, calibrated): ", seconds(s)));
          break;
        case Term::kIssue:
          how.push_back(absl::StrCat(util::general_text(basis.element_ops, 4),
                                     " element ops at ",
                                     util::general_text(basis.slots / basis.element_ops, 3),
                                     " issue slots each (op profiles ", sv(basis.profile), ") on ",
                                     util::general_text(device.vector_flops_per_s / 2, 4),
                                     " lane slots/s: ", seconds(s)));
          break;
      }
    }
    return absl::StrCat("expected = max(terms as measured) + overhead = ", seconds(e.time_s),
                        " (", absl::StrJoin(how, "; "), ")");
  });
}

}  // namespace hloroof::predict
