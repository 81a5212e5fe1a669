// How long does one step of this HLO module take on that accelerator? Reads an HLO file,
// predicts its step on a device and prints the summary: step time, breakdown, HFU, the
// collectives, the costliest ops and every assumption made.
//
//   predict_step tpu_v5e_train_step.hlo tpu_v5e:2x2
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include "hloroof/device_target.h"
#include "hloroof/hlo_text.h"
#include "hloroof/predict.h"
#include "hloroof/report.h"

int fail(const absl::Status& status) {
  std::fprintf(stderr, "error: %s\n", std::string(status.message()).c_str());
  return 1;
}

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: predict_step FILE.hlo DEVICE[:TOPOLOGY]\n");
    return 2;
  }
  std::ifstream file(argv[1], std::ios::binary);
  if (!file) {
    std::fprintf(stderr, "error: cannot read %s\n", argv[1]);
    return 1;
  }
  std::stringstream text;
  text << file.rdbuf();
  absl::StatusOr<hloroof::Module> module = hloroof::parse_module(text.str());
  if (!module.ok()) return fail(module.status());
  // The device and slice as the command's --device reads them.
  absl::StatusOr<hloroof::DeviceTarget> target = hloroof::resolve_device(argv[2], &*module);
  if (!target.ok()) return fail(target.status());
  absl::StatusOr<hloroof::Prediction> p = hloroof::predict_step_time(*module, *target);
  if (!p.ok()) return fail(p.status());
  // What choosing the device said leads the assumptions.
  hloroof::add_diagnostics(target->diagnostics, *p);
  std::cout << hloroof::prediction_summary(*p, {.top_ops = 5});
  return 0;
}
