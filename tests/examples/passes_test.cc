// The compiler passes of examples/, run as a user runs them: each program's report, and the
// module it prints (--print) read back, checked for its structure and predicted again.
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <string>

#include "hloroof/edit.h"
#include "hloroof/hlo_text.h"
#include "hloroof/input_file.h"
#include "hloroof/predict.h"
#include "predict_on.h"
#include "require_ok.h"

namespace hloroof {
namespace {

struct Run {
  int exit_code = -1;
  std::string out;
};

Run run(const std::string& command) {
  Run r;
  if (FILE* pipe = popen(command.c_str(), "r")) {
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) r.out.append(buf, n);
    const int status = pclose(pipe);
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  return r;
}

// The module a pass printed after its report.
Module printed_module(const std::string& out) {
  const size_t at = out.find("HloModule ");
  REQUIRE(at != std::string::npos);
  absl::StatusOr<Module> m = parse_module(out.substr(at));
  INFO(m.status().ToString());
  REQUIRE_OK(m);
  REQUIRE_OK(verify(*m));
  return *std::move(m);
}

Module source_module(const std::string& name) {
  absl::StatusOr<InputFile> file = read_input_file(HLOROOF_SOURCE_DIR "/examples/" + name);
  REQUIRE_OK(file);
  absl::StatusOr<Module> m = parse_module(file->text());
  REQUIRE_OK(m);
  return *std::move(m);
}

double roofline_step_s(const Module& m, std::string_view device) {
  absl::StatusOr<Prediction> p = testing::predict_on(m, device);
  INFO(p.status().ToString());
  REQUIRE_OK(p);
  return p->roofline_step_time_s;
}

bool has(const std::string& out, const std::string& line) {
  return out.find(line) != std::string::npos;
}

TEST_CASE("async_collectives on examples/zero_step.hlo") {
  const Run r = run(std::string(ASYNC_COLLECTIVES) + " " HLOROOF_SOURCE_DIR
                    "/examples/zero_step.hlo tpu_v5e:2x2 --print");
  INFO(r.out);
  REQUIRE(r.exit_code == 0);
  CHECK(has(r.out, "made 4 collectives asynchronous; verify: ok; reparsed: equal\n"));
  // Each start right after its operand, each done right before its first user.
  CHECK(has(r.out, "  rs2-start after grad_w2, rs2-done before step2: 5 ops between\n"));
  CHECK(has(r.out, "  rs1-start after grad_w1, rs1-done before step1: 6 ops between\n"));
  CHECK(has(r.out, "  ag2-start after new_m2, ag2-done before ag1-done: 4 ops between\n"));
  CHECK(has(r.out, "  ag1-start after new_m1, ag1-done before out: 1 ops between\n"));

  const Module after = printed_module(r.out);
  const Computation& entry = *after.entry();
  // No synchronous collective is left, and each start's one user is its done.
  int starts = 0;
  for (const Instruction* i : entry.instructions()) {
    CHECK(i->opcode() != Opcode::kReduceScatter);
    CHECK(i->opcode() != Opcode::kAllGather);
    if (!is_async_start(i->opcode())) continue;
    ++starts;
    REQUIRE(i->users().size() == 1);
    CHECK(is_async_done(i->users()[0]->opcode()));
  }
  CHECK(starts == 4);
  // XLA's forms: all-gather-start returns (operand, result); a reduce-scatter runs in an
  // async-start that calls a computation whose root is the reduce-scatter.
  const Instruction* ag2 = entry.find_instruction("ag2-start");
  REQUIRE(ag2 != nullptr);
  CHECK(ag2->opcode() == Opcode::kAllGatherStart);
  CHECK(to_string(ag2->shape()) == "(f32[256,1024]{1,0}, f32[1024,1024]{1,0})");
  CHECK(ag2->int_list(AttrId::kDimensions) == IntList{0});
  const Instruction* rs2 = entry.find_instruction("rs2-start");
  REQUIRE(rs2 != nullptr);
  CHECK(rs2->opcode() == Opcode::kAsyncStart);
  CHECK(to_string(rs2->shape()) == "((f32[1024,1024]{1,0}), f32[256,1024]{1,0})");
  const Computation* wrapped = rs2->computation_attribute(AttrId::kCalls);
  REQUIRE(wrapped != nullptr);
  CHECK(wrapped->name() == "rs2_async");
  CHECK(wrapped->root()->opcode() == Opcode::kReduceScatter);
  CHECK(wrapped->root()->to_apply()->name() == "add");
  CHECK(entry.find_instruction("rs2-done")->opcode() == Opcode::kAsyncDone);

  // The predicted saving, at the roofline, from tpu_v5e's figures (data/hardware/tpu_v5e.json):
  // HBM 8.19e11 B/s, a 1e-6 s launch that overlaps an op's work (the floor is the larger of
  // the two), ICI links of 4.5e10 B/s, two axes in a 2x2 slice.
  //   D, each of the 5 dots (1 MiB + 4 MiB + 1 MiB): 6291456 B / 8.19e11 B/s = 7.681875 us
  //   E, each of the 4 multiply/subtract on f32[256,1024] (2 read, 1 written):
  //      3145728 B / 8.19e11 B/s = 3.840938 us
  //   B, broadcast of the learning rate: (1048576 + 4) B / 8.19e11 B/s = 1.280317 us
  //   L, each reduce-scatter (its 4 MiB operand) and all-gather (its 4 MiB result) over 4
  //      devices: V (N-1)/N / (2 x 4.5e10 B/s) = 4194304 x 3/4 / 9e10 = 34.952533 us
  // Before, all in sequence: 5D + 4E + B + 4L = 194.863579 us.
  // After, the clock (time_schedule) over the new order: rs2 starts at 3D and its done, after
  // grad_h, grad_w1 and lr_b (2D + B < L), ends at 3D + L; step2, new_m2 (ag2 starts at
  // 3D + L + 2E); rs1, started at 5D, is done at 5D + L (L - 2D + 2E < L); step1, new_m1 (ag1
  // starts at 5D + L + 2E); ag2 waits till 3D + 2L + 2E (2D < L), ag1 till 5D + 2L + 2E
  // (L - 2D < L). After = 5D + 2L + 2E = 115.996320 us; saved 2L + 2E + B = 78.867260 us.
  const double d = 6291456 / 8.19e11, e = 3145728 / 8.19e11, b = 1048580 / 8.19e11,
               l = 4194304 * 0.75 / 9e10;
  const double before_s = roofline_step_s(source_module("zero_step.hlo"), "tpu_v5e:2x2");
  const double after_s = roofline_step_s(after, "tpu_v5e:2x2");
  CHECK(before_s == Approx(5 * d + 4 * e + b + 4 * l).epsilon(1e-9));
  CHECK(after_s == Approx(5 * d + 2 * l + 2 * e).epsilon(1e-9));
  CHECK(has(r.out, "step time, roofline: 194.864 -> 115.996 us (saved 78.867 us)\n"));
}

TEST_CASE("async_collectives: all-reduce, collective-permute and all-to-all") {
  const Run r = run(std::string(ASYNC_COLLECTIVES) + " " HLOROOF_SOURCE_DIR
                    "/tests/data/passes/async_forms.hlo tpu_v5e:2x2 --print");
  INFO(r.out);
  REQUIRE(r.exit_code == 0);
  CHECK(has(r.out, "made 3 collectives asynchronous; verify: ok; reparsed: equal\n"));
  // The three starts after the parameter, in the collectives' order; each done before its
  // first user (the tuple for cp and a2a, cp's done first).
  CHECK(has(r.out, "  ar-start after p, ar-done before sum: 4 ops between\n"));
  CHECK(has(r.out, "  cp-start after ar-start, cp-done before a2a-done: 5 ops between\n"));
  CHECK(has(r.out, "  a2a-start after cp-start, a2a-done before t: 5 ops between\n"));

  const Module after = printed_module(r.out);
  const Computation& entry = *after.entry();
  const Instruction* ar = entry.find_instruction("ar-start");
  REQUIRE(ar != nullptr);
  CHECK(ar->opcode() == Opcode::kAllReduceStart);
  CHECK(to_string(ar->shape()) == "f32[64,64]{1,0}");
  CHECK(ar->to_apply()->name() == "add");
  CHECK(entry.find_instruction("ar-done")->opcode() == Opcode::kAllReduceDone);
  const Instruction* cp = entry.find_instruction("cp-start");
  REQUIRE(cp != nullptr);
  CHECK(cp->opcode() == Opcode::kCollectivePermuteStart);
  CHECK(to_string(cp->shape()) == "(f32[64,64]{1,0}, f32[64,64]{1,0}, u32[], u32[])");
  REQUIRE(cp->source_target_pairs() != nullptr);
  CHECK(cp->source_target_pairs()->size() == 4);
  CHECK(entry.find_instruction("cp-done")->opcode() == Opcode::kCollectivePermuteDone);
  const Instruction* a2a = entry.find_instruction("a2a-start");
  REQUIRE(a2a != nullptr);
  CHECK(a2a->opcode() == Opcode::kAsyncStart);
  CHECK(to_string(a2a->shape()) == "((f32[64,64]{1,0}), f32[64,64]{1,0})");
  CHECK(a2a->computation_attribute(AttrId::kCalls)->root()->opcode() == Opcode::kAllToAll);
  CHECK(entry.find_instruction("a2a-done")->opcode() == Opcode::kAsyncDone);
}

TEST_CASE("fuse_elementwise on examples/mlp_epilogue.hlo") {
  const Run r = run(std::string(FUSE_ELEMENTWISE) + " " HLOROOF_SOURCE_DIR
                    "/examples/mlp_epilogue.hlo h100 --print");
  INFO(r.out);
  REQUIRE(r.exit_code == 0);
  CHECK(has(r.out, "fused biased relu dropped scaled into scaled_fusion\n"));
  CHECK(has(r.out, "1 loop fusions; verify: ok; reparsed: equal\n"));

  // The fusion takes the chain's place: the second dot reads it, no elementwise op is left in
  // the entry, and the fused computation holds the chain on the five outside operands.
  const Module after = printed_module(r.out);
  const Computation& entry = *after.entry();
  for (const Instruction* i : entry.instructions()) CHECK_FALSE(is_elementwise(i->opcode()));
  const Instruction* fusion = entry.find_instruction("scaled_fusion");
  REQUIRE(fusion != nullptr);
  CHECK(fusion->opcode() == Opcode::kFusion);
  CHECK(fusion->fusion_kind() == "kLoop");
  CHECK(entry.root()->operand(0) == fusion);
  std::string operands;
  for (const Instruction* o : fusion->operands()) operands += std::string(o->name()) + " ";
  CHECK(operands == "up bias_b zero_b mask keep_b ");
  const Computation* fused = fusion->computation_attribute(AttrId::kCalls);
  REQUIRE(fused != nullptr);
  CHECK(fused->name() == "fused_scaled");
  std::string body;
  for (const Instruction* i : fused->instructions()) body += std::string(i->name()) + " ";
  CHECK(body == "param_0 param_1 biased param_2 relu param_3 dropped param_4 scaled ");
  CHECK(fused->root()->name() == "scaled");

  // What the fusion saves, from h100's figures (data/hardware/h100.json: HBM 3.35e12 B/s, L2
  // 6.5e12 B/s for up to 5e7 B of an op's reads, a 0.9 us launch floor, all for the roofline's
  // floor). Each f32[512,4096] value is S = 512 x 4096 x 4 = 8,388,608 B.
  //   Before, each of the 4 ops reads 2 values and writes 1: 12 S of HBM traffic; its floor is
  //     the larger of its reads at L2's rate, 2S / 6.5e12 = 2.581 us, and its write at HBM's,
  //     S / 3.35e12 = 2.504 us.
  //   After, the fusion reads its 5 operands (41.9 MB, within L2) and writes 1: 6 S, in
  //     max(5S / 6.5e12, S / 3.35e12) = 6.453 us.
  //   Saved: 6 S = 50,331,648 B (the 3 values between the links, each written and read back),
  //     and 8S / 6.5e12 - 5S / 6.5e12 = 3S / 6.5e12 = 3.872 us at the roofline: L2 may hold
  //     what the links pass between them, so the floor gains little.
  CHECK(has(r.out, "(saved 50331648 bytes)\n"));
  const double s = 8388608;
  const double before_s = roofline_step_s(source_module("mlp_epilogue.hlo"), "h100");
  const double after_s = roofline_step_s(after, "h100");
  CHECK(before_s - after_s == Approx(3 * s / 6.5e12).epsilon(1e-9));
  CHECK(has(r.out, "(saved 3.872 us)\n"));
}

}  // namespace
}  // namespace hloroof
