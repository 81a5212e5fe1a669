// A compiler pass written against the edit API (hloroof/edit.h): remove the copies that keep
// their operand's shape and layout (they move bytes and change nothing), check the module with
// verify, and predict what that saved.
//
//   remove_copies module.hlo h100 [--print]
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <vector>

#include "hloroof/device_target.h"
#include "hloroof/edit.h"
#include "hloroof/hlo_text.h"
#include "hloroof/predict.h"

namespace {

// The pass: every copy whose shape, layout included, is its operand's. Returns how many it
// removed.
int remove_layout_preserving_copies(hloroof::Module& module) {
  int removed = 0;
  for (hloroof::Computation* c : module.computations()) {
    std::vector<hloroof::Instruction*> copies;
    for (hloroof::Instruction* i : c->instructions()) {
      if (i->opcode() == hloroof::Opcode::kCopy && i->shape() == i->operand(0)->shape()) {
        copies.push_back(i);
      }
    }
    for (hloroof::Instruction* copy : copies) {
      if (c->replace_instruction(copy, copy->operand(0)).ok()) ++removed;
    }
  }
  return removed;
}

int fail(const absl::Status& status) {
  std::fprintf(stderr, "error: %s\n", std::string(status.message()).c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: remove_copies FILE.hlo DEVICE [--print]\n");
    return 2;
  }
  std::ifstream file(argv[1], std::ios::binary);
  std::stringstream text;
  text << file.rdbuf();
  absl::StatusOr<hloroof::Module> module = hloroof::parse_module(text.str());
  if (!module.ok()) return fail(module.status());
  // The device and slice as the command's --device reads them, for both predictions.
  absl::StatusOr<hloroof::DeviceTarget> target = hloroof::resolve_device(argv[2], &*module);
  if (!target.ok()) return fail(target.status());
  absl::StatusOr<hloroof::Prediction> before = hloroof::predict_step_time(*module, *target);
  if (!before.ok()) return fail(before.status());

  const int removed = remove_layout_preserving_copies(*module);

  // The edited module passes the parser's checks and reads back as printed.
  if (absl::Status ok = hloroof::verify(*module); !ok.ok()) return fail(ok);
  const std::string printed = hloroof::print(*module);
  absl::StatusOr<hloroof::Module> again = hloroof::parse_module(printed);
  if (!again.ok()) return fail(again.status());
  absl::StatusOr<hloroof::Prediction> after = hloroof::predict_step_time(*again, *target);
  if (!after.ok()) return fail(after.status());

  std::printf("removed %d copies; verify: ok\n", removed);
  std::printf("HBM traffic: %.0f -> %.0f bytes (saved %.0f bytes)\n", before->hbm_bytes,
              after->hbm_bytes, before->hbm_bytes - after->hbm_bytes);
  std::printf("step time on %s: %.3f -> %.3f us (saved %.3f us)\n", before->device.c_str(),
              before->step_time_s * 1e6, after->step_time_s * 1e6,
              (before->step_time_s - after->step_time_s) * 1e6);
  if (argc > 3 && std::string(argv[3]) == "--print") std::cout << printed;
  return 0;
}
