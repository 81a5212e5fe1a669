// A compiler pass written against the edit API (hloroof/edit.h) and run by run_passes
// (hloroof/passes.h), which verifies the module it leaves, reads the printed module back, and
// predicts the step before and after: remove the copies that keep their operand's shape and
// layout (they move bytes and change nothing).
//
//   remove_copies module.hlo DEVICE [--print]
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "hloroof/edit.h"
#include "hloroof/hlo_text.h"
#include "hloroof/input_file.h"
#include "hloroof/passes.h"

namespace {

// The pass: every copy whose shape, layout included, is its operand's. Counts them in
// `removed`; true when there was one.
absl::StatusOr<bool> remove_layout_preserving_copies(hloroof::Module& module, int& removed) {
  for (hloroof::Computation* c : module.computations()) {
    std::vector<hloroof::Instruction*> copies;
    for (hloroof::Instruction* i : c->instructions()) {
      if (i->opcode() == hloroof::Opcode::kCopy && i->shape() == i->operand(0)->shape()) {
        copies.push_back(i);
      }
    }
    for (hloroof::Instruction* copy : copies) {
      if (absl::Status s = c->replace_instruction(copy, copy->operand(0)); !s.ok()) return s;
      ++removed;
    }
  }
  return removed > 0;
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
  absl::StatusOr<hloroof::InputFile> file = hloroof::read_input_file(argv[1]);
  if (!file.ok()) return fail(file.status());
  absl::StatusOr<hloroof::Module> module = hloroof::parse_module(*std::move(file));
  if (!module.ok()) return fail(module.status());

  int removed = 0;
  const hloroof::Pass pass = {"remove_copies", [&](hloroof::Module& m) {
                                return remove_layout_preserving_copies(m, removed);
                              }};
  absl::StatusOr<hloroof::PassRun> run =
      hloroof::run_passes(*module, {pass}, {.device = argv[2], .reparse = true});
  if (!run.ok()) return fail(run.status());

  std::printf("removed %d copies; verify: ok\n", removed);
  std::printf("HBM traffic: %.0f -> %.0f bytes (saved %.0f bytes)\n", run->before.hbm_bytes,
              run->after.hbm_bytes, run->before.hbm_bytes - run->after.hbm_bytes);
  std::printf("step time on %s: %.3f -> %.3f us (saved %.3f us)\n", run->before.device.c_str(),
              run->before.step_time_s * 1e6, run->after.step_time_s * 1e6,
              (run->before.step_time_s - run->after.step_time_s) * 1e6);
  if (argc > 3 && std::string(argv[3]) == "--print") std::cout << hloroof::print(*module);
  return 0;
}
