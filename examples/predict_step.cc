// How long does one step of this HLO module take on that accelerator? Reads an HLO file,
// predicts its step on a device and prints the summary: step time, breakdown, HFU, the
// collectives, the costliest ops and every assumption made.
//
//   predict_step tpu_v5e_train_step.hlo tpu_v5e:2x2
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

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
  // HLO text and a device as the command's --device reads it ("tpu_v5e", "tpu_v5e:2x2",
  // "h100:2x8"): the call a unit test or a tool makes.
  absl::StatusOr<hloroof::Prediction> p = hloroof::predict_step_time(text.str(), argv[2]);
  if (!p.ok()) return fail(p.status());
  std::cout << hloroof::prediction_summary(*p, {.top_ops = 5});
  return 0;
}
