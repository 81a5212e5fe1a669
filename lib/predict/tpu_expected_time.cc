// The TPU fits model of the expected time (TpuFitModel, docs/prediction-model.md, "Measured
// models (TPUs)"): ops' GEMMs on the measured ramp, HBM and the host link at their measured
// shares and a fitted per-op fixed cost; collectives on the fitted ICI latency and share.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <memory>
#include <optional>
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
#include "hloroof/instruction.h"
#include "hloroof/module.h"
#include "predict/expected_time_internal.h"
#include "predict/gpu_families.h"
#include "predict/op_model.h"
#include "predict/tpu_models.h"
#include "util/number_text.h"

namespace hloroof::predict {

namespace {

// Whether the TPU tables were measured on `device` itself (else it borrows them).
bool own_tpu_tables(const DeviceSpec& device) {
  const Source source = measured_source(device, device.measured_on.tpu_fits);
  return !source.name.empty() && !source.borrowed;
}

// Whether host-offload copies take the host link's measured share (kTpuHostFraction): its
// measured_on.host_link names the TPU it was measured on.
bool takes_host_fraction(const DeviceSpec& device) {
  return device.measured_on.host_link == kTpuHostFractionDevice;
}

// ", borrowed" when the host link's share was measured on another TPU, else empty.
const char* host_borrowed(const DeviceSpec& device) {
  return measured_source(device, device.measured_on.host_link).borrowed ? ", borrowed" : "";
}

// The tpu7x spec, whose peaks the TPU tables are in units of.
const DeviceSpec* tpu_table_spec() {
  static const auto* s = new absl::StatusOr<DeviceSpec>(device(measured::kTpuTableDevice));
  return s->ok() ? &**s : nullptr;
}

// The names of the TPU models an op's expected time may come from, for one provenance
// (tpu_provenance): made once, as every op names one.
struct TpuModelNames {
  std::string gemm;        // "gemm table tpu7x (measured on tpu7x)"
  std::string hbm;         // "achievable HBM (measured on tpu7x)"
  std::string fixed_cost;  // "per-op fixed cost (measured on tpu7x)"
};

const TpuModelNames& tpu_model_names(const DeviceSpec& device) {
  auto names = [](const std::string& from) {
    return new TpuModelNames{
        absl::StrCat("gemm table ", measured::kTpuTableDevice, " (", from, ")"),
        absl::StrCat("achievable HBM (", from, ")"),
        absl::StrCat("per-op fixed cost (", from, ")")};
  };
  static const TpuModelNames* own =
      names(absl::StrCat("measured on ", measured::kTpuTableDevice));
  static const TpuModelNames* borrowed =
      names(absl::StrCat("measured on ", measured::kTpuTableDevice, ", borrowed"));
  return own_tpu_tables(device) ? *own : *borrowed;
}

// The fits' figures as every op's explanation prints them (the fits are the process's own,
// measured::tpu_fits(), so the text is made once).
struct TpuFitTexts {
  std::string hbm_fraction;  // "%.3f"
  std::string fixed_cost;    // seconds(per-op fixed cost)
  std::string no_fixed_cost;  // seconds(0)
};

const TpuFitTexts& tpu_fit_texts(const measured::TpuFits& fits) {
  static const auto* texts = new TpuFitTexts{util::fixed_text(fits.hbm_fraction, 3),
                                             seconds(fits.hbm.latency_s), seconds(0.0)};
  return *texts;
}

// The MXU width of a spec; 128 (and said) when the spec has none.
int64_t mxu_of(const DeviceSpec& device, std::vector<std::string>& assumptions) {
  if (const DeviceFigure* f = device.figure("mxu_size"); f != nullptr && f->value >= 1) {
    return static_cast<int64_t>(f->value);
  }
  note_once(assumptions, absl::StrCat(device.name, " gives no mxu_size: GEMMs padded to 128 "
                                                   "(assumed)"));
  return 128;
}

}  // namespace

bool tpu_measured(const DeviceSpec& device) {
  return device.kind == DeviceKind::kTpu && !device.matmul_efficiency_set &&
         device.measured_on.tpu_fits == measured::kTpuTableDevice &&
         !device.hbm_efficiency_set && measured::tpu_fits() != nullptr &&
         tpu_table_spec() != nullptr;
}

std::optional<DeviceSpec> tpu_spec_for_gemm_alone(const Module& module,
                                                   const DeviceSpec& device) {
  if (!device.gemm_plateau || !tpu_measured(device) || !own_tpu_tables(device)) {
    return std::nullopt;
  }
  // The entry's one op that does work (what is left after parameters, constants, tuples and
  // bitcasts), if it is the only one.
  const Instruction* work = nullptr;
  for (const Instruction* i : module.entry()->instructions()) {
    switch (i->opcode()) {
      case Opcode::kParameter:
      case Opcode::kConstant:
      case Opcode::kTuple:
      case Opcode::kGetTupleElement:
      case Opcode::kBitcast:
        continue;
      default:
        break;
    }
    if (work != nullptr) return std::nullopt;
    work = i;
  }
  if (work == nullptr) return std::nullopt;
  const auto is_gemm = [](const Instruction& i) {
    return i.opcode() == Opcode::kDot || i.opcode() == Opcode::kConvolution;
  };
  bool gemm = is_gemm(*work);
  if (work->opcode() == Opcode::kFusion) {
    for (const Computation* c : work->called_computations()) {
      for (const Instruction* i : c->instructions()) gemm = gemm || is_gemm(*i);
    }
  }
  if (!gemm) return std::nullopt;
  DeviceSpec alone = device;
  alone.gemm_plateau.reset();
  std::erase_if(alone.figures, [](const DeviceFigure& f) { return f.path == "gemm_plateau"; });
  return alone;
}

const std::string& tpu_provenance(const DeviceSpec& device) {
  static const auto* own = new std::string(absl::StrCat("measured on ", measured::kTpuTableDevice));
  static const auto* borrowed =
      new std::string(absl::StrCat("measured on ", measured::kTpuTableDevice, ", borrowed"));
  return own_tpu_tables(device) ? *own : *borrowed;
}

namespace {

// The explanation of a TPU op's expected time `time_s` made on `device` from `basis`.
std::string_view explain_tpu_op(double time_s, const TpuOpBasis& basis, const DeviceSpec& device,
                                TextMemo& memo);

// A TPU's fits (tpu_models.h): its ops' GEMMs on the measured ramp, HBM and the host link at
// their measured shares, and the fitted per-op fixed cost.
class TpuFitModel final : public DeviceModel {
 public:
  explicit TpuFitModel(const DeviceSpec& device) : device_(device) {}
  OpEstimate estimate(const OpView& op, OpEstimate e) const override;
  std::string_view explain(const OpEstimate& e, TextMemo& memo) const override {
    const auto* basis = std::get_if<TpuOpBasis>(&e.basis);
    return basis == nullptr ? std::string_view() : explain_tpu_op(e.model_s, *basis, device_, memo);
  }

 private:
  const DeviceSpec& device_;
};

OpEstimate TpuFitModel::estimate(const OpView& op, OpEstimate out) const {
  const DeviceSpec& device = device_;
  const absl::Span<const GemmCall> gemms = op.gemms;
  const OpWork& work = op.work;
  const RooflineEstimate& roofline = out.roofline;
  const bool include_overhead = op.include_overhead;
  std::vector<std::string>& assumptions = out.notes.assumptions;
  const measured::TpuFits& fits = *measured::tpu_fits();
  const TpuModelNames& names = tpu_model_names(device);
  // The terms the explanation names, in its order, with their times.
  TpuOpBasis basis;
  using Term = TpuOpBasis::Term;
  basis.gemms = gemms.size();
  basis.include_overhead = include_overhead;
  static const std::string* const kRoofline = new std::string("roofline");
  static const std::string* const kHostLink =
      new std::string(absl::StrCat("host link (measured on ", kTpuHostFractionDevice, ")"));
  double terms = 0;
  // The model of the slowest term so far; copied into the result once, at the end.
  const std::string* model = kRoofline;
  auto consider = [&terms, &model](double s, const std::string& name) {
    if (s > terms) terms = s, model = &name;
  };
  bool gemm_done = false;
  // The share of its peak this chip's large GEMMs reach: its gemm_plateau figure (inside
  // programs), else tpu7x's measured plateau (GEMMs alone) on tpu7x and its peak on another
  // chip. The measured ramp is scaled to it.
  const double chip_plateau = device.gemm_plateau.value_or(
      own_tpu_tables(device) ? fits.gemm_plateau : 1.0);
  basis.chip_plateau = chip_plateau;
  const double ramp_scale = fits.gemm_plateau / chip_plateau;
  if (work.matrix_flops > 0 && !gemms.empty()) {
    const int64_t mxu = mxu_of(device, assumptions);
    double gemm_s = 0;
    for (const GemmCall& g : gemms) {
      const std::optional<double> own = peak(device, g.unit);
      const double own_peak = own ? *own : peak(device, "bf16").value_or(0);
      if (!(own_peak > 0)) continue;
      // The ramp by time at peak: this GEMM takes padded / own_peak at this chip's peak; the
      // tpu7x GEMM as long at tpu7x's bf16 peak (padded x gemm_peak / own_peak FLOPs) reaches
      // the efficiency measured there, and so does this one: what keeps a small GEMM below
      // peak (filling the MXUs' pipelines, the first DMAs) is time, which a slower chip
      // spends over more FLOPs. The work part of the measured time (its fixed cost taken out)
      // then is this GEMM's time. Another chip borrows the ramp relative to tpu7x's plateau:
      // its own large GEMMs reach its gemm_plateau, else its peak, as TPU v2's did in the
      // scaling book's profile (docs/accuracy.md, "TPUs").
      const double padded = measured::padded_flops(g.shape, mxu);
      const double as_long = padded * fits.gemm_peak / own_peak;
      const double work_s = std::max(0.0, fits.gemm_time_s(as_long) - fits.hbm.latency_s);
      gemm_s += std::max(padded / own_peak, work_s * ramp_scale);
      if (g.unit != "bf16") {
        note_once(assumptions,
                  absl::StrCat(device.name, " ", sv(g.unit),
                               " GEMMs: efficiency of the measured ", measured::kTpuTableDevice,
                               " bf16 GEMMs, relative to the ", sv(g.unit), " peak (assumed)"));
      }
    }
    if (gemm_s > 0) {
      gemm_done = true;
      basis.terms.push_back({Term::kGemm, gemm_s});
      basis.mxu = mxu;
      consider(gemm_s, names.gemm);
    }
  }
  for (const RooflineTerm& t : roofline.terms) {
    if (t.bound == Bound::kHbm) {
      const double s = t.time_s / fits.hbm_fraction;
      basis.terms.push_back({Term::kHbm, s});
      consider(s, names.hbm);
    } else if (t.bound == Bound::kHost && takes_host_fraction(device)) {
      const double s = t.time_s / kTpuHostFraction;
      basis.terms.push_back({Term::kHost, s});
      consider(s, *kHostLink);
    } else if (t.bound == Bound::kMatrix && gemm_done) {
      continue;
    } else if (t.bound == Bound::kMatrix && gemms.empty() && chip_plateau < 1) {
      // A kernel's matrix work (a Pallas call's stated FLOPs): no faster than the chip's
      // large GEMMs, at their plateau.
      const double s = t.time_s / chip_plateau;
      basis.terms.push_back({Term::kKernelMatrix, s});
      consider(s, names.gemm);
    } else {
      consider(t.time_s, *kRoofline);
    }
  }
  const double fixed = include_overhead ? fits.hbm.latency_s : 0.0;
  if (fixed > terms) model = &names.fixed_cost;
  if (device.gemm_plateau && work.matrix_flops > 0) out.notes.use_figure("gemm_plateau");
  out.model = *model;
  out.model_s = std::max(roofline.time_s, terms + fixed);
  if (out.model_s > out.time_s) out.time_s = out.model_s;
  out.device_model = this;
  if (out.model_s > roofline.time_s) out.basis = std::move(basis);
  return out;
}

std::string_view explain_tpu_op(double time_s, const TpuOpBasis& basis, const DeviceSpec& device,
                                TextMemo& memo) {
  using Term = TpuOpBasis::Term;
  FigureKey& key = memo.new_key();
  key.add(ExplanationKind::kTpuOp);
  key.add(reinterpret_cast<uintptr_t>(&device));
  key.add(time_s);
  key.add_fields(basis);
  return memo.text(key.bytes(), [&] {
    const measured::TpuFits& fits = *measured::tpu_fits();
    const std::string& from = tpu_provenance(device);
    const TpuFitTexts& texts = tpu_fit_texts(fits);
    std::vector<std::string> how;
    for (const auto& [term, s] : basis.terms) {
      switch (term) {
        case Term::kGemm:
          how.push_back(absl::StrCat(static_cast<int>(basis.gemms), " GEMM",
                                     basis.gemms == 1 ? "" : "s", " by padded size (MXU ",
                                     static_cast<int>(basis.mxu), ") from the ", from,
                                     " table: ", seconds(s)));
          break;
        case Term::kKernelMatrix:
          how.push_back(absl::StrCat("the kernel's matrix work at the GEMM plateau, ",
                                     util::general_text(basis.chip_plateau, 3), " of peak: ",
                                     seconds(s)));
          break;
        case Term::kHbm:
          how.push_back(absl::StrCat("HBM at ", texts.hbm_fraction, " of its bandwidth (", from,
                                     "): ", seconds(s)));
          break;
        case Term::kHost:
          how.push_back(absl::StrCat("host link at ", util::fixed_text(kTpuHostFraction, 2),
                                     " of its bandwidth (measured on ",
                                     kTpuHostFractionDevice, host_borrowed(device), "): ",
                                     seconds(s)));
          break;
      }
    }
    return absl::StrCat("expected = per-op fixed cost ",
                        basis.include_overhead ? texts.fixed_cost : texts.no_fixed_cost,
                        " (fitted, ", from, ") + max(terms as measured) = ", seconds(time_s),
                        " (",
                        how.empty() ? std::string("no measured term") : absl::StrJoin(how, "; "),
                        ")");
  });
}

}  // namespace

bool takes_tpu_fits(const DeviceSpec& device) { return tpu_measured(device); }

std::unique_ptr<DeviceModel> make_tpu_fit_model(const DeviceSpec& device, GemmTimeCache&) {
  return std::make_unique<TpuFitModel>(device);
}

CollectiveExpectedTime expected_tpu_collective_time(const CollectiveEstimate& roofline,
                                                    const DeviceSpec& device,
                                                    std::vector<std::string>& assumptions) {
  const measured::TpuFits& fits = *measured::tpu_fits();
  const std::string& from = tpu_provenance(device);
  CollectiveExpectedTime e{roofline.time_s, "", {}};
  if (roofline.group_size <= 1) {
    e.model = "roofline (nothing crosses a link)";
    return e;
  }
  const double latency = fits.ici.latency_s;
  const double eff = fits.ici_efficiency;
  CollectiveBasis basis;
  basis.latency_s = latency;
  if (roofline.placement.domains > 1) {
    // Across slices: the roofline's ICI and DCN phases (DCN assumed), plus the fitted latency.
    // No DCN collective is measured: say which figures stand in and how far off they could be.
    const double w_dcn =
        device.torus ? device.torus->dcn_bandwidth_per_chip.value_or(0.0) : 0.0;
    const double dcn_latency = device.torus ? device.torus->dcn_latency_s : 0.0;
    note_once(assumptions,
              absl::StrFormat(
                  "%s across slices: DCN at its published line rate, %.4g B/s per chip, and %s "
                  "per DCN transfer (assumed: 'tens of microseconds'); no DCN collective is "
                  "measured: GPU networks reach 0.64-0.96 of their line rate (docs/"
                  "prediction-model.md, 'Across nodes'), so the DCN phase may take up to 1.6x "
                  "(1 / 0.64) longer; the latency is a guess within tens of microseconds",
                  device.name, w_dcn, seconds(dcn_latency)));
    e.time_s = roofline.time_s + latency;
    e.model = absl::StrCat("ICI fit ", measured::kTpuTableDevice, " (", from,
                           ") + DCN (assumed)");
    basis.kind = CollectiveBasis::Kind::kTpuAcrossSlices;
    basis.roofline_s = roofline.time_s;
    e.basis = basis;
    return e;
  }
  e.time_s = std::max(roofline.time_s, latency + roofline.bandwidth_time_s / eff);
  e.model = absl::StrCat("ICI fit ", measured::kTpuTableDevice, " (", from, ")");
  basis.kind = CollectiveBasis::Kind::kTpuIci;
  basis.bandwidth_s = roofline.bandwidth_time_s;
  basis.efficiency = eff;
  basis.group = fits.ici_group;
  e.basis = basis;
  return e;
}

std::vector<std::string> tpu_model_assumptions(const DeviceSpec& device) {
  std::vector<std::string> out;
  if (device.kind != DeviceKind::kTpu) return out;
  if (!tpu_measured(device)) {
    out.push_back(absl::StrCat(
        device.name, " expected times: ",
        device.matmul_efficiency_set || device.hbm_efficiency_set
            ? "the file's calibrated efficiencies, other terms at the roofline (assumed)"
            : "the roofline (no measured TPU model could be built; assumed)"));
    return out;
  }
  const measured::TpuFits& f = *measured::tpu_fits();
  const bool own = own_tpu_tables(device);
  out.push_back(absl::StrFormat(
      "%s expected times %s the %s microbenchmarks (AI-Hypercomputer/"
      "accelerator-microbenchmarks)%s: GEMM time by MXU-padded size (measured, interpolated%s%s), "
      "HBM at %.3f of bandwidth and a %.3g us per-op fixed cost (fitted), ICI collectives "
      "%.3g us + %.3f of the torus model's bandwidth (fitted to all-gathers of %g devices)",
      device.name, own ? "rest on" : "borrow", measured::kTpuTableDevice,
      own ? "" : ", relative to this chip's own peaks",
      own ? "" : "; read at the tpu7x GEMM as long at its peak",
      own ? (device.gemm_plateau
                 ? absl::StrFormat("; its %.2f plateau is of GEMMs alone: inside a program the "
                                   "ramp is scaled to %.3g of its peak (its gemm_plateau "
                                   "figure), a module of one GEMM alone keeps the measured one",
                                   f.gemm_plateau, *device.gemm_plateau)
                 : std::string())
      : device.gemm_plateau
          ? absl::StrFormat("; the ramp to tpu7x's %.2f plateau, this chip's plateau %.3g of "
                            "its peak (its gemm_plateau figure)",
                            f.gemm_plateau, *device.gemm_plateau)
          : absl::StrFormat("; the ramp to tpu7x's %.2f plateau, this chip's plateau assumed "
                            "at its peak", f.gemm_plateau),
      f.hbm_fraction, f.hbm.latency_s * 1e6,
      f.ici.latency_s * 1e6, f.ici_efficiency, f.ici_group));
  // Per generation: what was measured on this chip (and where), what was fitted to it (and
  // to what), what it borrows (from which generation) and what is assumed. The GEMM plateau's
  // provenance is its figure's: the head of its note says "fitted to ..." or "borrowed from
  // ..." (the device files do), else its source.
  std::string plateau_fitted, plateau_borrowed, plateau_assumed;
  const DeviceFigure* g = device.gemm_plateau ? device.figure("gemm_plateau") : nullptr;
  if (g != nullptr) {
    const std::string_view note = g->note;
    const std::string head(note.substr(0, std::min(note.find(':'), note.find(';'))));
    const std::string text = absl::StrFormat(
        "GEMM plateau %.3g of its peak%s (%s)", g->value, own ? " in programs" : "",
        head.empty() ? absl::StrCat("source '", g->source, "'") : head);
    (absl::StartsWith(head, "borrowed") ? plateau_borrowed : plateau_fitted) = text;
  } else if (!own) {
    plateau_assumed = "GEMM plateau at its peak (no gemm_plateau figure)";
  }
  const Source host = measured_source(device, device.measured_on.host_link);
  std::vector<std::string> measured, fitted, borrowed;
  if (own) {
    measured.push_back(absl::StrFormat(
        "GEMM ramp and its %.2f plateau (GEMMs alone), HBM copies, ICI all-gathers "
        "(AI-Hypercomputer/accelerator-microbenchmarks)",
        f.gemm_plateau));
    fitted.push_back(absl::StrFormat(
        "HBM share %.3f, per-op fixed cost %.3g us, ICI latency %.3g us and %.3f of the torus "
        "bandwidth (to those microbenchmarks)",
        f.hbm_fraction, f.hbm.latency_s * 1e6, f.ici.latency_s * 1e6, f.ici_efficiency));
  } else {
    borrowed.push_back(absl::StrCat("GEMM ramp, HBM share, per-op fixed cost, ICI all-gathers (",
                                    measured::kTpuTableDevice, ")"));
  }
  if (!takes_host_fraction(device)) {
    // No share measured for it: host-offload copies stay at the roofline's host link.
  } else if (!host.borrowed) {
    measured.push_back("host link (a TPU v6e profile)");
  } else {
    borrowed.push_back(absl::StrCat("host link (", sv(host.name), ")"));
  }
  if (!plateau_fitted.empty()) fitted.push_back(plateau_fitted);
  if (!plateau_borrowed.empty()) borrowed.insert(borrowed.begin(), plateau_borrowed);
  auto list = [](const std::vector<std::string>& items) {
    return items.empty() ? std::string("nothing") : absl::StrJoin(items, ", ");
  };
  out.push_back(absl::StrFormat(
      "%s provenance: measured on this chip: %s; fitted to this chip: %s; borrowed: %s%s",
      device.name, list(measured), list(fitted), list(borrowed),
      plateau_assumed.empty() ? "" : absl::StrCat("; assumed: ", plateau_assumed)));
  out.push_back(absl::StrFormat(
      "%s assumed, not measured: vector and transcendental rates (roofline), non-square GEMM "
      "shapes beyond MXU padding, collectives other than all-gather and other group sizes "
      "(the all-gather fit), DCN bandwidth and latency; host-offload (S(5)) copies at %.2f of "
      "the host link (measured on tpu_v6e%s); convolutions (XLA writes the TPU's matrix "
      "products as convolutions) as their implicit GEMM on the same ramp; sorts, top-k, FFTs, "
      "scatters, gathers and reduce-windows at the general model's terms (their own models "
      "are measured on NVIDIA GPUs only)",
      device.name, kTpuHostFraction, host_borrowed(device)));
  return out;
}

}  // namespace hloroof::predict
