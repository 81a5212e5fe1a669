// The GPU tables model of an op's expected time (GpuTableModel, docs/prediction-model.md,
// "Measured models (GPUs)"): the measured GEMM tables, the HBM share, the elementwise issue
// rate, the small-kernel floor and unaligned rows and GEMMs, with a file's calibrated
// efficiencies where it sets them.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <memory>
#include <utility>
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
#include "predict/op_model.h"
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

// The measured HBM share `device` takes: the one of the GPU its measured_on.hbm_fraction
// names; none where it names no GPU measured.
std::optional<double> hbm_fraction(const DeviceSpec& device) {
  for (const GpuHbmFraction& f : kGpuHbmFractions) {
    if (f.source == device.measured_on.hbm_fraction) return f.fraction;
  }
  return std::nullopt;
}

// How the GPU HBM fraction was measured: on the device itself, or borrowed.
std::string hbm_measured(const DeviceSpec& device) {
  const Source source = measured_source(device, device.measured_on.hbm_fraction);
  return source.borrowed ? absl::StrCat("measured on ", sv(source.name), ", borrowed")
                         : std::string("measured");
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
    double rate = same ? table_rate : table_rate / *theirs * *own;
    // A chip that borrows the tables but states the share of its peak its own large GEMMs
    // reach (gemm_plateau, measured on it) takes the table's efficiencies scaled so that the
    // table's best share reaches that plateau, as a TPU borrows TPU7x's ramp.
    const double best = table->max_flop_per_s() / *theirs;
    const double plateau = source.borrowed && device.gemm_plateau && best > 0
                               ? *device.gemm_plateau / best
                               : 1.0;
    rate *= plateau;
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
                             sv(table_class), " table, relative to each device's own peak",
                             plateau == 1.0
                                 ? std::string()
                                 : absl::StrFormat(", scaled by %.3g: the table's best, %.2f of "
                                                   "%s's peak, to this chip's gemm_plateau %.2f",
                                                   plateau, best, source.name,
                                                   *device.gemm_plateau)));
    }
  }
  return gemm_s;
}

// The small-kernel floor (docs/prediction-model.md, "Small kernels"): a kernel of XLA's own
// takes at least a start that depends on its class and GPU, plus a ramp for every doubling of
// its bytes above kKernelFloorRampFromBytes (blocks to schedule; a reduction's blocks combine
// their partial results), plus its floor's work at the speed of light. Fitted, by the median
// |log(measured / expected)| of each class, to the device times of the kernels under 3 us of
// the two shared op-family sweeps (../shared/measured/gpu_{h200,h100}_opfamilies) that no
// family model or GEMM table times; the held-out sweeps (bench/measured) check them.
// Transposes keep the other terms (their time depends on layout and stride: the op's note).
struct KernelFloor {
  std::string_view source;  // the GPU the starts were measured on
  double elementwise_s, reduction_s;
  std::string_view measured_by;  // what they were read off
};
// The MI300X's: its kernels' device time less the ramp and work, in a JAX profile of
// elementwise programs run on one (../shared/profiles/mi300, jax08_elementwise.xplane.pb):
// two elementwise kernels (2.73 and 3.86 us, their mean) and one reduction (3.79 us); the
// ramps are the NVIDIA GPUs'. Held out: six kernels under 6 us in the profiles' other
// programs, 1.9-5.5 us.
constexpr KernelFloor kKernelFloors[] = {
    {"h200", 0.87e-6, 1.01e-6, "op-family sweeps"},
    {"h100", 1.07e-6, 1.13e-6, "op-family sweeps"},
    {"mi300x", 3.30e-6, 3.79e-6, "profile of elementwise programs (fitted)"}};
constexpr double kElementwiseRampS = 0.03e-6;  // a doubling of the bytes, both GPUs
constexpr double kReductionRampS = 0.07e-6;
constexpr double kKernelFloorRampFromBytes = 1024;

// The floor's starts for `device`: those of the GPU its measured_on.kernel_floor names, its
// own or another's (`borrowed`); none for devices with a calibrated efficiency and a GPU with
// no floor measured.
const KernelFloor* kernel_floor(const DeviceSpec& device, bool& borrowed) {
  if (device.kind != DeviceKind::kGpu || !device.gpu || takes_calibrated(device)) return nullptr;
  const Source source = measured_source(device, device.measured_on.kernel_floor);
  for (const KernelFloor& f : kKernelFloors) {
    if (f.source == source.name) {
      borrowed = source.borrowed;
      return &f;
    }
  }
  return nullptr;
}

// The start and the ramp a doubling of a kernel of class `c`; {0, 0} where the floor does not
// apply.
std::pair<double, double> floor_start_ramp_s(const KernelFloor& f, KernelClass c) {
  switch (c) {
    case KernelClass::kReduction:
      return {f.reduction_s, kReductionRampS};
    case KernelClass::kElementwise:
      return {f.elementwise_s, kElementwiseRampS};
    case KernelClass::kTranspose:
    case KernelClass::kNone:
      break;
  }
  return {0, 0};
}

// The peak an unaligned GEMM's share is of: its class's, at most the bf16 one (the kernels
// that run it do not use the 8-bit path); nullopt without one.
std::optional<double> unaligned_peak(const DeviceSpec& device, std::string_view unit) {
  const std::optional<double> own = peak(device, unit);
  const std::optional<double> bf16 = peak(device, "bf16");
  if (!own || *own <= 0) return std::nullopt;
  return bf16 && *bf16 > 0 ? std::min(*own, *bf16) : *own;
}

// A GPU's model: its GEMM tables, the HBM share, the elementwise issue rate, the small-kernel
// floor, unaligned rows and GEMMs; a file's calibrated efficiencies in place of the HBM share
// and the tables where it sets them.
class GpuTableModel final : public DeviceModel {
 public:
  GpuTableModel(const DeviceSpec& device, GemmTimeCache& gemm_times)
      : device_(device), gemm_times_(gemm_times) {}
  OpEstimate estimate(const OpView& op, OpEstimate e) const override;
  std::string_view explain(const OpEstimate& e, TextMemo& memo) const override {
    const auto* basis = std::get_if<GpuOpBasis>(&e.basis);
    return basis == nullptr ? std::string_view() : explain_gpu_op(e.model_s, *basis, device_, memo);
  }

 private:
  const DeviceSpec& device_;
  GemmTimeCache& gemm_times_;
};

OpEstimate GpuTableModel::estimate(const OpView& op, OpEstimate out) const {
  const DeviceSpec& device = device_;
  const absl::Span<const GemmCall> gemms = op.gemms;
  const OpWork& work = op.work;
  const RooflineEstimate& roofline = out.roofline;
  const IssueTime& issue = op.issue;
  std::vector<std::string>& assumptions = out.notes.assumptions;
  const double unaligned_share = op.unaligned_share;
  const bool matmul_knob = device.matmul_efficiency_set;
  const bool hbm_knob = device.hbm_efficiency_set;
  const double overhead = op.include_overhead ? device.per_op_overhead_s : 0.0;
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
  const std::optional<double> measured_hbm = hbm_fraction(device);
  for (const RooflineTerm& t : roofline.terms) {
    if (t.bound == Bound::kHbm && (hbm_knob || measured_hbm)) {
      const double fraction = hbm_knob ? device.hbm_efficiency : *measured_hbm;
      double s = t.time_s / fraction;
      // Bytes a kernel cannot move in 16-byte vectors, at the rate such kernels were measured
      // at (a calibrated share already holds them).
      if (!hbm_knob && unaligned_share > 0 && device.hbm_unaligned_bandwidth) {
        const double achievable = fraction * device.hbm_bandwidth;
        const double rate = std::min(achievable, *device.hbm_unaligned_bandwidth);
        const double bytes = t.time_s * device.hbm_bandwidth;
        s = bytes * (1 - unaligned_share) / achievable + bytes * unaligned_share / rate;
        basis.unaligned_share = unaligned_share;
        basis.unaligned_rate = rate;
      }
      // Elements a loop fusion reads across rows: a sector each, in place of their own bytes.
      if (!hbm_knob && op.strided.elements > 0) {
        const double own = std::min(op.strided.bytes, t.time_s * device.hbm_bandwidth);
        s += op.strided.elements * kGpuSectorBytes / device.hbm_bandwidth -
             own / (fraction * device.hbm_bandwidth);
        basis.strided_elements = op.strided.elements;
      }
      basis.terms.push_back({Term::kHbm, s});
      basis.hbm_fraction = fraction;
      basis.hbm_calibrated = hbm_knob;
      // The fraction was measured on one GPU; the others borrow it.
      consider(s, [hbm_knob, &device] {
        return hbm_knob ? std::string("calibrated hbm_efficiency")
                        : absl::StrCat("achievable HBM (", hbm_measured(device), ")");
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
    // In a program sharded over several GPUs, at the share of the table's rate they keep.
    const double gemm_s = table_gemm_time(gemms, device, source, *tables, *src, &gemm_times_,
                                          assumptions, used, outside) /
                          op.matrix_share;
    if (used > 0) {
      basis.table = source.name;
      basis.gemms = used;
      basis.outside = outside;
      basis.gemm_s = gemm_s;
      basis.matrix_share = op.matrix_share;
      if (op.matrix_share < 1) out.notes.use_figure("sharded_compute_share");
      if (source.borrowed && device.gemm_plateau) out.notes.use_figure("gemm_plateau");
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
  // GEMMs with an unaligned row: at the share of the peak such kernels were measured at, not
  // the aligned tables' extrapolation.
  double unaligned_fastest_s = 0, unaligned_slowest_s = 0;
  if (basis.gemms > 0) {
    double typical = 0, fastest = 0, slowest = 0;
    for (const GemmCall& c : gemms) {
      const std::optional<double> peak = unaligned_peak(device, c.unit);
      if (c.unaligned_dim == 0 || !peak) continue;
      // Measured on one GPU: a sharded program keeps its share of it too.
      const double at_peak_s = c.shape.flops() * c.factor / (*peak * op.matrix_share);
      typical += at_peak_s / kUnalignedGemmShare;
      fastest += at_peak_s / kUnalignedGemmFastest;
      slowest += at_peak_s / kUnalignedGemmSlowest;
      if (basis.unaligned_gemms++ == 0) basis.unaligned_dim = c.unaligned_dim;
    }
    if (typical > basis.gemm_s) {
      basis.terms.push_back({Term::kUnalignedGemm, typical});
      basis.unaligned_fastest_s = fastest;
      basis.unaligned_slowest_s = slowest;
      // No faster than the aligned table gives the same work.
      unaligned_fastest_s = std::max(fastest, basis.gemm_s);
      unaligned_slowest_s = slowest;
      consider(typical, [] { return std::string("gemm, unaligned dimension (measured range)"); });
    } else {
      basis.unaligned_gemms = 0;
    }
  }
  // A kernel of XLA's own that computes stores an element at a time: its written bytes'
  // elements at the device's store rate, where it states one (store_element_bytes).
  if (!hbm_knob && device.stores_per_s && op.store_element_bytes > 0) {
    const double written = std::max(0.0, work.hbm_bytes - work.hbm_read_bytes);
    const double elements = written / op.store_element_bytes;
    const double s = elements / *device.stores_per_s;
    // Said only when it is the slowest term (it then sets the expected time).
    if (s > terms) {
      basis.terms.push_back({Term::kStores, s});
      basis.stored_elements = elements;
      // The model names the figure's source: measured, derived (borrowed) or set.
      consider(s, [&device] {
        const DeviceFigure* f = device.figure("stores_per_s");
        return absl::StrCat("element stores (stores_per_s, ", f ? f->source : "set", ")");
      });
    }
  }
  // Elementwise work at the lanes' issue rate, each op costed by its measured profile; said
  // only when it is the slowest term (it then sets the expected time).
  if (!issue.profile.empty() && issue.time_s > terms) {
    basis.terms.push_back({Term::kIssue, issue.time_s});
    basis.element_ops = issue.element_ops;
    basis.slots = issue.slots;
    basis.profile = issue.profile;
    consider(issue.time_s, [&issue] {
      return absl::StrCat("elementwise issue (op profiles ", issue.profile, ", measured",
                          issue.bf16_as_f16 ? "; bf16 ops as f16, borrowed" : "", ")");
    });
  }
  if (model == "roofline" || terms + overhead <= roofline.time_s) {
    model = "roofline (no measured model)";
  }
  double time_s = std::max(roofline.time_s, terms + overhead);
  const bool ranged = model == "gemm, unaligned dimension (measured range)";
  // A small kernel of XLA's own: the floor of its class, when it is longer. GEMMs keep their
  // table's (its smallest measured kernel).
  const KernelClass kernel = op.kernel_class;
  bool floor_borrowed = false;
  const KernelFloor* floor = op.include_overhead && kernel != KernelClass::kNone &&
                                     basis.gemms == 0
                                 ? kernel_floor(device, floor_borrowed)
                                 : nullptr;
  const auto [start, per_doubling] =
      floor != nullptr ? floor_start_ramp_s(*floor, kernel) : std::pair<double, double>{0, 0};
  if (start > 0) {
    const double ramp =
        per_doubling *
        std::max(0.0, std::log2(std::max(work.hbm_bytes, 1.0) / kKernelFloorRampFromBytes));
    const double floor_s = start + ramp + roofline.floor_work_s;
    if (floor_s > time_s) {
      time_s = floor_s;
      basis.terms.push_back({Term::kKernelFloor, floor_s});
      basis.kernel_class = kernel;
      basis.floor_start_s = start;
      basis.floor_ramp_s = ramp;
      basis.floor_per_doubling_s = per_doubling;
      basis.floor_work_s = roofline.floor_work_s;
      basis.floor_source = floor->source;
      basis.floor_borrowed = floor_borrowed;
      model = floor_borrowed ? absl::StrCat("small-kernel floor (measured on ",
                                            sv(floor->source), ", borrowed)")
                             : "small-kernel floor (measured)";
      note_once(assumptions,
                floor_borrowed
                    ? absl::StrCat(device.name, " small kernels: the small-kernel floor of the ",
                                   absl::AsciiStrToUpper(sv(floor->source)), "'s ",
                                   sv(floor->measured_by), ", borrowed")
                    : absl::StrCat(device.name, " small kernels: the small-kernel floor "
                                                "measured on its ",
                                   sv(floor->measured_by)));
    }
  }
  if (basis.unaligned_share > 0) out.notes.use_figure("hbm.unaligned_bandwidth");
  if (absl::StartsWith(model, "element stores")) out.notes.use_figure("stores_per_s");
  out.model = std::move(model);
  out.model_s = time_s;
  if (time_s > out.time_s) out.time_s = time_s;
  if (ranged) {
    out.range = TimeRange{
        .low_s = std::max(roofline.time_s, std::min(out.time_s, unaligned_fastest_s + overhead)),
        .high_s = std::max(out.time_s, unaligned_slowest_s + overhead),
        .low = absl::StrCat("unaligned GEMMs at ", kUnalignedGemmFastest,
                            " of peak, the fastest measured"),
        .high = absl::StrCat("at ", kUnalignedGemmSlowest, " of peak, the slowest measured")};
  }
  out.device_model = this;
  if ((basis.gemms > 0 || !basis.terms.empty()) && time_s > roofline.time_s) {
    out.basis = std::move(basis);
  }
  if (op.layout_sensitive) {
    out.layout_sensitive = true;
    out.notes.assume(
        "FFTs and transposes on GPUs: modelled as memory traffic only; the axis they stride "
        "along is not, and programs of such kernels took 1.0-1.7x their expected time on one "
        "A100 node (jaxdecomp 3D FFTs: expected/measured 0.60-0.98, the 256^3 ones and the "
        "inverse ones over a 2 x 4 grid the lowest): read their times as uncertain by up to "
        "1.7x");
  }
  return out;
}

}  // namespace

bool takes_gpu_tables(const DeviceSpec& device) { return device.kind == DeviceKind::kGpu; }

std::unique_ptr<DeviceModel> make_gpu_table_model(const DeviceSpec& device,
                                                  GemmTimeCache& gemm_times) {
  return std::make_unique<GpuTableModel>(device, gemm_times);
}

std::string_view explain_gpu_op(double time_s, const GpuOpBasis& basis, const DeviceSpec& device,
                                TextMemo& memo) {
  using Term = GpuOpBasis::Term;
  FigureKey& key = memo.new_key();
  key.add(ExplanationKind::kOp);
  key.add(reinterpret_cast<uintptr_t>(&device));
  key.add(time_s);
  key.add_fields(basis);
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
          basis.matrix_share < 1
              ? absl::StrCat(", / ", util::fixed_text(basis.matrix_share, 2),
                             " in a program sharded over several GPUs (sharded_compute_share)")
              : std::string(),
          ": ", seconds(basis.gemm_s)));
    }
    for (const auto& [term, s] : basis.terms) {
      switch (term) {
        case Term::kHbm:
          how.push_back(absl::StrCat(
              "HBM at ", util::fixed_text(basis.hbm_fraction, 2), " of its bandwidth (",
              basis.hbm_calibrated ? "hbm_efficiency, calibrated" : sv(hbm_measured(device)),
              ")",
              basis.unaligned_share == 0
                  ? std::string()
                  : absl::StrCat(", ", util::fixed_text(100 * basis.unaligned_share, 0),
                                 "% of its bytes in rows that are not whole 16-byte vectors at ",
                                 util::general_text(basis.unaligned_rate / 1e12, 3),
                                 " TB/s (hbm.unaligned_bandwidth)"),
              basis.strided_elements == 0
                  ? std::string()
                  : absl::StrCat(", ", util::general_text(basis.strided_elements, 4),
                                 " elements read across rows by a loop-emitted transpose at a ",
                                 kGpuSectorBytes, "-byte sector each (measured on an H200)"),
              ": ", seconds(s)));
          break;
        case Term::kMatrix:
          how.push_back(absl::StrCat("matrix at ", util::fixed_text(basis.matmul_efficiency, 2),
                                     " of peak (matmul_efficiency, calibrated): ", seconds(s)));
          break;
        case Term::kStores:
          how.push_back(absl::StrCat(util::general_text(basis.stored_elements, 4),
                                     " elements stored at ",
                                     util::general_text(*device.stores_per_s, 3),
                                     " a second (stores_per_s): ", seconds(s)));
          break;
        case Term::kIssue:
          how.push_back(absl::StrCat(util::general_text(basis.element_ops, 4),
                                     " element ops at ",
                                     util::general_text(basis.slots / basis.element_ops, 3),
                                     " issue slots each (op profiles ", sv(basis.profile), ") on ",
                                     util::general_text(device.vector_flops_per_s / 2, 4),
                                     " lane slots/s: ", seconds(s)));
          break;
        case Term::kUnalignedGemm:
          how.push_back(absl::StrCat(
              basis.unaligned_gemms, " GEMM", basis.unaligned_gemms == 1 ? "" : "s",
              " with rows of ", basis.unaligned_dim,
              " (not a whole number of 16-byte vectors: other kernels and loads) at ",
              util::fixed_text(kUnalignedGemmShare, 2), " of peak, ",
              util::fixed_text(kUnalignedGemmSlowest, 3), "-",
              util::fixed_text(kUnalignedGemmFastest, 3),
              " measured (ten such GEMMs on an H200; the aligned table extrapolates higher): ",
              seconds(s), ", range ", seconds(basis.unaligned_fastest_s), " to ",
              seconds(basis.unaligned_slowest_s)));
          break;
        case Term::kKernelFloor:
          how.push_back(absl::StrCat(
              "small-kernel floor: a ", sv(kernel_class_name(basis.kernel_class)),
              " kernel takes at least ", seconds(basis.floor_start_s), " + ",
              seconds(basis.floor_ramp_s), " (",
              util::general_text(basis.floor_per_doubling_s * 1e6, 2),
              " us a doubling of its bytes above ",
              util::general_text(kKernelFloorRampFromBytes, 4), " B) + its floor's work ",
              seconds(basis.floor_work_s), " (measured on ", sv(basis.floor_source),
              basis.floor_borrowed ? ", borrowed" : "", "): ", seconds(s)));
          break;
      }
    }
    const bool floored = !basis.terms.empty() && basis.terms.back().first == Term::kKernelFloor;
    return absl::StrCat(floored ? "expected = max(max(terms as measured) + overhead, "
                                  "small-kernel floor) = "
                                : "expected = max(terms as measured) + overhead = ",
                        seconds(time_s),
                        " (", absl::StrJoin(how, "; "), ")");
  });
}

}  // namespace hloroof::predict
