// A compiler pass written against the edit API (hloroof/edit.h) and run by run_passes
// (hloroof/passes.h), which verifies the module it leaves, reads the printed module back, and
// predicts the step before and after: fuse each chain of elementwise ops in the entry (each
// link's only user is the next, all of one shape) into one loop fusion, whose computation holds
// the chain, so that the values between the links stay on chip instead of going to HBM and back.
//
//   fuse_elementwise module.hlo DEVICE [--print]
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "hloroof/edit.h"
#include "hloroof/hlo_text.h"
#include "hloroof/input_file.h"
#include "hloroof/passes.h"

namespace {

using hloroof::Computation;
using hloroof::Instruction;

// The op a chain goes on to from `i`: its only user, when elementwise and of i's shape.
Instruction* next_link(const Instruction* i) {
  if (i->users().size() != 1 || i->is_root()) return nullptr;
  Instruction* user = i->users()[0];
  return hloroof::is_elementwise(user->opcode()) && user->shape() == i->shape() ? user : nullptr;
}

// The chains of two ops or more, in schedule order, each from its first link to its last.
std::vector<std::vector<Instruction*>> find_chains(const Computation& c) {
  std::vector<std::vector<Instruction*>> chains;
  for (Instruction* i : c.instructions()) {
    if (!hloroof::is_elementwise(i->opcode())) continue;
    // A chain starts at an op that does not continue one.
    const bool continues = std::any_of(i->operands().begin(), i->operands().end(),
                                       [&](const Instruction* o) {
                                         return hloroof::is_elementwise(o->opcode()) &&
                                                next_link(o) == i;
                                       });
    if (continues) continue;
    std::vector<Instruction*> chain = {i};
    while (Instruction* next = next_link(chain.back())) chain.push_back(next);
    if (chain.size() > 1) chains.push_back(std::move(chain));
  }
  return chains;
}

// Outlines `chain` into `fused_LAST`, called by a loop fusion `LAST_fusion` that takes its place.
absl::Status fuse(hloroof::Module& module, const std::vector<Instruction*>& chain) {
  Computation* entry = module.entry();
  Instruction* last = chain.back();
  const std::string name(last->name());
  absl::StatusOr<Computation*> fused = module.add_computation("fused_" + name);
  if (!fused.ok()) return fused.status();
  // The chain's operands from outside become the fusion's operands and the computation's
  // parameters; each link is copied onto them, attributes and all.
  std::vector<Instruction*> operands;
  absl::flat_hash_map<const Instruction*, Instruction*> inside;
  for (const Instruction* link : chain) {
    std::vector<Instruction*> link_operands;
    for (Instruction* o : link->operands()) {
      if (!inside.contains(o)) {
        absl::StatusOr<Instruction*> p = (*fused)->add_instruction(
            hloroof::Opcode::kParameter, absl::StrCat("param_", operands.size()), o->shape(), {});
        if (!p.ok()) return p.status();
        operands.push_back(o);
        inside[o] = *p;
      }
      link_operands.push_back(inside[o]);
    }
    absl::StatusOr<Instruction*> copy =
        (*fused)->add_instruction(link->opcode(), link->name(), link->shape(), link_operands);
    if (!copy.ok()) return copy.status();
    if (absl::Status s = (*copy)->copy_attributes_from(*link); !s.ok()) return s;
    inside[link] = *copy;
  }
  if (absl::Status s = (*fused)->set_root(inside[last]); !s.ok()) return s;

  absl::StatusOr<Instruction*> fusion = entry->add_instruction(
      hloroof::Opcode::kFusion, name + "_fusion", last->shape(), operands, last);
  if (!fusion.ok()) return fusion.status();
  if (absl::Status s = (*fusion)->set_fusion_kind("kLoop"); !s.ok()) return s;
  absl::Status s = (*fusion)->set_computation_attribute(hloroof::AttrId::kCalls, *fused);
  if (!s.ok()) return s;
  // The fusion takes the last link's users; the links, each now unused, go last to first.
  s = entry->replace_instruction(last, *fusion);
  for (auto link = chain.rbegin() + 1; s.ok() && link != chain.rend(); ++link) {
    s = entry->remove_instruction(*link);
  }
  return s;
}

// The pass: every chain of the entry fused. Says which in `fused`, a line each.
absl::StatusOr<bool> fuse_chains(hloroof::Module& module, std::vector<std::string>& fused) {
  const std::vector<std::vector<Instruction*>> chains = find_chains(*module.entry());
  for (const std::vector<Instruction*>& chain : chains) {
    std::string line = "fused";
    for (const Instruction* link : chain) line.append(" ").append(link->name());
    line.append(" into ").append(chain.back()->name()).append("_fusion");
    if (absl::Status s = fuse(module, chain); !s.ok()) return s;
    fused.push_back(std::move(line));
  }
  return !chains.empty();
}

int fail(const absl::Status& status) {
  std::fprintf(stderr, "error: %s\n", std::string(status.message()).c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: fuse_elementwise FILE.hlo DEVICE [--print]\n");
    return 2;
  }
  absl::StatusOr<hloroof::InputFile> file = hloroof::read_input_file(argv[1]);
  if (!file.ok()) return fail(file.status());
  absl::StatusOr<hloroof::Module> module = hloroof::parse_module(*std::move(file));
  if (!module.ok()) return fail(module.status());

  std::vector<std::string> fused;
  const hloroof::Pass pass = {"fuse_elementwise",
                              [&](hloroof::Module& m) { return fuse_chains(m, fused); }};
  absl::StatusOr<hloroof::PassRun> run = hloroof::run_passes(
      *module, {pass}, {.device = argv[2], .verify_each = true, .reparse = true});
  if (!run.ok()) return fail(run.status());

  for (const std::string& line : fused) std::cout << line << "\n";
  std::printf("%zu loop fusions; verify: ok; reparsed: equal\n", fused.size());
  const hloroof::Prediction& before = run->before;
  const hloroof::Prediction& after = run->after;
  std::printf("HBM traffic: %.0f -> %.0f bytes (saved %.0f bytes)\n", before.hbm_bytes,
              after.hbm_bytes, before.hbm_bytes - after.hbm_bytes);
  std::printf("step time, expected: %.3f -> %.3f us (saved %.3f us)\n", before.step_time_s * 1e6,
              after.step_time_s * 1e6, (before.step_time_s - after.step_time_s) * 1e6);
  std::printf("step time, roofline: %.3f -> %.3f us (saved %.3f us)\n",
              before.roofline_step_time_s * 1e6, after.roofline_step_time_s * 1e6,
              (before.roofline_step_time_s - after.roofline_step_time_s) * 1e6);
  if (argc > 3 && std::string(argv[3]) == "--print") std::cout << hloroof::print(*module);
  return 0;
}
