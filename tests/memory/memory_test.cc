// Peak memory of hand-written modules; every expected number is derived in the comments.
#include "hloroof/memory.h"

#include <catch2/catch.hpp>
#include <string>
#include <string_view>

#include "hloroof/device.h"
#include "hloroof/hlo_text.h"
#include "require_ok.h"

namespace {

using hloroof::BufferKind;
using hloroof::MemoryBuffer;
using hloroof::MemoryOptions;
using hloroof::MemoryReport;

// With `device`, the report checks the device's capacity.
MemoryReport analyze(std::string_view text, const MemoryOptions& options = {},
                     const hloroof::DeviceSpec* device = nullptr) {
  absl::StatusOr<hloroof::Module> module = hloroof::parse_module(text);
  INFO(module.status().ToString());
  REQUIRE_OK(module);
  absl::StatusOr<MemoryReport> report = device == nullptr
                                            ? hloroof::analyze_memory(*module, options)
                                            : hloroof::analyze_memory(*module, *device, options);
  INFO(report.status().ToString());
  REQUIRE_OK(report);
  return *std::move(report);
}

const MemoryBuffer* find(const std::vector<MemoryBuffer>& buffers, std::string_view name) {
  for (const MemoryBuffer& b : buffers) {
    if (b.name == name) return &b;
  }
  return nullptr;
}

bool has_note(const MemoryReport& r, std::string_view words) {
  for (const std::string& n : r.notes) {
    if (n.find(words) != std::string::npos) return true;
  }
  return false;
}

constexpr std::string_view kStraightLine = R"(
HloModule straight, is_scheduled=true

ENTRY e {
  p = f32[256]{0} parameter(0)
  a = f32[512]{0} concatenate(p, p), dimensions={0}
  b = f32[512]{0} exponential(a)
  c = f32[1024]{0} concatenate(a, b), dimensions={0}
  d = f32[256]{0} slice(c), slice={[0:256]}
  ROOT r = f32[256]{0} add(d, p)
}
)";

TEST_CASE("straight-line code: temporaries live from definition to last use") {
  // Sizes: p 1024 B (whole step), a 2048, b 2048, c 4096, d 1024, r 1024 (output).
  // Live bytes per position:
  //   p: 1024 | a: 1024+2048 = 3072 | b: 3072+2048 = 5120 | c: 5120+4096 = 9216 (a and b die)
  //   d: 1024+4096+1024 = 6144 (c dies) | r: 1024+1024+1024 = 3072
  MemoryReport r = analyze(kStraightLine);
  CHECK(r.peak_bytes == 9216);
  CHECK(r.peak_at == "c");
  REQUIRE(r.peak_path.size() == 1);
  CHECK(r.peak_path[0].computation == "e");
  CHECK(r.peak_breakdown.parameters == 1024);
  CHECK(r.peak_breakdown.outputs == 0);
  CHECK(r.peak_breakdown.temporaries == 8192);  // a + b + c
  CHECK(r.peak_breakdown.total() == r.peak_bytes);
  REQUIRE(r.live_curve.size() == 6);
  const int64_t expected[] = {1024, 3072, 5120, 9216, 6144, 3072};
  for (int i = 0; i < 6; ++i) CHECK(r.live_curve[i].device_bytes == expected[i]);
  CHECK(r.live_curve[3].instruction == "c");

  // The peak holds p, a, b and c; c is the largest.
  CHECK(r.peak_buffer_count == 4);
  REQUIRE(!r.peak_buffers.empty());
  CHECK(r.peak_buffers[0].name == "c");
  const MemoryBuffer* a = find(r.peak_buffers, "a");
  REQUIRE(a != nullptr);
  CHECK(a->live_from == "a");
  CHECK(a->live_to == "c");
  CHECK(a->kind == BufferKind::kTemporary);
  const MemoryBuffer* out = find(r.largest_buffers, "r");
  REQUIRE(out != nullptr);
  CHECK(out->kind == BufferKind::kOutput);
  CHECK(out->live_to == "r");

  // XLA's terms: arguments 1024, outputs 1024, no aliasing; temporaries peak at c (8192).
  CHECK(r.argument_bytes == 1024);
  CHECK(r.output_bytes == 1024);
  CHECK(r.alias_bytes == 0);
  CHECK(r.temporary_peak_bytes == 8192);
  CHECK(r.buffer_count == 6);
  CHECK(r.notes.empty());  // scheduled, every size known
}

constexpr std::string_view kDonationTemplate = R"(
HloModule donate, is_scheduled=true{ATTR}

ENTRY e {
  p = f32[1024]{0} parameter(0)
  q = f32[1024]{0} parameter(1)
  a = f32[1024]{0} add(p, q)
  ROOT r = f32[1024]{0} multiply(a, a)
}
)";

std::string donation_module(std::string_view attribute) {
  std::string text(kDonationTemplate);
  text.replace(text.find("{ATTR}"), 6, attribute);
  return text;
}

TEST_CASE("a donated parameter's buffer is the aliased output's, counted once") {
  // Every buffer is 4096 B. Without donation the last position holds p, q, a and r: 16384.
  MemoryReport plain = analyze(donation_module(""));
  CHECK(plain.peak_bytes == 16384);
  CHECK(plain.peak_at == "r");

  // With p donated to the output, r is written into p: at most p, q and a, 12288 B, first
  // reached at a.
  for (std::string_view attribute :
       {", input_output_alias={ {}: (0, {}, may-alias) }", ", buffer_donor={ (0, {}) }"}) {
    INFO(attribute);
    MemoryReport r = analyze(donation_module(attribute));
    CHECK(r.peak_bytes == 12288);
    CHECK(r.peak_at == "a");
    CHECK(r.argument_bytes == 8192);
    CHECK(r.output_bytes == 4096);
    CHECK(r.alias_bytes == 4096);
    CHECK(r.peak_breakdown.parameters == 8192);
    CHECK(r.peak_breakdown.temporaries == 4096);
    CHECK(r.buffer_count == 3);  // p, q, a: r's memory is p's
    const MemoryBuffer* p = find(r.largest_buffers, "p");
    REQUIRE(p != nullptr);
    CHECK(p->donated);
    CHECK(p->is_output);
    CHECK(find(r.largest_buffers, "r") == nullptr);
  }
}

TEST_CASE("a buffer donor that matches no output stays allocated, with a note") {
  // Parameter 0 is donated but the only output is twice its size: no alias is made
  // (equal sizes only, as XLA pairs them), so the peak is the undonated 4096*3 + 8192 = 20480.
  constexpr std::string_view kText = R"(
HloModule donor, is_scheduled=true, buffer_donor={ (0, {}) }
ENTRY e {
  p = f32[1024]{0} parameter(0)
  q = f32[1024]{0} parameter(1)
  a = f32[1024]{0} add(p, q)
  ROOT r = f32[2048]{0} concatenate(a, a), dimensions={0}
}
)";
  MemoryReport r = analyze(kText);
  CHECK(r.peak_bytes == 20480);
  CHECK(r.alias_bytes == 0);
  CHECK(has_note(r, "buffer_donor"));
}

constexpr std::string_view kInPlace = R"(
HloModule in_place, is_scheduled=true

fused_dus {
  p0 = f32[16,256]{1,0} parameter(0)
  p1 = f32[1,256]{1,0} parameter(1)
  p2 = s32[] parameter(2)
  c0 = s32[] constant(0)
  ROOT d = f32[16,256]{1,0} dynamic-update-slice(p0, p1, p2, c0)
}

ENTRY e {
  buf = f32[16,256]{1,0} parameter(0)
  upd = f32[1,256]{1,0} parameter(1)
  i = s32[] parameter(2)
  z = s32[] constant(0)
  t = f32[16,256]{1,0} negate(buf)
  d1 = f32[16,256]{1,0} dynamic-update-slice(t, upd, i, z)
  d2 = f32[16,256]{1,0} fusion(d1, upd, i), kind=kLoop, calls=fused_dus
  ROOT r = f32[16,256]{1,0} add(d2, buf)
}
)";

TEST_CASE("dynamic-update-slice and DUS fusions update their operand in place") {
  // Whole step: buf 16*256*4 = 16384, upd 1024, i 4, constant z 4: 17416 B.
  // t (16384) is updated in place by d1 and then by the fusion d2, so it lives until r uses d2.
  // Last position: 17416 + t 16384 + r 16384 = 50184, the peak. Were d1 and d2 new buffers,
  // position d2 alone would hold 17416 + d1 + d2 = 50184 and t would add more before.
  MemoryReport r = analyze(kInPlace);
  CHECK(r.peak_bytes == 50184);
  CHECK(r.peak_at == "r");
  CHECK(r.buffer_count == 6);  // buf, upd, i, z, t, r; the fusion's constant takes no memory
  CHECK(find(r.largest_buffers, "d1") == nullptr);
  CHECK(find(r.largest_buffers, "d2") == nullptr);
  const MemoryBuffer* t = find(r.largest_buffers, "t");
  REQUIRE(t != nullptr);
  CHECK(t->live_to == "r");
  CHECK(r.constant_bytes == 4);
  // Positions buf, upd, i, z hold 16384, 17408, 17412, 17416; t adds 16384 for d1 and d2.
  CHECK(r.live_curve[4].device_bytes == 17416 + 16384);
  CHECK(r.live_curve[6].device_bytes == 17416 + 16384);
}

TEST_CASE("declared operand aliasing and all-reduce-start write in place") {
  // p, a, cc: 4096 B each, r 1024. The custom-call declares its result to be operand 0's
  // buffer, so cc is a: 8192 at a and cc, then p + a + r = 9216 at r. As a new buffer cc
  // would make 12288 at cc.
  constexpr std::string_view kCustomCall = R"(
HloModule declared, is_scheduled=true
ENTRY e {
  p = f32[1024]{0} parameter(0)
  a = f32[1024]{0} negate(p)
  cc = f32[1024]{0} custom-call(a), custom_call_target="update", output_to_operand_aliasing={{}: (0, {})}
  ROOT r = f32[256]{0} slice(cc), slice={[0:256]}
}
)";
  MemoryReport declared = analyze(kCustomCall);
  CHECK(declared.peak_bytes == 9216);
  CHECK(declared.peak_at == "r");
  CHECK(declared.buffer_count == 3);

  // all-reduce-start reduces into its operand (XLA's default in-place pairs), and the done
  // returns the start's buffer: the same numbers.
  constexpr std::string_view kAllReduce = R"(
HloModule all_reduce, is_scheduled=true
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY e {
  p = f32[1024]{0} parameter(0)
  a = f32[1024]{0} negate(p)
  ars = f32[1024]{0} all-reduce-start(a), replica_groups={}, to_apply=add
  ard = f32[1024]{0} all-reduce-done(ars)
  ROOT r = f32[256]{0} slice(ard), slice={[0:256]}
}
)";
  MemoryReport all_reduce = analyze(kAllReduce);
  CHECK(all_reduce.peak_bytes == 9216);
  CHECK(all_reduce.buffer_count == 3);
  const MemoryBuffer* a = find(all_reduce.largest_buffers, "a");
  REQUIRE(a != nullptr);
  CHECK(a->live_to == "r");
}

TEST_CASE("a leaf without a static size counts 0 B, with a note") {
  // f32[?] has no size; the f32[8] result is 32 B.
  constexpr std::string_view kText = R"(
HloModule dynamic, is_scheduled=true
ENTRY e {
  p = f32[?]{0} parameter(0)
  ROOT r = f32[8]{0} slice(p), slice={[0:8]}
}
)";
  MemoryReport r = analyze(kText);
  CHECK(r.peak_bytes == 32);
  CHECK(has_note(r, "no static size"));
}

constexpr std::string_view kWhileLoop = R"(
HloModule loop, is_scheduled=true

body {
  p = (s32[], f32[1024]{0}) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  x = f32[1024]{0} get-tuple-element(p), index=1
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  t = f32[4096]{0} concatenate(x, x, x, x), dimensions={0}
  s = f32[1024]{0} slice(t), slice={[0:1024]}
  ROOT r = (s32[], f32[1024]{0}) tuple(i1, s)
}

cond {
  p = (s32[], f32[1024]{0}) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(10)
  ROOT lt = pred[] compare(i, n), direction=LT
}

ENTRY e {
  x = f32[1024]{0} parameter(0)
  zero = s32[] constant(0)
  xc = f32[1024]{0} copy(x)
  zc = s32[] copy(zero)
  init = (s32[], f32[1024]{0}) tuple(zc, xc)
  w = (s32[], f32[1024]{0}) while(init), condition=cond, body=body
  ROOT out = f32[1024]{0} get-tuple-element(w), index=1
}
)";

TEST_CASE("a while body adds its own peak once, where the loop runs") {
  // Entry buffers: x 4096 (parameter), constants zero, one, n 4 B each (XLA allocates every
  // constant for the whole program), xc 4096 (the loop state, returned: an output), zc 4.
  // The body's own temporary is t, 16384 B; i1 and s are written into the loop state. The
  // condition has none. At the while: 4096 + 12 + 4096 + 4 + 16384 = 24592, whatever the trip
  // count (10 here): the state is the operand's buffers, not a copy per iteration.
  MemoryReport r = analyze(kWhileLoop);
  CHECK(r.peak_bytes == 24592);
  CHECK(r.peak_at == "w");
  REQUIRE(r.peak_path.size() == 2);
  CHECK(r.peak_path[0].instruction == "w");
  CHECK(r.peak_path[1].computation == "body");
  CHECK(r.peak_path[1].instruction == "t");
  CHECK(r.peak_breakdown.parameters == 4096);
  CHECK(r.peak_breakdown.outputs == 4096);
  CHECK(r.peak_breakdown.temporaries == 4 + 16384);
  CHECK(r.peak_breakdown.constants == 12);
  const MemoryBuffer* t = find(r.peak_buffers, "t");
  REQUIRE(t != nullptr);
  CHECK(t->computation == "body");
  CHECK(t->live_from == "t");
  CHECK(t->live_to == "s");
  CHECK(find(r.largest_buffers, "s") == nullptr);  // the loop state's memory
  // Before and after the loop only entry buffers: at out, x + constants + xc = 8204.
  CHECK(r.live_curve.back().device_bytes == 8204);
}

TEST_CASE("without live curves the report has no curve nor timeline, and the same peak") {
  // The peak, its breakdown and the footprint come from the liveness and the assignment, not
  // from the curves: the figures of the test above (24592 B at w; 4096 B of parameters).
  const MemoryReport all = analyze(kWhileLoop);
  const MemoryReport r = analyze(kWhileLoop, {.live_curves = false});
  CHECK(r.live_curve.empty());
  CHECK(r.live_timeline.empty());
  CHECK(!all.live_curve.empty());
  CHECK(all.live_timeline.size() > all.live_curve.size());  // the body's points too
  CHECK(r.peak_bytes == 24592);
  CHECK(r.peak_at == "w");
  CHECK(r.peak_breakdown.parameters == 4096);
  CHECK(r.temporary_peak_bytes == all.temporary_peak_bytes);
  CHECK(r.footprint_bytes == all.footprint_bytes);
  CHECK(r.peak_buffers.size() == all.peak_buffers.size());
}

TEST_CASE("without the entry's curve the timeline is the same, and the peak") {
  const MemoryReport all = analyze(kWhileLoop);
  const MemoryReport r = analyze(kWhileLoop, {.entry_curve = false});
  CHECK(r.live_curve.empty());
  REQUIRE(r.live_timeline.size() == all.live_timeline.size());
  REQUIRE(!r.live_timeline.empty());
  for (size_t k = 0; k < r.live_timeline.size(); ++k) {
    CHECK(r.live_timeline[k].instruction == all.live_timeline[k].instruction);
    CHECK(r.live_timeline[k].device_bytes == all.live_timeline[k].device_bytes);
    CHECK(r.live_timeline[k].depth == all.live_timeline[k].depth);
  }
  CHECK(r.peak_bytes == 24592);  // as above
}

TEST_CASE("a conditional adds the larger of its branches' peaks") {
  // Entry: i 4, x 1024; c (1024) is defined at the conditional. Branch small's peak is its
  // 2048 B concatenate, branch big's 8192 B. At c: 4 + 1024 + 1024 + 8192 = 10244.
  constexpr std::string_view kText = R"(
HloModule cond, is_scheduled=true
small {
  p = f32[256]{0} parameter(0)
  t = f32[512]{0} concatenate(p, p), dimensions={0}
  ROOT s = f32[256]{0} slice(t), slice={[0:256]}
}
big {
  p = f32[256]{0} parameter(0)
  t = f32[2048]{0} concatenate(p, p, p, p, p, p, p, p), dimensions={0}
  ROOT s = f32[256]{0} slice(t), slice={[0:256]}
}
ENTRY e {
  i = s32[] parameter(0)
  x = f32[256]{0} parameter(1)
  c = f32[256]{0} conditional(i, x, x), branch_computations={small, big}
  ROOT r = f32[256]{0} negate(c)
}
)";
  MemoryReport r = analyze(kText);
  CHECK(r.peak_bytes == 10244);
  CHECK(r.peak_at == "c");
  REQUIRE(r.peak_path.size() == 2);
  CHECK(r.peak_path[1].computation == "big");
  CHECK(r.temporary_peak_bytes == 1024 + 8192);
}

constexpr std::string_view kAsync = R"(
HloModule async, is_scheduled=true, num_partitions=4

ENTRY e {
  p = bf16[256,1024]{1,0} parameter(0)
  a = bf16[256,1024]{1,0} negate(p)
  ags = (bf16[256,1024]{1,0}, bf16[1024,1024]{1,0}) all-gather-start(a), channel_id=1, replica_groups=[1,4]<=[4], dimensions={0}, use_global_device_ids=true
  y = bf16[256,1024]{1,0} exponential(p)
  agd = bf16[1024,1024]{1,0} all-gather-done(ags)
  ROOT t = (bf16[1024,1024]{1,0}, bf16[256,1024]{1,0}) tuple(agd, y)
}
)";

TEST_CASE("async collective buffers live across their start-done window") {
  // p, a, y: 256*1024*2 = 524288 B each; the gathered result 1024*1024*2 = 2097152 B.
  // The start allocates the result and holds its operand a until the done:
  //   p 524288 | a 1048576 | ags 3145728 | y 3670016 | agd 3670016 | t 3145728 (a freed)
  MemoryReport r = analyze(kAsync);
  CHECK(r.peak_bytes == 3670016);
  CHECK(r.peak_at == "y");
  const int64_t expected[] = {524288, 1048576, 3145728, 3670016, 3670016, 3145728};
  REQUIRE(r.live_curve.size() == 6);
  for (int i = 0; i < 6; ++i) CHECK(r.live_curve[i].device_bytes == expected[i]);
  const MemoryBuffer* result = find(r.peak_buffers, "ags{1}");
  REQUIRE(result != nullptr);
  CHECK(result->live_from == "ags");
  CHECK(result->live_to == "t");
  CHECK(result->kind == BufferKind::kOutput);  // agd is the start's buffer, returned
  const MemoryBuffer* a = find(r.peak_buffers, "a");
  REQUIRE(a != nullptr);
  CHECK(a->live_to == "agd");
  CHECK(find(r.largest_buffers, "agd") == nullptr);
  CHECK(r.output_bytes == 2097152 + 524288);
}

TEST_CASE("on-chip and host buffers are reported apart from device memory") {
  // Device: p 4096 (whole step) and r 4096: peak 8192 at r.
  // On-chip: v 4096 (copy into S(1)), the copy-start's destination 4096 and its S(2) context
  // u32[] 4 B, both from the start to the done: 8196 at cs and cd.
  // Host: h 4096 for the whole step.
  constexpr std::string_view kText = R"(
HloModule spaces, is_scheduled=true
ENTRY e {
  p = f32[1024]{0} parameter(0)
  h = f32[1024]{0:S(5)} parameter(1)
  v = f32[1024]{0:S(1)} copy(p)
  cs = (f32[1024]{0:S(1)}, f32[1024]{0:S(5)}, u32[]{:S(2)}) copy-start(h)
  cd = f32[1024]{0:S(1)} copy-done(cs)
  ROOT r = f32[1024]{0} add(v, cd)
}
)";
  MemoryReport r = analyze(kText);
  CHECK(r.peak_bytes == 8192);
  CHECK(r.peak_at == "r");
  CHECK(r.peak_on_chip_bytes == 8196);
  CHECK(r.peak_host_bytes == 4096);
  CHECK(r.argument_bytes == 4096);  // device memory only
  CHECK(r.peak_buffer_count == 2);
  const MemoryBuffer* dest = find(r.largest_buffers, "cs{0}");
  REQUIRE(dest != nullptr);
  CHECK(dest->memory_space == 1);
  CHECK(dest->tier() == hloroof::MemoryTier::kOnChip);
  CHECK(dest->live_to == "r");
}

constexpr std::string_view kPadded = R"(
HloModule padded, is_scheduled=true
ENTRY e {
  p = f32[9,18]{1,0:T(8,128)} parameter(0)
  c = bf16[16,64]{1,0:T(8,128)(2,1)} parameter(1)
  ROOT r = f32[9,18]{1,0:T(8,128)} negate(p)
}
)";

TEST_CASE("tiled layouts: padded sizes count, and the waste is reported") {
  // f32[9,18] under (8,128): 16 x 128 x 4 = 8192 B for 648 logical (docs/sources.md, "TPU tiling
  // and padding"). bf16[16,64] under (8,128)(2,1): 16 x 128 x 2 = 4096 B for 2048 (the [..., 64]
  // doubling of docs/sources.md, "TPU tiling and padding"). All three are live at r: 8192 + 4096 +
  // 8192 = 20480 B. Waste: (8192 - 648) x 2 + (4096 - 2048) = 17136 B.
  MemoryReport r = analyze(kPadded);
  CHECK(r.peak_bytes == 20480);
  CHECK(r.padding_waste_bytes == 17136);
  CHECK(r.peak_padding_waste_bytes == 17136);
  const MemoryBuffer* p = find(r.largest_buffers, "p");
  REQUIRE(p != nullptr);
  CHECK(p->logical_bytes == 648);
  CHECK(p->padded_bytes == 8192);
  CHECK(p->padding_waste_bytes() == 7544);
  CHECK(p->shape == "f32[9,18]{1,0:T(8,128)}");
}

TEST_CASE("the padding rule: XLA's first tile level, or every level") {
  // bf16[]{:T(512)(2,1)}: the first level gives 512 elements = 1 KiB; applying (2,1) to the
  // [1,512] result pads again to 1024 elements = 2 KiB (docs/sources.md, "TPU tiling and padding",
  // last paragraph).
  constexpr std::string_view kText = R"(
HloModule scalar, is_scheduled=true
ENTRY e {
  ROOT p = bf16[]{:T(512)(2,1)} parameter(0)
}
)";
  CHECK(analyze(kText).peak_bytes == 1024);
  MemoryOptions every_level;
  every_level.first_tile_padding = false;
  CHECK(analyze(kText, every_level).peak_bytes == 2048);
}

constexpr std::string_view kTwentyGiB = R"(
HloModule big, is_scheduled=true
ENTRY e {
  p = f32[5,1024,1024,1024]{3,2,1,0} parameter(0)
  ROOT r = f32[5,1024,1024,1024]{3,2,1,0} negate(p)
}
)";

TEST_CASE("capacity: 40 GiB does not fit a 16 GB v5e but fits a 95 GiB v5p") {
  // Each array is 5 x 2^30 x 4 B = 20 GiB = 21474836480 B; both live at r: 42949672960 B.
  absl::StatusOr<hloroof::DeviceSpec> v5e = hloroof::device("tpu_v5e");
  absl::StatusOr<hloroof::DeviceSpec> v5p = hloroof::device("tpu_v5p");
  REQUIRE_OK(v5e);
  REQUIRE_OK(v5p);

  MemoryReport on_v5e = analyze(kTwentyGiB, {}, &*v5e);
  CHECK(on_v5e.peak_bytes == 42949672960);
  REQUIRE(on_v5e.capacity.has_value());
  CHECK(on_v5e.capacity->device == "tpu_v5e");
  CHECK(on_v5e.capacity->capacity_bytes == 16000000000);  // 16 GB (GC-v5e)
  CHECK_FALSE(on_v5e.capacity->fits);
  CHECK(on_v5e.capacity->shortfall_bytes == 42949672960 - 16000000000);
  CHECK(on_v5e.capacity->headroom < 0);
  // Untiled layouts on a TPU: the sizes are lower bounds, and the report says so.
  CHECK(has_note(on_v5e, "without tiles"));

  MemoryReport on_v5p = analyze(kTwentyGiB, {}, &*v5p);
  REQUIRE(on_v5p.capacity.has_value());
  CHECK(on_v5p.capacity->capacity_bytes == 95LL << 30);  // 95 GiB (GC-v5p)
  CHECK(on_v5p.capacity->fits);
  CHECK(on_v5p.capacity->shortfall_bytes == 0);
  CHECK(on_v5p.capacity->headroom == Approx(55.0 / 95));  // 1 - 40 GiB / 95 GiB
}

TEST_CASE("capacity: without buffer assignment the peak is checked, and no footprint is made") {
  absl::StatusOr<hloroof::DeviceSpec> v5p = hloroof::device("tpu_v5p");
  REQUIRE_OK(v5p);
  // The parameter and the negate's result, 20 GiB each, live at r: 42949672960 B.
  MemoryReport assigned = analyze(kTwentyGiB, {}, &*v5p);
  REQUIRE(assigned.capacity.has_value());
  CHECK(assigned.capacity->basis == hloroof::CapacityBasis::kFootprint);
  CHECK(assigned.footprint_bytes == 42949672960);  // argument + output, no temporaries
  MemoryReport live = analyze(kTwentyGiB, {.buffer_assignment = false}, &*v5p);
  CHECK(live.peak_bytes == 42949672960);
  CHECK(live.footprint_bytes == 0);
  CHECK(live.allocations.empty());
  REQUIRE(live.capacity.has_value());
  CHECK(live.capacity->basis == hloroof::CapacityBasis::kPeak);
  CHECK(live.capacity->checked_bytes == 42949672960);
  CHECK(live.capacity->fits);  // 40 GiB of 95 GiB
}

TEST_CASE("check_capacity on its own") {
  absl::StatusOr<hloroof::DeviceSpec> h100 = hloroof::device("h100");
  REQUIRE_OK(h100);
  hloroof::CapacityCheck c = hloroof::check_capacity(0, *h100);
  CHECK(c.fits);
  CHECK(c.headroom == Approx(1.0));
  CHECK(c.capacity_bytes == static_cast<int64_t>(h100->hbm_capacity_bytes));
}

TEST_CASE("an unscheduled module is analyzed in printed order, with a note") {
  std::string text(kStraightLine);
  text.replace(text.find(", is_scheduled=true"), 19, "");
  MemoryReport r = analyze(text);
  CHECK_FALSE(r.scheduled);
  CHECK(r.peak_bytes == 9216);
  CHECK(has_note(r, "not scheduled"));
}

TEST_CASE("top_buffers caps both lists; 0 keeps every buffer") {
  MemoryReport capped = analyze(kStraightLine, {.top_buffers = 2});
  CHECK(capped.largest_buffers.size() == 2);
  CHECK(capped.peak_buffers.size() == 2);
  CHECK(capped.largest_buffers[0].padded_bytes >= capped.largest_buffers[1].padded_bytes);
  MemoryReport all = analyze(kStraightLine, {.top_buffers = 0});
  CHECK(all.largest_buffers.size() == 6);
  CHECK(all.peak_buffers.size() == 4);
}

TEST_CASE("a module without entry computation is an error, not a crash") {
  hloroof::Module empty;
  absl::StatusOr<MemoryReport> r = hloroof::analyze_memory(empty);
  CHECK_FALSE(r.ok());
}

}  // namespace

TEST_CASE("a parameter that is a tuple of 50,000 arrays: one buffer and allocation per leaf") {
  // Every leaf is a parameter buffer of its own, in its own allocation (XLA gives each entry
  // parameter leaf one). Element 0 is a pair, the 49,999 others single arrays, all f32[2] (8 B):
  // 2 + 49,999 = 50,001 leaves, 400,008 B of arguments, all live at the parameter. Naming leaf
  // k by its index must not walk the tuple for every leaf.
  constexpr int kElements = 50000;
  std::string text = "HloModule wide\n\nENTRY e {\n  ROOT p = ((f32[2]{0}, f32[2]{0})";
  for (int k = 1; k < kElements; ++k) text += ", f32[2]{0}";
  text += ") parameter(0)\n}\n";
  const MemoryReport r = analyze(text);
  CHECK(r.buffer_count == kElements + 1);
  CHECK(r.argument_bytes == 8 * (kElements + 1));
  CHECK(r.peak_bytes == 8 * (kElements + 1));
  REQUIRE(r.allocations.size() == static_cast<size_t>(kElements) + 1);
  auto name_of = [&](size_t allocation) {
    REQUIRE(r.allocations[allocation].buffers.size() == 1);
    return r.allocations[allocation].buffers[0];
  };
  CHECK(name_of(0) == "p{0,0}");
  CHECK(name_of(1) == "p{0,1}");
  CHECK(name_of(2) == "p{1}");
  CHECK(name_of(kElements) == "p{49999}");
}
