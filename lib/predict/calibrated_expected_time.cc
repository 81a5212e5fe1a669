// The calibrated model of an op's expected time (CalibratedModel, docs/prediction-model.md,
// "Calibration"): a device whose file sets matmul_efficiency or hbm_efficiency (what `hloroof
// calibrate` fits) and that no measured model takes (GPUs keep their tables beside them).
#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <variant>

#include "predict/expected_time_internal.h"
#include "predict/op_model.h"

namespace hloroof::predict {
namespace {

// The roofline's matrix and HBM terms at the file's shares of peak; the other terms at the
// roofline's.
class CalibratedModel final : public DeviceModel {
 public:
  explicit CalibratedModel(const DeviceSpec& device) : device_(device) {}

  OpEstimate estimate(const OpView& op, OpEstimate out) const override {
    using Term = GpuOpBasis::Term;
    const RooflineEstimate& roofline = out.roofline;
    GpuOpBasis basis;
    double terms = 0;  // the slowest term as expected
    std::string_view model = "roofline";
    auto consider = [&terms, &model](double s, std::string_view name) {
      if (s > terms) terms = s, model = name;
    };
    for (const RooflineTerm& t : roofline.terms) {
      if (t.bound == Bound::kHbm && device_.hbm_efficiency_set) {
        const double s = t.time_s / device_.hbm_efficiency;
        basis.terms.push_back({Term::kHbm, s});
        basis.hbm_fraction = device_.hbm_efficiency;
        basis.hbm_calibrated = true;
        consider(s, "calibrated hbm_efficiency");
      } else if (t.bound == Bound::kMatrix && device_.matmul_efficiency_set) {
        const double s = t.time_s / device_.matmul_efficiency;
        basis.terms.push_back({Term::kMatrix, s});
        basis.matmul_efficiency = device_.matmul_efficiency;
        consider(s, "calibrated matmul_efficiency");
      } else {
        consider(t.time_s, "roofline");
      }
    }
    const double overhead = op.include_overhead ? device_.per_op_overhead_s : 0.0;
    if (terms + overhead <= roofline.time_s) model = "roofline";
    out.model = std::string(model);
    out.model_s = std::max(roofline.time_s, terms + overhead);
    if (out.model_s > out.time_s) out.time_s = out.model_s;
    out.device_model = this;
    if (!basis.terms.empty() && out.model_s > roofline.time_s) out.basis = std::move(basis);
    return out;
  }

  std::string_view explain(const OpEstimate& e, TextMemo& memo) const override {
    const auto* basis = std::get_if<GpuOpBasis>(&e.basis);
    return basis == nullptr ? std::string_view() : explain_gpu_op(e.model_s, *basis, device_, memo);
  }

 private:
  const DeviceSpec& device_;
};

}  // namespace

bool takes_calibrated(const DeviceSpec& device) {
  return device.matmul_efficiency_set || device.hbm_efficiency_set;
}

std::unique_ptr<DeviceModel> make_calibrated_model(const DeviceSpec& device, GemmTimeCache&) {
  return std::make_unique<CalibratedModel>(device);
}

}  // namespace hloroof::predict
