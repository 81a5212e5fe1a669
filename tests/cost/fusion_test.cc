// Fusion boundaries (docs/cost-conventions.md, "Where hloroof follows XLA"): how parameters are
// read, in-place results, tuple parameters, nested fusions; and bytes by memory space and padding.
#include <algorithm>

#include "cost_test_util.h"

namespace hloroof {
namespace {

using testing::analyze;

TEST_CASE("fusion parameters are read as their users read them") {
  auto c = analyze(R"(
fused {
  a = f32[100] parameter(0)
  b = f32[64,8] parameter(1)
  i = s32[] parameter(2)
  s = f32[8] parameter(3)
  buf = f32[64,8] parameter(4)
  zero = s32[] constant(0)
  sa = f32[10] slice(a), slice={[0:10]}
  sb = f32[20] slice(a), slice={[50:70]}
  cat = f32[30] concatenate(sa, sb), dimensions={0}
  ds = f32[4,8] dynamic-slice(b, i, zero), dynamic_slice_sizes={4,8}
  bs = f32[4,8] broadcast(s), dimensions={1}
  bs2 = f32[4,8] broadcast(s), dimensions={1}
  add = f32[4,8] add(ds, bs)
  mul = f32[4,8] multiply(add, bs2)
  dus = f32[64,8] dynamic-update-slice(buf, mul, i, zero)
  ROOT out = (f32[64,8], f32[30]) tuple(dus, cat)
}
ENTRY e {
  a = f32[100] parameter(0)
  b = f32[64,8] parameter(1)
  i = s32[] parameter(2)
  s = f32[8] parameter(3)
  buf = f32[64,8] parameter(4)
  ROOT f = (f32[64,8], f32[30]) fusion(a, b, i, s, buf), kind=kLoop, calls=fused
})");
  const OpCost& f = c["f"].cost;
  // Reads: a through two slices 40 + 80 B; b through the dynamic-slice's f32[4,8] 128 B;
  // i as an index of both the dynamic-slice and the update, one shared read 4 B; s under two
  // broadcasts, 32 B each; buf is updated in place, 0 B. 120 + 128 + 4 + 64 = 316 B.
  CHECK(f.bytes_read == 316);
  // Writes: result 0 is the in-place update, only f32[4,8] = 128 B; result 1 is 120 B.
  CHECK(f.bytes_written == 248);
  CHECK(f.xla_bytes_accessed == 564);
  CHECK(f.flops == 64);  // add and multiply on 32 elements
}

TEST_CASE("tuple parameters are read leaf by leaf through their get-tuple-elements") {
  // XLA's TupleBytesAccessed: each leaf read once, two results.
  auto both = analyze(R"(
fused {
  param = (f32[2,2], f32[2,2]) parameter(0)
  gte0 = f32[2,2] get-tuple-element(param), index=0
  gte1 = f32[2,2] get-tuple-element(param), index=1
  add = f32[2,2] add(gte0, gte1)
  mul = f32[2,2] multiply(gte0, gte1)
  ROOT root = (f32[2,2], f32[2,2]) tuple(add, mul)
}
ENTRY entry {
  param0 = f32[2,2] parameter(0)
  param1 = f32[2,2] parameter(1)
  tuple = (f32[2,2], f32[2,2]) tuple(param0, param1)
  ROOT fusion = (f32[2,2], f32[2,2]) fusion(tuple), kind=kLoop, calls=fused
})");
  CHECK(both["fusion"].cost.bytes() == 4 * 2 * 2 * 4);

  // XLA's IgnoreUnusedParameterShape: leaf 1 has no get-tuple-element, so the tuple itself is
  // charged under the shared rule: its pointer table, 2*8 B, plus leaf 0's 3 B; then the
  // s8[3] constant (read once) and the 3 B result.
  auto unused = analyze(R"(
f {
  p0 = (s8[3], s8[100]) parameter(0)
  gte0 = s8[3] get-tuple-element(p0), index=0
  c1 = s8[3] constant({0, 0, 0})
  a1 = s8[3] add(gte0, c1)
  ROOT r1 = s8[3] add(a1, c1)
}
ENTRY e {
  param0 = (s8[3], s8[100]) parameter(0)
  ROOT r0 = s8[3] fusion(param0), kind=kInput, calls=f
})");
  CHECK(unused["r0"].cost.bytes_written == 3);
  CHECK(unused["r0"].cost.bytes() == 2 * 8 + 3 + 3 + 3);  // 25
}

// bf16[64,16,512,512] = 2*64*16*512*512 B = 512 MiB.
constexpr double k512MiB = 536870912;

constexpr std::string_view kNestedFusion = R"(
add {
  a = bf16[] parameter(0)
  b = bf16[] parameter(1)
  ROOT s = bf16[] add(a, b)
}
double_it {
  tmp_0 = bf16[64,16,512,512]{2,3,1,0:T(8,128)(2,1)} parameter(0)
  ROOT tmp_4 = bf16[64,16,512,512]{2,3,1,0:T(8,128)(2,1)} add(tmp_0, tmp_0)
}
fused_computation.1 {
  tmp_0 = bf16[64,16,512,512]{2,3,1,0:T(8,128)(2,1)} parameter(0)
  tmp_1 = bf16[64,16,512,512]{2,3,1,0:T(8,128)(2,1)} fusion(tmp_0), kind=kLoop, calls=double_it
  tmp_2 = bf16[]{:T(256)} constant(0)
  tmp_3 = bf16[64,16,512,512]{2,3,1,0:T(8,128)(2,1)} reduce-window(tmp_1, tmp_2), window={size=1x1x1x1023 pad=0_0x0_0x0_0x511_511}, to_apply=add
  ROOT tmp_4 = bf16[64,16,512,512]{2,3,1,0:T(8,128)(2,1)} divide(DIVIDEND, tmp_3)
}
ENTRY temp {
  tmp_0 = bf16[64,16,512,512]{2,3,1,0:T(8,128)(2,1)} parameter(0)
  ROOT result = bf16[64,16,512,512]{2,3,1,0:T(8,128)(2,1)} fusion(tmp_0), kind=kLoop, calls=fused_computation.1
}
)";

std::string nested_fusion(std::string_view dividend) {
  std::string text(kNestedFusion);
  text.replace(text.find("DIVIDEND"), 8, dividend);
  return text;
}

TEST_CASE("a nested fusion's parameter is read once however many users the nested fusion has") {
  // XLA's NestedFusionFeedsMultipleUsers: the parameter reaches the reduce-window and the
  // divide through the nested fusion: read once (512 MiB), plus the 512 MiB result.
  auto c = analyze(nested_fusion("tmp_1"));
  CHECK(c["result"].cost.bytes() == 2 * k512MiB);
  CHECK(c["result"].cost.xla_bytes_accessed == 2 * k512MiB);
}

TEST_CASE("a parameter read by a nested fusion and by an ordinary op is read twice") {
  // XLA's ParamFeedsNestedFusionAndTrivialUser: the nested path and the outer divide each
  // read it: 3 x 512 MiB with the result.
  auto c = analyze(nested_fusion("tmp_0"));
  CHECK(c["result"].cost.bytes() == 3 * k512MiB);
  CHECK(c["result"].cost.xla_bytes_accessed == 3 * k512MiB);
}

TEST_CASE("a nested fusion at the root still reads its parameter (XLA charges nothing)") {
  auto c = analyze(R"(
inner {
  p = f32[16] parameter(0)
  ROOT n = f32[16] negate(p)
}
outer {
  p = f32[16] parameter(0)
  ROOT nested = f32[16] fusion(p), kind=kLoop, calls=inner
}
ENTRY e {
  p = f32[16] parameter(0)
  ROOT f = f32[16] fusion(p), kind=kLoop, calls=outer
})");
  const OpCost& f = c["f"].cost;
  CHECK(f.flops == 16);
  CHECK(f.bytes_read == 64);  // the parameter is read
  CHECK(f.bytes_written == 64);
  CHECK(f.xla_bytes_accessed == 64);  // XLA: the result only
  CHECK(c.at("outer", "nested").role == CostRole::kFused);
  CHECK(c.at("inner", "n").role == CostRole::kFused);
  CHECK(c.at("inner", "n").multiplier == 1);
}

TEST_CASE("large constants inside a fusion are read, scalar constants are immediates") {
  auto c = analyze(R"(
fused {
  p = f32[4] parameter(0)
  table = f32[4] constant({1, 2, 3, 4})
  two = f32[] constant(2)
  b = f32[4] broadcast(two), dimensions={}
  m = f32[4] multiply(p, table)
  ROOT a = f32[4] add(m, b)
}
ENTRY e {
  p = f32[4] parameter(0)
  ROOT f = f32[4] fusion(p), kind=kLoop, calls=fused
})");
  CHECK(c["f"].cost.bytes_read == 16 + 16);  // the parameter and the table
  CHECK(c["f"].cost.bytes_written == 16);
}

TEST_CASE("a custom fusion holding a gather is costed as that gather") {
  auto c = analyze(R"(
fused {
  operand = f32[1000,64] parameter(0)
  indices = s32[10,1] parameter(1)
  ROOT g = f32[10,64] gather(operand, indices), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,64}
}
ENTRY e {
  operand = f32[1000,64] parameter(0)
  indices = s32[10,1] parameter(1)
  ROOT f = f32[10,64] fusion(operand, indices), kind=kCustom, calls=fused
})");
  // gather: 2 * output (2560 B) + indices (40 B).
  CHECK(c["f"].cost.bytes() == 2 * 2560 + 40);
}

TEST_CASE("a parameter only a gather reads, through elementwise ops, is read as the gathered") {
  // The loss of a language model: the whole logits go through converts and subtractions, and a
  // gather picks one element per row. Measured on an H100 (tests/data/h100/*/gpt,
  // loop_divide_select_fusion): 2.3 us, where reading all the logits would take 185 us.
  auto c = analyze(R"(
fused {
  logits = bf16[64,1000] parameter(0)
  shift = f32[64] parameter(1)
  idx = s32[64,2] parameter(2)
  wide = f32[64,1000] convert(logits)
  b = f32[64,1000] broadcast(shift), dimensions={0}
  d = f32[64,1000] subtract(wide, b)
  ROOT g = f32[64,1] gather(d, idx), offset_dims={}, collapsed_slice_dims={0,1}, start_index_map={0,1}, index_vector_dim=1, slice_sizes={1,1}
}
ENTRY e {
  logits = bf16[64,1000] parameter(0)
  shift = f32[64] parameter(1)
  idx = s32[64,2] parameter(2)
  ROOT f = f32[64,1] fusion(logits, shift, idx), kind=kLoop, calls=fused
})");
  const OpCost& f = c["f"].cost;
  // Ours: logits as 64 of their 64,000 elements (128 B of 128,000); shift whole under its
  // broadcast (each gathered element needs its row's shift), 256 B; idx whole, 512 B; the
  // result 256 B.
  CHECK(f.bytes_read == 128 + 256 + 512);
  CHECK(f.bytes_written == 256);
  // XLA's: every parameter whole: 128,000 + 256 + 512 + 256.
  CHECK(f.xla_bytes_accessed == 128000 + 256 + 512 + 256);
}

TEST_CASE("a scatter at a fusion's root updates its operand in place") {
  // An embedding's gradient, scattered into zeros. Measured on an H100 (tests/data/h100/*/gpt,
  // input_scatter_fusion.1): 2.2 us for 8,184 updates into a 1 GB buffer.
  auto c = analyze(R"(
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
fused {
  buf = f32[1000,16] parameter(0)
  idx = s32[10,1] parameter(1)
  upd = f32[10,16] parameter(2)
  ROOT sc = f32[1000,16] scatter(buf, idx, upd), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
}
ENTRY e {
  buf = f32[1000,16] parameter(0)
  idx = s32[10,1] parameter(1)
  upd = f32[10,16] parameter(2)
  ROOT f = f32[1000,16] fusion(buf, idx, upd), kind=kInput, calls=fused
})");
  const OpCost& f = c["f"].cost;
  // Ours: buf is the result's buffer, not read; idx 40 B and upd 640 B read; the updated rows
  // written, 640 B.
  CHECK(f.bytes_read == 40 + 640);
  CHECK(f.bytes_written == 640);
  // XLA's: buf read (64,000 B), idx, upd, and the whole result written (64,000 B).
  CHECK(f.xla_bytes_accessed == 64000 + 40 + 640 + 64000);
}

TEST_CASE("padded bytes follow the layout's tiles; logical bytes do not") {
  // f32[3,5] under T(2,2) pads to [4,6]: 96 B against 60 B (worked example P1).
  auto c = analyze(R"(
fused {
  p = f32[3,5]{1,0:T(2,2)} parameter(0)
  ROOT n = f32[3,5]{1,0:T(2,2)} negate(p)
}
ENTRY e {
  p = f32[3,5]{1,0:T(2,2)} parameter(0)
  ROOT f = f32[3,5]{1,0:T(2,2)} fusion(p), kind=kLoop, calls=fused
})");
  const OpCost& f = c["f"].cost;
  CHECK(f.bytes() == 120);
  CHECK(f.padded_bytes() == 192);
  CHECK(f.hbm_bytes() == 192);
  auto dense = analyze(std::string(c.module.source()), CostOptions{.use_padded_sizes = false});
  CHECK(dense["f"].cost.hbm_bytes() == 120);
}

TEST_CASE("XLA-compatible bytes pad by the first tile level only") {
  // A bf16 scalar under T(512)(2,1): the first tile gives 512 elements (1 KiB); applying
  // (2,1) too pads to 1024 elements (2 KiB) (docs/sources.md, "TPU tiling and padding").
  auto c = analyze(R"(
ENTRY e {
  p = bf16[]{:T(512)(2,1)} parameter(0)
  ROOT n = bf16[]{:T(512)(2,1)} negate(p)
})");
  CHECK(c["n"].cost.bytes() == 4);
  CHECK(c["n"].cost.padded_bytes() == 4096);
  CHECK(c["n"].cost.xla_bytes_accessed == 2048);
}

TEST_CASE("bytes are charged to the memory space they live in") {
  auto c = analyze(R"(
ENTRY e {
  a = f32[256]{0:S(1)} parameter(0)
  b = f32[256]{0} parameter(1)
  h = f32[256]{0:S(5)} parameter(2)
  sum = f32[256]{0} add(a, b)
  ROOT out = f32[256]{0:S(1)} add(sum, h)
})");
  // sum reads 1 KiB on chip and 1 KiB of HBM, writes 1 KiB of HBM.
  const OpCost& sum = c["sum"].cost;
  CHECK(sum.hbm_bytes() == 2048);
  CHECK(sum.on_chip_bytes() == 1024);
  CHECK(sum.host_bytes() == 0);
  // out reads 1 KiB of HBM and 1 KiB of host memory, writes 1 KiB on chip.
  const OpCost& out = c["out"].cost;
  CHECK(out.hbm_bytes() == 1024);
  CHECK(out.host_bytes() == 1024);
  CHECK(out.on_chip_bytes() == 1024);
  CHECK(c.cost.totals.hbm_bytes() == 3072);
  CHECK(c.cost.totals.padded_bytes() == 6144);
}

TEST_CASE("a fusion reading an on-chip operand moves no HBM bytes for it") {
  auto c = analyze(R"(
fused {
  p0 = f32[1024]{0:S(1)} parameter(0)
  p1 = f32[1024]{0} parameter(1)
  ROOT m = f32[1024]{0} multiply(p0, p1)
}
ENTRY e {
  p0 = f32[1024]{0:S(1)} parameter(0)
  p1 = f32[1024]{0} parameter(1)
  ROOT f = f32[1024]{0} fusion(p0, p1), kind=kLoop, calls=fused
})");
  CHECK(c["f"].cost.hbm_bytes() == 8192);  // p1 read, result written
  CHECK(c["f"].cost.on_chip_bytes() == 4096);
}

TEST_CASE("a slice is read from its operand's memory space") {
  auto c = analyze(R"(
ENTRY e {
  p = f32[1024]{0:S(1)} parameter(0)
  ROOT s = f32[16]{0} slice(p), slice={[0:16]}
})");
  CHECK(c["s"].cost.padded_read.on_chip == 64);
  CHECK(c["s"].cost.padded_written.device == 64);
}


TEST_CASE("without fused records only a fused collective keeps one, and every sum stays") {
  const std::string_view text = R"(
HloModule m, replica_count=4
sum {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
fused {
  p = f32[256] parameter(0)
  e = f32[256] exponential(p)
  u = f32[256] custom-call(e), custom_call_target="not_a_known_target"
  ar = f32[256] all-reduce(u), replica_groups={{0,1,2,3}}, to_apply=sum
  ROOT m = f32[256] multiply(ar, e)
}
ENTRY main {
  a = f32[256] parameter(0)
  f = f32[256] fusion(a), kind=kCustom, calls=fused
  zero = f32[] constant(0)
  ROOT r = f32[] reduce(f, zero), dimensions={0}, to_apply=sum
})";
  const auto every = analyze(text);
  const auto lean = analyze(text, {.fused_records = false});
  // Every record: 4 of the entry, 5 fused, 3 of `sum` (applied). Without fused records: the
  // entry's 4 and the fused all-reduce, in the same order.
  REQUIRE(every.cost.instructions.size() == 12);
  REQUIRE(lean.cost.instructions.size() == 5);
  const std::vector<std::string_view> kept = {"a", "f", "zero", "r", "ar"};
  for (size_t k = 0; k < kept.size(); ++k) {
    CHECK(lean.cost.instructions[k].instruction->name() == kept[k]);
  }
  const InstructionCost& ar = lean.at("fused", "ar");
  CHECK(ar.role == CostRole::kFused);
  REQUIRE(ar.collective);
  CHECK(ar.collective->group_size == 4);
  CHECK(lean.cost.find(ar.instruction) == &ar);
  CHECK(lean.cost.find(every.at("fused", "e").instruction) == nullptr);
  CHECK(lean.cost.find(static_cast<const Instruction*>(nullptr)) == nullptr);
  // find() of each instruction of the module: its own record, or none where it keeps none (in
  // the fused block, searched by position, `e` comes before `ar` and `m` after it).
  for (const testing::Costed* costed : {&every, &lean}) {
    for (const Computation* c : costed->module.computations()) {
      for (const Instruction* i : c->instructions()) {
        const bool keeps = costed == &every ||
                           std::find(kept.begin(), kept.end(), i->name()) != kept.end();
        const InstructionCost* record = costed->cost.find(i);
        INFO(i->name());
        CHECK((record != nullptr) == keeps);
        if (record != nullptr) CHECK(record->instruction == i);
      }
    }
  }
  // The figures are those of every record: the fusion's, the step's, each computation's.
  for (std::string_view name : {"f", "r"}) {
    const OpCost& a = every[name].cost;
    const OpCost& b = lean[name].cost;
    CHECK(a.flops == b.flops);
    CHECK(a.transcendentals == b.transcendentals);
    CHECK(a.bytes() == b.bytes());
    CHECK(a.xla_flops == b.xla_flops);
    CHECK(a.unknown_ops == b.unknown_ops);
  }
  CHECK(every["f"].cost.transcendentals == 256);  // the fused exponential counts
  CHECK(lean.cost.totals.flops == every.cost.totals.flops);
  CHECK(lean.cost.totals.bytes() == every.cost.totals.bytes());
  REQUIRE(lean.cost.computations.size() == every.cost.computations.size());
  for (size_t k = 0; k < every.cost.computations.size(); ++k) {
    CHECK(lean.cost.computations[k].per_execution.flops ==
          every.cost.computations[k].per_execution.flops);
  }
  // The fused custom call of unknown cost is still said, and makes the step a floor.
  REQUIRE(lean.cost.unknown.size() == 1);
  CHECK(lean.cost.unknown[0]->name() == "u");
  REQUIRE(every.cost.unknown.size() == 1);
  CHECK(every.cost.unknown[0]->name() == "u");
  CHECK(lean.cost.is_lower_bound);
}

}  // namespace
}  // namespace hloroof
