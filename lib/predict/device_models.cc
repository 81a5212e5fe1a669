// The device models and the choice of one (op_model.h): the list, in the order they are tried,
// and the last of it, the roofline itself for a device with nothing measured.
#include <memory>
#include <string>

#include "predict/op_model.h"

namespace hloroof::predict {
namespace {

// A device with no measurement and no calibration: the roofline is its expected time.
class RooflineOnlyModel final : public DeviceModel {
 public:
  OpEstimate estimate(const OpView&, OpEstimate out) const override {
    out.model = "roofline (no measured model for TPUs)";
    out.model_s = out.roofline.time_s;
    out.device_model = this;
    return out;
  }
  std::string_view explain(const OpEstimate&, TextMemo&) const override { return {}; }
};

bool takes_every_device(const DeviceSpec&) { return true; }

constexpr DeviceModelChoice kDeviceModels[] = {
    {"TPU fits", takes_tpu_fits, make_tpu_fit_model},
    {"GPU tables", takes_gpu_tables, make_gpu_table_model},
    {"calibrated efficiencies", takes_calibrated, make_calibrated_model},
    {"roofline", takes_every_device, make_roofline_model},
};

}  // namespace

std::unique_ptr<DeviceModel> make_roofline_model(const DeviceSpec&, GemmTimeCache&) {
  return std::make_unique<RooflineOnlyModel>();
}

absl::Span<const DeviceModelChoice> device_models() { return kDeviceModels; }

std::unique_ptr<DeviceModel> pick_device_model(const DeviceSpec& device,
                                               GemmTimeCache& gemm_times,
                                               absl::Span<const DeviceModelChoice> models) {
  for (const DeviceModelChoice& choice : models) {
    if (choice.takes(device)) return choice.make(device, gemm_times);
  }
  return nullptr;
}

}  // namespace hloroof::predict
