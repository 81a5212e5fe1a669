// A compiler pass written against the edit API (hloroof/edit.h) and run by run_passes
// (hloroof/passes.h), which verifies the module it leaves, reads the printed module back, and
// predicts the step before and after: make the entry's synchronous collectives asynchronous,
// each start as early as its operands allow and each done just before its first use, so that
// the ops between them hide the collective's time (the entry's instruction order is its
// schedule).
//
//   async_collectives module.hlo DEVICE [--print]
//
// The async forms are XLA's (openxla/xla, xla/hlo/transforms/collectives/
// async_collective_creator.cc at 417cbadc2d60fc8df25fdf4bd26350baaa3caa37): all-reduce,
// all-gather and collective-permute have start and done opcodes of their own; reduce-scatter and
// all-to-all run as an async-start/async-done pair that calls a computation holding the
// collective.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "hloroof/edit.h"
#include "hloroof/hlo_text.h"
#include "hloroof/input_file.h"
#include "hloroof/passes.h"

namespace {

using hloroof::Computation;
using hloroof::Instruction;
using hloroof::Opcode;
using hloroof::Shape;

// The start and done opcodes of a collective; nullopt for other ops.
std::optional<std::pair<Opcode, Opcode>> async_form(Opcode op) {
  switch (op) {
    case Opcode::kAllReduce:
      return std::pair(Opcode::kAllReduceStart, Opcode::kAllReduceDone);
    case Opcode::kAllGather:
      return std::pair(Opcode::kAllGatherStart, Opcode::kAllGatherDone);
    case Opcode::kCollectivePermute:
      return std::pair(Opcode::kCollectivePermuteStart, Opcode::kCollectivePermuteDone);
    case Opcode::kReduceScatter:
    case Opcode::kAllToAll:
      return std::pair(Opcode::kAsyncStart, Opcode::kAsyncDone);
    default:
      return std::nullopt;
  }
}

// The start's shape, as XLA's pass gives it: all-reduce-start the result; all-gather-start
// (operand, result); collective-permute-start (operand, result, u32[], u32[]); async-start
// ((operands...), result).
Shape start_shape(const Instruction& c, Opcode start) {
  std::vector<Shape> operands;
  for (const Instruction* operand : c.operands()) operands.push_back(operand->shape());
  const Shape u32 = Shape::Array(hloroof::PrimitiveType::kU32, {});
  switch (start) {
    case Opcode::kAllReduceStart:
      return c.shape();
    case Opcode::kAllGatherStart:
      return Shape::Tuple({operands.size() == 1 ? operands[0] : Shape::Tuple(operands), c.shape()});
    case Opcode::kCollectivePermuteStart:
      return Shape::Tuple({operands[0], c.shape(), u32, u32});
    default:
      return Shape::Tuple({Shape::Tuple(operands), c.shape()});
  }
}

// Where `i` stands in the schedule.
size_t position(const Computation& c, const Instruction* i) {
  const auto all = c.instructions();
  return static_cast<size_t>(std::find(all.begin(), all.end(), i) - all.begin());
}

// A computation `NAME_async` whose root is a copy of `c` on parameters: what async-start calls.
absl::StatusOr<Computation*> wrap(hloroof::Module& module, const Instruction& c) {
  absl::StatusOr<Computation*> wrapped =
      module.add_computation(absl::StrCat(std::string(c.name()), "_async"));
  if (!wrapped.ok()) return wrapped.status();
  std::vector<Instruction*> parameters;
  for (const Instruction* operand : c.operands()) {
    absl::StatusOr<Instruction*> p = (*wrapped)->add_instruction(
        Opcode::kParameter, absl::StrCat("param_", parameters.size()), operand->shape(), {});
    if (!p.ok()) return p.status();
    parameters.push_back(*p);
  }
  absl::StatusOr<Instruction*> copy =
      (*wrapped)->add_instruction(c.opcode(), c.name(), c.shape(), parameters);
  if (!copy.ok()) return copy.status();
  if (absl::Status s = (*copy)->copy_attributes_from(c); !s.ok()) return s;
  if (absl::Status s = (*wrapped)->set_root(*copy); !s.ok()) return s;
  return *wrapped;
}

// The pass. Returns the collectives it made asynchronous (collectives ordered by control
// dependencies are left as they are).
absl::StatusOr<int> make_collectives_async(hloroof::Module& module) {
  Computation* entry = module.entry();
  std::vector<Instruction*> collectives;
  for (Instruction* i : entry->instructions()) {
    if (async_form(i->opcode()) && i->control_predecessors().empty() &&
        i->control_successors().empty()) {
      collectives.push_back(i);
    }
  }
  for (Instruction* c : collectives) {
    const auto [start_op, done_op] = *async_form(c->opcode());
    // The start goes right after the last of its operands to be computed (and after the
    // starts already there: the collectives start in the order they had).
    size_t earliest = 0;
    for (const Instruction* operand : c->operands()) {
      earliest = std::max(earliest, position(*entry, operand) + 1);
    }
    while (hloroof::is_async_start(entry->instructions()[earliest]->opcode())) ++earliest;
    const std::string name(c->name());
    absl::StatusOr<Instruction*> start =
        entry->add_instruction(start_op, name + "-start", start_shape(*c, start_op),
                               c->operands(), entry->instructions()[earliest]);
    if (!start.ok()) return start.status();
    if (start_op == Opcode::kAsyncStart) {
      absl::StatusOr<Computation*> wrapped = wrap(module, *c);
      if (!wrapped.ok()) return wrapped.status();
      absl::Status s = (*start)->set_computation_attribute(hloroof::AttrId::kCalls, *wrapped);
      if (!s.ok()) return s;
    } else if (absl::Status s = (*start)->copy_attributes_from(*c); !s.ok()) {
      return s;
    }
    // The done goes just before the first user (where the collective was, if none).
    Instruction* first_user = c;
    const auto users = c->users();
    for (Instruction* i : entry->instructions()) {
      if (std::find(users.begin(), users.end(), i) != users.end()) {
        first_user = i;
        break;
      }
    }
    absl::StatusOr<Instruction*> done =
        entry->add_instruction(done_op, name + "-done", c->shape(), {*start}, first_user);
    if (!done.ok()) return done.status();
    if (absl::Status s = entry->replace_instruction(c, *done); !s.ok()) return s;
  }
  return static_cast<int>(collectives.size());
}

int fail(const absl::Status& status) {
  std::fprintf(stderr, "error: %s\n", std::string(status.message()).c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: async_collectives FILE.hlo DEVICE [--print]\n");
    return 2;
  }
  absl::StatusOr<hloroof::InputFile> file = hloroof::read_input_file(argv[1]);
  if (!file.ok()) return fail(file.status());
  absl::StatusOr<hloroof::Module> module = hloroof::parse_module(*std::move(file));
  if (!module.ok()) return fail(module.status());

  int made = 0;
  const hloroof::Pass pass = {"async_collectives",
                              [&](hloroof::Module& m) -> absl::StatusOr<bool> {
                                absl::StatusOr<int> n = make_collectives_async(m);
                                if (!n.ok()) return n.status();
                                made = *n;
                                return made > 0;
                              }};
  absl::StatusOr<hloroof::PassRun> run =
      hloroof::run_passes(*module, {pass}, {.device = argv[2], .reparse = true});
  if (!run.ok()) return fail(run.status());

  std::printf("made %d collectives asynchronous; verify: ok; reparsed: equal\n", made);
  // Each pair as scheduled: what its start follows, what its done precedes, the ops between.
  const hloroof::Computation& entry = *module->entry();
  const auto order = entry.instructions();
  for (size_t s = 0; s < order.size(); ++s) {
    if (!hloroof::is_async_start(order[s]->opcode())) continue;
    const size_t d = position(entry, order[s]->users()[0]);
    std::cout << "  " << order[s]->name() << " after " << order[s - 1]->name() << ", "
              << order[d]->name() << " before "
              << (d + 1 < order.size() ? order[d + 1]->name() : "the end") << ": "
              << d - s - 1 << " ops between\n";
  }
  const hloroof::Prediction& before = run->before;
  const hloroof::Prediction& after = run->after;
  std::printf("collectives exposed on %s: %.3f -> %.3f us (hidden: %.3f us)\n",
              before.device.c_str(), before.breakdown.collective_exposed_s * 1e6,
              after.breakdown.collective_exposed_s * 1e6,
              after.breakdown.collective_hidden_s * 1e6);
  std::printf("step time, expected: %.3f -> %.3f us (saved %.3f us)\n", before.step_time_s * 1e6,
              after.step_time_s * 1e6, (before.step_time_s - after.step_time_s) * 1e6);
  std::printf("step time, roofline: %.3f -> %.3f us (saved %.3f us)\n",
              before.roofline_step_time_s * 1e6, after.roofline_step_time_s * 1e6,
              (before.roofline_step_time_s - after.roofline_step_time_s) * 1e6);
  if (argc > 3 && std::string(argv[3]) == "--print") std::cout << hloroof::print(*module);
  return 0;
}
