// Buffer assignment of hand-written modules: which allocations XLA would make, which buffers
// share one, and the temp allocation's size. Every expected number is derived in the comments
// (f32 is 4 B; positions are schedule positions; "[a,b]" is a live range, END the end of the
// program) or is stated by XLA's own tests (xla/service/buffer_assignment_test.cc, cited by
// test name).
#include <catch2/catch.hpp>
#include <string>
#include <string_view>

#include "hloroof/device.h"
#include "hloroof/hlo_text.h"
#include "hloroof/memory.h"

#include "examples.h"
#include "require_ok.h"

namespace {

using hloroof::AllocationKind;
using hloroof::MemoryAllocation;
using hloroof::MemoryBuffer;
using hloroof::MemoryOptions;
using hloroof::MemoryReport;

// With `device`, the report checks the device's capacity.
MemoryReport analyze(std::string_view text, const MemoryOptions& options = {.top_buffers = 0},
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

const MemoryBuffer& buffer(const MemoryReport& r, std::string_view name) {
  for (const MemoryBuffer& b : r.largest_buffers) {
    if (b.name == name) return b;
  }
  FAIL("no buffer " << name);
  return r.largest_buffers.front();
}

int64_t count(const MemoryReport& r, AllocationKind kind) {
  int64_t n = 0;
  for (const MemoryAllocation& a : r.allocations) n += a.kind == kind ? 1 : 0;
  return n;
}

const MemoryAllocation& allocation_of(const MemoryReport& r, std::string_view name) {
  const MemoryBuffer& b = buffer(r, name);
  REQUIRE(b.allocation >= 0);
  REQUIRE(b.allocation < static_cast<int64_t>(r.allocations.size()));
  return r.allocations[b.allocation];
}

TEST_CASE("a temporary is placed in the output allocation when their lives do not overlap") {
  // p 1024 B; t 2048 B temp [1,2]; u 1024 B temp [2,3]; o 4096 B output [3,END].
  // Largest first: o gets the output allocation (4096 B). t (2048 <= 4096) is dead before o
  // is defined: it goes into o's allocation. u overlaps t at 2 (a slice does not write over
  // its operand) and o at 3 (a concatenate neither): u goes to the temp allocation, 1024 B.
  MemoryReport r = analyze(R"(
HloModule reuse_output, is_scheduled=true
ENTRY e {
  p = f32[256]{0} parameter(0)
  t = f32[512]{0} concatenate(p, p), dimensions={0}
  u = f32[256]{0} slice(t), slice={[0:256]}
  ROOT o = f32[1024]{0} concatenate(u, u, u, u), dimensions={0}
}
)");
  CHECK(r.argument_bytes == 1024);
  CHECK(r.output_bytes == 4096);
  CHECK(r.alias_bytes == 0);
  CHECK(r.temp_bytes == 1024);
  CHECK(r.footprint_bytes == 1024 + 4096 + 1024);
  CHECK(allocation_of(r, "t").kind == AllocationKind::kOutput);
  CHECK(buffer(r, "t").allocation == buffer(r, "o").allocation);
  CHECK(allocation_of(r, "u").kind == AllocationKind::kTemp);
  CHECK(r.temps_in_live_out == 1);
  // Liveness alone: t and u are live together at 2 (3072 B of temporaries), and the peak is
  // p + u + o = 6144 B at o.
  CHECK(r.temporary_peak_bytes == 3072);
  CHECK(r.peak_bytes == 6144);
  // Allocations: one parameter, one output, one temp.
  CHECK(count(r, AllocationKind::kParameter) == 1);
  CHECK(count(r, AllocationKind::kOutput) == 1);
  CHECK(count(r, AllocationKind::kTemp) == 1);
}

TEST_CASE("a temporary larger than the output stays in the temp allocation") {
  // p 1024 B; t 4096 B temp [1,2]; u 512 B temp [2,3]; o 2048 B output [3,END].
  // t is taken first (largest) while no allocation can hold it, and o's allocation (2048 B)
  // is smaller than t anyway: t is a temporary of the temp allocation. u overlaps t at 2 and o
  // at 3 (neither slice nor concatenate writes over its operand): temp too. The heap holds t
  // at offset 0 and u above it (they overlap at 2): 4096 + 512 = 4608 B.
  MemoryReport r = analyze(R"(
HloModule no_reuse, is_scheduled=true
ENTRY e {
  p = f32[256]{0} parameter(0)
  t = f32[1024]{0} concatenate(p, p, p, p), dimensions={0}
  u = f32[128]{0} slice(t), slice={[0:128]}
  ROOT o = f32[512]{0} concatenate(u, u, u, u), dimensions={0}
}
)");
  CHECK(r.output_bytes == 2048);
  CHECK(r.temp_bytes == 4608);
  CHECK(allocation_of(r, "t").kind == AllocationKind::kTemp);
  CHECK(buffer(r, "t").allocation_offset == 0);
  CHECK(buffer(r, "u").allocation_offset == 4096);
  CHECK(r.temps_in_live_out == 0);
  CHECK(r.footprint_bytes == 1024 + 2048 + 4608);
  // Liveness peak at u: p + t + u = 1024 + 4096 + 512 = 5632 B; the footprint is above it.
  CHECK(r.peak_bytes == 5632);
  CHECK(r.footprint_bytes >= r.peak_bytes);
}

TEST_CASE("a donated parameter's allocation takes a temporary between its two values") {
  // p (1024 B) is donated to the output o = add(t, u), so p's allocation holds two values:
  // p [0,2] (its last use is s) and o [5,END]. q 2048 B, read-only.
  // Sizes: s 512 B [2,3], t 1024 B [3,4], u 1024 B [4,5].
  // Largest first: q, then p (1024, live out), t, u, then s.
  //   t [3,4] touches neither p's value nor o's: it goes into p's allocation.
  //   u [4,5] meets t at 4, and u = slice(q) does not read t: temp allocation.
  //   s [2,3] meets p at 2, and a slice does not write over its operand: temp allocation.
  // Temp heap: u [4,5] and s [2,3] never overlap, so both sit at offset 0: 1024 B.
  MemoryReport r = analyze(R"(
HloModule donated, is_scheduled=true, input_output_alias={ {}: (0, {}, may-alias) }
ENTRY e {
  p = f32[256]{0} parameter(0)
  q = f32[512]{0} parameter(1)
  s = f32[128]{0} slice(p), slice={[0:128]}
  t = f32[256]{0} concatenate(s, s), dimensions={0}
  u = f32[256]{0} slice(q), slice={[0:256]}
  ROOT o = f32[256]{0} add(t, u)
}
)");
  CHECK(r.argument_bytes == 1024 + 2048);
  CHECK(r.output_bytes == 1024);
  CHECK(r.alias_bytes == 1024);
  CHECK(r.temp_bytes == 1024);
  CHECK(r.footprint_bytes == 3072 + 1024 - 1024 + 1024);
  const MemoryAllocation& donated = allocation_of(r, "p");
  CHECK(donated.kind == AllocationKind::kParameter);
  CHECK(donated.maybe_live_out);
  CHECK(buffer(r, "t").allocation == buffer(r, "p").allocation);
  CHECK(allocation_of(r, "u").kind == AllocationKind::kTemp);
  CHECK(allocation_of(r, "s").kind == AllocationKind::kTemp);
  CHECK(buffer(r, "u").allocation_offset == 0);
  CHECK(buffer(r, "s").allocation_offset == 0);
}

TEST_CASE("an elementwise op writes over its dying operand, also as a loop fusion") {
  // p 1024 B; a 4096 B [1,2]; b = exponential(a) 4096 B [2,3]; c = loop fusion computing
  // negate(b), 4096 B [3,4]; o 1024 B output.
  // a's last use is b, same shape: b takes a's bytes; c, elementwise in b, takes them again.
  // One 4096 B chunk instead of three (liveness: a and b, then b and c, live together).
  MemoryReport r = analyze(R"(
HloModule in_place, is_scheduled=true
%neg (x: f32[1024]) -> f32[1024] {
  %x = f32[1024]{0} parameter(0)
  ROOT %n = f32[1024]{0} negate(%x)
}
ENTRY e {
  p = f32[256]{0} parameter(0)
  a = f32[1024]{0} concatenate(p, p, p, p), dimensions={0}
  b = f32[1024]{0} exponential(a)
  c = f32[1024]{0} fusion(b), kind=kLoop, calls=%neg
  ROOT o = f32[256]{0} slice(c), slice={[0:256]}
}
)");
  CHECK(r.temp_bytes == 4096);
  CHECK(r.shared_with_operand == 2);
  CHECK(buffer(r, "a").allocation_offset == buffer(r, "b").allocation_offset);
  CHECK(buffer(r, "b").allocation_offset == buffer(r, "c").allocation_offset);
  // Liveness: at b, p + a + b = 1024 + 8192 = 9216 B.
  CHECK(r.peak_bytes == 9216);
  CHECK(r.footprint_bytes == 1024 + 1024 + 4096);

  // A copy never writes over its operand, nor does an op whose result has another shape:
  // here b = copy(a) needs its own 4096 B (a [1,2] and b [2,3] overlap at 2).
  MemoryReport copied = analyze(R"(
HloModule copied, is_scheduled=true
ENTRY e {
  p = f32[256]{0} parameter(0)
  a = f32[1024]{0} concatenate(p, p, p, p), dimensions={0}
  b = f32[1024]{0} copy(a)
  ROOT o = f32[256]{0} slice(b), slice={[0:256]}
}
)");
  CHECK(copied.temp_bytes == 8192);
  CHECK(copied.shared_with_operand == 0);
}

TEST_CASE("an async collective's buffers stay allocated over its whole window") {
  // p 1024 B; x = exponential(p) 1024 B, held by the all-gather until its done: [1,4];
  // ags{1} the gathered 4096 B [2,5]; y = negate(p) 1024 B [3,6]; s = slice of the gather
  // 1024 B [5,6]; o = add(s, y) 1024 B output [6,END].
  //   o gets the output allocation. x [1,4] is dead before o: it goes there.
  //   y [3,6] overlaps x (1..4 against 3..6): it cannot reuse x's bytes although they have
  //   the same shape, since x is alive until the done: temp allocation.
  //   s [5,6] meets o at 6, and o = add(s, y) writes over s: s goes into o's allocation too.
  //   Temp heap: ags{1} [2,5] and y [3,6] overlap: 4096 + 1024 = 5120 B.
  MemoryReport r = analyze(R"(
HloModule async, is_scheduled=true
ENTRY e {
  p = f32[256]{0} parameter(0)
  x = f32[256]{0} exponential(p)
  ags = (f32[256]{0}, f32[1024]{0}) all-gather-start(x), dimensions={0}, replica_groups={{0,1,2,3}}
  y = f32[256]{0} negate(p)
  agd = f32[1024]{0} all-gather-done(ags)
  s = f32[256]{0} slice(agd), slice={[0:256]}
  ROOT o = f32[256]{0} add(s, y)
}
)");
  CHECK(buffer(r, "x").allocation == buffer(r, "o").allocation);
  CHECK(buffer(r, "s").allocation == buffer(r, "o").allocation);
  CHECK(allocation_of(r, "y").kind == AllocationKind::kTemp);
  CHECK(allocation_of(r, "ags{1}").kind == AllocationKind::kTemp);
  CHECK(r.temp_bytes == 5120);
  CHECK(r.footprint_bytes == 1024 + 1024 + 5120);
  // Liveness: from the start to the done p, x, the gather and y are live: 7168 B.
  CHECK(r.peak_bytes == 7168);
  CHECK(r.footprint_bytes >= r.peak_bytes);
}

TEST_CASE("an async-start's result is taken after every value of its caller") {
  // An inverse distributed FFT as XLA's GPU compiler printed it (the all-to-all of a
  // 16-device slab, 4x smaller here): every buffer is S = c64[4,16,16] = 4*16*16*8 = 8192 B.
  // Schedule positions: 0 p, 1 f0, 2 t0, 3 b0, 4 a2as, 5 a2ad, 6 lt, 7 b1, 8 f1, 9 t1, 10 f2.
  // Live ranges: f0 [1,2]; t0 [2,5] (the start holds its operand until the done); the
  // all-to-all's result [4,6]; lt [6,8] (b1 is lt's buffer); f1 [8,9]; t1 [9,10];
  // f2 output [10,END].
  // XLA takes equal sizes live-out first, then in post order of their definitions, numbered
  // over the entry before the computations it calls. The all-to-all's result is defined in
  // the computation `all-to-all-start` wraps, so it comes last:
  //   f2: the output allocation. f0 [1,2]: no overlap with f2, into the output allocation.
  //   t0 [2,5]: meets f0 at 2 (a transpose fusion does not write over its operand): temp.
  //   lt [6,8]: its operand's value (the all-to-all's) has no allocation yet; fits the output
  //   allocation between f0 and f2: there. f1 [8,9] meets lt at 8 (an fft does not write over
  //   its operand): temp. t1 [9,10] meets f2 at 10: temp.
  //   The all-to-all's result [4,6] meets lt at 6 (a transpose fusion, again): temp.
  // Temp heap: t0 [2,5] and the result [4,6] overlap, f1 [8,9] and t1 [9,10] meet at 9 (no
  // sharing): two slabs, 2 * 8192 = 16384 B, XLA's figure for such programs (16 MiB for the
  // c64[16,256,256] slab of the original, twice the slab). Taken at the start's position
  // instead (before lt), the result would go into the output allocation and every temporary
  // would fit one slab: 8192 B, half of what XLA allocates.
  MemoryReport r = analyze(R"(
HloModule jit_do_ifft, is_scheduled=true, num_partitions=4

%fused_transpose (param_0.1: c64[4,16,16]) -> c64[16,4,4,4] {
  %param_0.1 = c64[4,16,16]{1,0,2} parameter(0)
  %bitcast.34.1 = c64[4,4,4,16]{3,2,1,0} bitcast(%param_0.1)
  ROOT %transpose.22.1 = c64[16,4,4,4]{3,2,1,0} transpose(%bitcast.34.1), dimensions={3,1,0,2}
}

%wrapped_transpose_computation (param_0.3: c64[4,16,16]) -> c64[16,4,16] {
  %param_0.3 = c64[4,16,16]{2,1,0} parameter(0)
  ROOT %transpose.20.1 = c64[16,4,16]{2,1,0} transpose(%param_0.3), dimensions={2,0,1}
}

%wrapped_transpose_computation.1 (param_0.4: c64[16,4,16]) -> c64[4,16,16] {
  %param_0.4 = c64[16,4,16]{2,1,0} parameter(0)
  ROOT %transpose.23.1 = c64[4,16,16]{2,1,0} transpose(%param_0.4), dimensions={1,2,0}
}

ENTRY %main (p: c64[4,16,16]) -> c64[4,16,16] {
  %p = c64[4,16,16]{2,1,0} parameter(0)
  %f0 = c64[4,16,16]{2,1,0} fft(%p), fft_type=IFFT, fft_length={16}
  %t0 = c64[16,4,16]{2,1,0} fusion(%f0), kind=kInput, calls=%wrapped_transpose_computation
  %b0 = c64[4,16,16]{1,0,2} bitcast(%t0)
  %a2as = ((c64[4,16,16]{1,0,2}), c64[4,16,16]{1,0,2}) all-to-all-start(%b0), channel_id=1,
    replica_groups={{0,1,2,3}}, dimensions={2}
  %a2ad = c64[4,16,16]{1,0,2} all-to-all-done(%a2as)
  %lt = c64[16,4,4,4]{3,2,1,0} fusion(%a2ad), kind=kLoop, calls=%fused_transpose
  %b1 = c64[16,4,16]{2,1,0} bitcast(%lt)
  %f1 = c64[16,4,16]{2,1,0} fft(%b1), fft_type=IFFT, fft_length={16}
  %t1 = c64[4,16,16]{2,1,0} fusion(%f1), kind=kInput, calls=%wrapped_transpose_computation.1
  ROOT %f2 = c64[4,16,16]{2,1,0} fft(%t1), fft_type=IFFT, fft_length={16}
}
)");
  CHECK(r.argument_bytes == 8192);
  CHECK(r.output_bytes == 8192);
  CHECK(r.temp_bytes == 16384);
  CHECK(buffer(r, "f0").allocation == buffer(r, "f2").allocation);
  CHECK(buffer(r, "lt").allocation == buffer(r, "f2").allocation);
  CHECK(allocation_of(r, "a2as{1}").kind == AllocationKind::kTemp);
  CHECK(allocation_of(r, "t0").kind == AllocationKind::kTemp);
  CHECK(allocation_of(r, "f1").kind == AllocationKind::kTemp);
  CHECK(allocation_of(r, "t1").kind == AllocationKind::kTemp);
  CHECK(r.temps_in_live_out == 2);
  CHECK(r.footprint_bytes == 8192 + 8192 + 16384);
}

TEST_CASE("equal sizes are taken in post order, not in schedule order") {
  // p 1024 B; a = negate(p) [1,3], b = exponential(p) [2,3], d = add(b, a) [3,4], all
  // 1024 B; o = concatenate(d, d) 2048 B output [4,END].
  // Post order from the root: o's operand d, d's first operand b (after p), then a: p, b, a,
  // d, o. The schedule has a before b; XLA takes b first.
  //   o: the output allocation (2048 B). b [2,3] ends before o starts: into it.
  //   a [1,3] overlaps b: temp. d [3,4] meets o at 4 (concatenate does not write over its
  //   operand): temp, where it takes over a's bytes (add writes over its dying operand).
  // Temp heap: a and d in one 1024 B slot. In schedule order a would have been the one in the
  // output allocation and b the temporary.
  MemoryReport r = analyze(R"(
HloModule post_order, is_scheduled=true
ENTRY e {
  p = f32[256]{0} parameter(0)
  a = f32[256]{0} negate(p)
  b = f32[256]{0} exponential(p)
  d = f32[256]{0} add(b, a)
  ROOT o = f32[512]{0} concatenate(d, d), dimensions={0}
}
)");
  CHECK(r.output_bytes == 2048);
  CHECK(buffer(r, "b").allocation == buffer(r, "o").allocation);
  CHECK(allocation_of(r, "a").kind == AllocationKind::kTemp);
  CHECK(allocation_of(r, "d").kind == AllocationKind::kTemp);
  CHECK(buffer(r, "d").allocation_offset == buffer(r, "a").allocation_offset);
  CHECK(r.temp_bytes == 1024);
}

TEST_CASE("an S(6) scalar is TPU scalar memory on chip, not host memory") {
  // i: s32[] under T(128) occupies one 128-element tile: 512 B in S(6). p 4096 B, d 512 B.
  absl::StatusOr<hloroof::DeviceSpec> v5e = hloroof::device("tpu_v5e");
  REQUIRE_OK(v5e);
  MemoryReport r = analyze(R"(
HloModule smem, is_scheduled=true
ENTRY e {
  i = s32[]{:T(128)S(6)} parameter(0)
  p = f32[1024]{0} parameter(1)
  ROOT d = f32[128]{0} dynamic-slice(p, i), dynamic_slice_sizes={128}
}
)",
                           {.top_buffers = 0}, &*v5e);
  CHECK(r.peak_host_bytes == 0);
  CHECK(r.peak_on_chip_bytes == 512);
  CHECK(r.argument_bytes == 4096);  // device memory only
  CHECK(buffer(r, "i").memory_space == 6);
  CHECK(hloroof::memory_tier(6) == hloroof::MemoryTier::kOnChip);
  CHECK(hloroof::memory_tier(5) == hloroof::MemoryTier::kHost);
  // The footprint counts device memory: 4096 + 512 (d's output allocation).
  CHECK(r.footprint_bytes == 4608);
  REQUIRE(r.capacity.has_value());
  CHECK(r.capacity->basis == hloroof::CapacityBasis::kFootprint);
  CHECK(r.capacity->checked_bytes == 4608);
}

// A program the TPU compiler wrote (tiled layouts) is assigned by its rules (docs/memory.md, "On
// TPU"). p 4096 B; t 4096 B temp [1,2]; u 16384 B temp [2,3]; o 4096 B output [3,END].
constexpr std::string_view kTiled = R"(
HloModule tpu_rules, is_scheduled=true
ENTRY e {
  p = f32[8,128]{1,0:T(8,128)} parameter(0)
  t = f32[8,128]{1,0:T(8,128)} negate(p)
  u = f32[32,128]{1,0:T(8,128)} concatenate(t, t, t, t), dimensions={0}
  ROOT o = f32[8,128]{1,0:T(8,128)} slice(u), slice={[0:8], [0:128]}
}
)";

TEST_CASE("a TPU program's temporaries stay out of outputs, in program order, at 16 KiB") {
  absl::StatusOr<hloroof::DeviceSpec> v5e = hloroof::device("tpu_v5e");
  REQUIRE_OK(v5e);
  const MemoryReport r = analyze(kTiled, {.top_buffers = 0}, &*v5e);
  // t is dead before o is defined, but no temporary goes into an output allocation: both
  // temporaries are in the heap. t begins first: offset 0, its 4096 B in a 16 KiB place; u
  // meets t at 2: offset 16384, 16384 B. temp = 32768 B (largest first would have put u at 0).
  CHECK(r.temps_in_live_out == 0);
  CHECK(allocation_of(r, "t").kind == AllocationKind::kTemp);
  CHECK(buffer(r, "t").allocation_offset == 0);
  CHECK(buffer(r, "u").allocation_offset == 16384);
  CHECK(r.temp_bytes == 32768);
  CHECK(r.output_bytes == 4096);  // an array root: no tuple table
  CHECK(r.footprint_bytes == 4096 + 4096 + 32768);

  // The same text for a GPU follows XLA's open-source rules: t goes into o's allocation
  // (4096 <= 4096, lives apart), u alone in the heap: temp 16384 B, unaligned.
  absl::StatusOr<hloroof::DeviceSpec> h100 = hloroof::device("h100");
  REQUIRE_OK(h100);
  const MemoryReport g = analyze(kTiled, {.top_buffers = 0}, &*h100);
  CHECK(g.temps_in_live_out == 1);
  CHECK(g.temp_bytes == 16384);
}

TEST_CASE("a TPU all-reduce writes its result over its dying operand") {
  // d = p x p dies at the all-reduce a, whose result has d's shape and layout: libtpu reduces
  // in place (its buffer-assignment dumps put an all-reduce at its operand's offset: a bf16
  // MLP train step on v5e 2x2, 234,946,560 B of temp as XLA's memory_analysis() says, and
  // f32 MLPs on v5e and v5p; docs/memory.md, "On TPU"). f32[256,256] is 262144 B (16 places):
  // d [1,2] and a [2,3] share one place, temp 262144 B, where two would be 524288 B.
  constexpr std::string_view kAllReduce = R"(
HloModule all_reduce_in_place, is_scheduled=true, replica_count=2

add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

ENTRY e {
  p = f32[256,256]{1,0:T(8,128)} parameter(0)
  d = f32[256,256]{1,0:T(8,128)} dot(p, p), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  a = f32[256,256]{1,0:T(8,128)} all-reduce(d), replica_groups={{0,1}}, to_apply=add
  ROOT o = f32[256,256]{1,0:T(8,128)} dot(a, p), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
)";
  absl::StatusOr<hloroof::DeviceSpec> v5e = hloroof::device("tpu_v5e");
  REQUIRE_OK(v5e);
  const MemoryReport r = analyze(kAllReduce, {.top_buffers = 0}, &*v5e);
  CHECK(r.temp_bytes == 262144);
}

TEST_CASE("a TPU output tuple's table is an output allocation; control scalars take no temp") {
  // i (s32[] under T(128): 512 B) is the only temporary of device memory: a heap of integer
  // scalars reports 0 B. Outputs: n 4096 B, j 512 B and the root tuple's table, 2 elements x
  // 4 B rounded up to the device's granule: 512 B on v5e, 32 B on v6e.
  constexpr std::string_view kTuple = R"(
HloModule tpu_tables, is_scheduled=true
ENTRY e {
  p = s32[]{:T(128)} parameter(0)
  q = f32[8,128]{1,0:T(8,128)} parameter(1)
  i = s32[]{:T(128)} add(p, p)
  j = s32[]{:T(128)} multiply(i, i)
  n = f32[8,128]{1,0:T(8,128)} negate(q)
  ROOT r = (f32[8,128]{1,0:T(8,128)}, s32[]{:T(128)}) tuple(n, j)
}
)";
  absl::StatusOr<hloroof::DeviceSpec> v5e = hloroof::device("tpu_v5e");
  absl::StatusOr<hloroof::DeviceSpec> v6e = hloroof::device("tpu_v6e");
  REQUIRE_OK(v5e);
  REQUIRE_OK(v6e);
  const MemoryReport a = analyze(kTuple, {.top_buffers = 0}, &*v5e);
  CHECK(a.temp_bytes == 0);
  CHECK(a.output_bytes == 4096 + 512 + 512);
  CHECK(count(a, AllocationKind::kOutput) == 3);
  const MemoryReport b = analyze(kTuple, {.top_buffers = 0}, &*v6e);
  CHECK(b.output_bytes == 4096 + 512 + 32);
}

bool has_note(const MemoryReport& r, std::string_view text) {
  for (const std::string& note : r.notes) {
    if (note.find(text) != std::string::npos) return true;
  }
  return false;
}

TEST_CASE("a TPU heap holds a 16 KiB pointer table for each tuple-shaped temporary") {
  // Arrays (f32[8,128] under T(8,128): 4096 B, each in a 16 KiB place): a [1,10] (read by s
  // through t and tt), f0 and f1 [2,...], all live at 2: 3 places, 49152 B. Tuples: f (the
  // fusion's result), t and tt; tt{0} is t's table, and g is tt{0} again: 3 tables of 16 KiB,
  // 49152 B. temp = 49152 + 49152 = 98304 B.
  constexpr std::string_view kTables = R"(
HloModule tpu_tuple_tables, is_scheduled=true
fused {
  x = f32[8,128]{1,0:T(8,128)} parameter(0)
  n = f32[8,128]{1,0:T(8,128)} negate(x)
  e = f32[8,128]{1,0:T(8,128)} exponential(x)
  ROOT r = (f32[8,128]{1,0:T(8,128)}, f32[8,128]{1,0:T(8,128)}) tuple(n, e)
}
ENTRY e {
  p = f32[8,128]{1,0:T(8,128)} parameter(0)
  a = f32[8,128]{1,0:T(8,128)} negate(p)
  f = (f32[8,128]{1,0:T(8,128)}, f32[8,128]{1,0:T(8,128)}) fusion(a), kind=kLoop, calls=fused
  f0 = f32[8,128]{1,0:T(8,128)} get-tuple-element(f), index=0
  f1 = f32[8,128]{1,0:T(8,128)} get-tuple-element(f), index=1
  t = (f32[8,128]{1,0:T(8,128)}, f32[8,128]{1,0:T(8,128)}) tuple(f0, a)
  tt = ((f32[8,128]{1,0:T(8,128)}, f32[8,128]{1,0:T(8,128)}), f32[8,128]{1,0:T(8,128)}) tuple(t, f1)
  g = (f32[8,128]{1,0:T(8,128)}, f32[8,128]{1,0:T(8,128)}) get-tuple-element(tt), index=0
  g0 = f32[8,128]{1,0:T(8,128)} get-tuple-element(g), index=0
  g1 = f32[8,128]{1,0:T(8,128)} get-tuple-element(g), index=1
  ROOT s = f32[8,128]{1,0:T(8,128)} add(g0, g1)
}
)";
  absl::StatusOr<hloroof::DeviceSpec> v6e = hloroof::device("tpu_v6e");
  REQUIRE_OK(v6e);
  const MemoryReport r = analyze(kTables, {.top_buffers = 0}, &*v6e);
  CHECK(r.temp_bytes == 98304);
  CHECK(has_note(r, "tuple-shaped temporaries: 3,"));

  // A loop's state is one buffer: init, the loop, the body's parameter and root and the
  // condition's parameter share one table (5 tuple-shaped instructions, 1 table); the
  // multi-output fusion after the loop has its own: 2 tables, 32768 B. Arrays: x0 [1,6] (the
  // loop's state; the body's x2 is written into it), then the fusion's f{0} over x0 (a loop
  // fusion over its dying operand) and f{1} [6,9]: 2 places, 32768 B. temp = 65536 B.
  constexpr std::string_view kLoop = R"(
HloModule tpu_loop_tables, is_scheduled=true
fused {
  x = f32[8,128]{1,0:T(8,128)} parameter(0)
  n = f32[8,128]{1,0:T(8,128)} negate(x)
  e = f32[8,128]{1,0:T(8,128)} exponential(x)
  ROOT r = (f32[8,128]{1,0:T(8,128)}, f32[8,128]{1,0:T(8,128)}) tuple(n, e)
}
body {
  s = (s32[]{:T(128)}, f32[8,128]{1,0:T(8,128)}) parameter(0)
  i = s32[]{:T(128)} get-tuple-element(s), index=0
  x = f32[8,128]{1,0:T(8,128)} get-tuple-element(s), index=1
  one = s32[]{:T(128)} constant(1)
  i2 = s32[]{:T(128)} add(i, one)
  x2 = f32[8,128]{1,0:T(8,128)} negate(x)
  ROOT t = (s32[]{:T(128)}, f32[8,128]{1,0:T(8,128)}) tuple(i2, x2)
}
cond {
  s = (s32[]{:T(128)}, f32[8,128]{1,0:T(8,128)}) parameter(0)
  i = s32[]{:T(128)} get-tuple-element(s), index=0
  n = s32[]{:T(128)} constant(4)
  ROOT lt = pred[]{:T(512)} compare(i, n), direction=LT
}
ENTRY e {
  p = f32[8,128]{1,0:T(8,128)} parameter(0)
  x0 = f32[8,128]{1,0:T(8,128)} negate(p)
  zero = s32[]{:T(128)} constant(0)
  init = (s32[]{:T(128)}, f32[8,128]{1,0:T(8,128)}) tuple(zero, x0)
  w = (s32[]{:T(128)}, f32[8,128]{1,0:T(8,128)}) while(init), condition=cond, body=body
  x = f32[8,128]{1,0:T(8,128)} get-tuple-element(w), index=1
  f = (f32[8,128]{1,0:T(8,128)}, f32[8,128]{1,0:T(8,128)}) fusion(x), kind=kLoop, calls=fused
  f0 = f32[8,128]{1,0:T(8,128)} get-tuple-element(f), index=0
  f1 = f32[8,128]{1,0:T(8,128)} get-tuple-element(f), index=1
  ROOT s = f32[8,128]{1,0:T(8,128)} add(f0, f1)
}
)";
  const MemoryReport loop = analyze(kLoop, {.top_buffers = 0}, &*v6e);
  CHECK(has_note(loop, "tuple-shaped temporaries: 2,"));
  CHECK(loop.temp_bytes == 65536);

  // Tables count only where the heap holds more than control scalars: i (s32[]) and the
  // tuple u alone report 0 B, as the heap of i alone does.
  constexpr std::string_view kControl = R"(
HloModule tpu_control_tables, is_scheduled=true
ENTRY e {
  p = s32[]{:T(128)} parameter(0)
  q = f32[8,128]{1,0:T(8,128)} parameter(1)
  i = s32[]{:T(128)} add(p, p)
  u = (s32[]{:T(128)}, s32[]{:T(128)}) tuple(i, p)
  j = s32[]{:T(128)} get-tuple-element(u), index=0
  k = s32[]{:T(128)} multiply(j, j)
  n = f32[8,128]{1,0:T(8,128)} negate(q)
  ROOT r = (f32[8,128]{1,0:T(8,128)}, s32[]{:T(128)}) tuple(n, k)
}
)";
  const MemoryReport control = analyze(kControl, {.top_buffers = 0}, &*v6e);
  CHECK(control.temp_bytes == 0);
  CHECK(has_note(control, "tuple-shaped temporaries: 1,"));

  // The same module for a GPU keeps XLA's open-source rules: no 16 KiB tables.
  absl::StatusOr<hloroof::DeviceSpec> h100 = hloroof::device("h100");
  REQUIRE_OK(h100);
  CHECK(analyze(kTables, {.top_buffers = 0}, &*h100).temp_bytes < 16384);
}

TEST_CASE("a conditional's result every branch passes on from one operand is that operand") {
  // Both branches return their parameter as element {1}, and both parameters are p: XLA's
  // dataflow makes c{1} p's own value (the union of the branches' values is one value), so no
  // buffer c{1} exists and only c{0} (4096 B) is new. With p2 for the second branch the two
  // branches pass on different values: c{1} is a buffer of its own.
  constexpr std::string_view kBranches = R"(
br0 {
  x = f32[1024]{0} parameter(0)
  n = f32[1024]{0} negate(x)
  ROOT t = (f32[1024]{0}, f32[1024]{0}) tuple(n, x)
}
br1 {
  x = f32[1024]{0} parameter(0)
  e = f32[1024]{0} exponential(x)
  ROOT t = (f32[1024]{0}, f32[1024]{0}) tuple(e, x)
}
)";
  const std::string same = std::string("HloModule cond_same, is_scheduled=true\n") +
                           std::string(kBranches) + R"(
ENTRY e {
  p = f32[1024]{0} parameter(0)
  p2 = f32[1024]{0} parameter(1)
  i = s32[] parameter(2)
  c = (f32[1024]{0}, f32[1024]{0}) conditional(i, p, p), branch_computations={br0, br1}
  c0 = f32[1024]{0} get-tuple-element(c), index=0
  c1 = f32[1024]{0} get-tuple-element(c), index=1
  ROOT s = f32[1024]{0} add(c0, c1)
}
)";
  const MemoryReport r = analyze(same);
  bool has_c0 = false;
  for (const MemoryBuffer& b : r.largest_buffers) {
    CHECK(b.name != "c{1}");
    has_c0 = has_c0 || b.name == "c{0}";
  }
  CHECK(has_c0);

  std::string other = same;
  other.replace(other.find("conditional(i, p, p)"), 20, "conditional(i, p, p2)");
  const MemoryReport o = analyze(other);
  bool has_c1 = false;
  for (const MemoryBuffer& b : o.largest_buffers) has_c1 = has_c1 || b.name == "c{1}";
  CHECK(has_c1);
}

// XLA's BufferAssignmentTest.OneTempAllocation: parameters f32[2,3], f32[3,4], f32[4,4], two
// dots f32[2,4] and f32[3,4] concatenated into f32[5,4]. The test states 5 allocations
// (3 parameters, 1 output, 1 temp), the dots in one temp allocation of 80 B with alignment 1
// (32 + 48 B: both are live at the concatenate).
TEST_CASE("XLA fact: OneTempAllocation has 5 allocations and an 80 B temp allocation") {
  MemoryReport r = analyze(R"(
HloModule one_temp, is_scheduled=true
ENTRY e {
  a = f32[2,3]{1,0} parameter(0)
  b = f32[3,4]{1,0} parameter(1)
  c = f32[4,4]{1,0} parameter(2)
  ab = f32[2,4]{1,0} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bc = f32[3,4]{1,0} dot(b, c), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT r = f32[5,4]{1,0} concatenate(ab, bc), dimensions={0}
}
)");
  CHECK(r.allocations.size() == 5);
  CHECK(count(r, AllocationKind::kParameter) == 3);
  CHECK(count(r, AllocationKind::kOutput) == 1);
  CHECK(count(r, AllocationKind::kTemp) == 1);
  CHECK(r.temp_bytes == 80);
  CHECK(buffer(r, "ab").allocation == buffer(r, "bc").allocation);
  CHECK(buffer(r, "ab").allocation_offset != buffer(r, "bc").allocation_offset);
  CHECK(r.argument_bytes == 24 + 48 + 64);
  CHECK(r.output_bytes == 80);
}

// XLA's BufferAssignmentTest.AliasedParamCanBeReused: p0 f32[100] aliased with the output,
// neg1 = negate(p0), neg2 = negate(neg1) the root: "Everything use one buffer".
TEST_CASE("XLA fact: AliasedParamCanBeReused puts everything in the parameter's buffer") {
  MemoryReport r = analyze(R"(
HloModule aliased, is_scheduled=true, input_output_alias={ {}: (0, {}, may-alias) }
ENTRY e {
  p0 = f32[100]{0} parameter(0)
  neg1 = f32[100]{0} negate(p0)
  ROOT neg2 = f32[100]{0} negate(neg1)
}
)");
  REQUIRE(r.allocations.size() == 1);
  CHECK(r.allocations[0].kind == AllocationKind::kParameter);
  CHECK(buffer(r, "neg1").allocation == buffer(r, "p0").allocation);
  CHECK(r.argument_bytes == 400);
  CHECK(r.output_bytes == 400);
  CHECK(r.alias_bytes == 400);
  CHECK(r.temp_bytes == 0);
  CHECK(r.footprint_bytes == 400);
}

// XLA's BufferAssignmentTest.Basic: broadcast(p) * p1 + p2 - p2; the test states that mul does
// not share a parameter's allocation and that add reuses mul's. Here, scheduled, all three
// temporaries (broadcast [1,4], mul [4,5], add [5,6], each 400 B) chain into the output's
// allocation: each is elementwise over the one before, and the subtract over add.
TEST_CASE("XLA fact: Basic has add reusing mul's allocation") {
  MemoryReport r = analyze(R"(
HloModule basic, is_scheduled=true
ENTRY e {
  p = f32[] parameter(0)
  bc = f32[100]{0} broadcast(p), dimensions={}
  p1 = f32[100]{0} parameter(1)
  p2 = f32[100]{0} parameter(2)
  mul = f32[100]{0} multiply(bc, p1)
  add = f32[100]{0} add(mul, p2)
  ROOT sub = f32[100]{0} subtract(add, p2)
}
)");
  CHECK(buffer(r, "add").allocation == buffer(r, "mul").allocation);
  CHECK(buffer(r, "mul").allocation != buffer(r, "p1").allocation);
  CHECK(r.argument_bytes == 4 + 400 + 400);
  CHECK(r.output_bytes == 400);
  CHECK(r.temp_bytes == 0);
  CHECK(count(r, AllocationKind::kTemp) == 0);
}

TEST_CASE("the live timeline goes into a loop body, one iteration") {
  // Entry: p 1024 B, the loop (state is p's buffer), o = negate(w) 1024 B output.
  // Body: g = negate(gte) 1024 B [1,2] is its temporary; its root is the loop state.
  // The body's peak (1024 B) is added at the while: 1024 + 1024 = 2048 B there. Inside, the
  // timeline shows the caller's bytes without the body (1024 B) plus the body's curve:
  // param 0, gte 0, g 1024, tuple 1024 (g reaches the root, which is the caller's: only the
  // body's own temporaries count).
  MemoryReport r = analyze(R"(
HloModule loop, is_scheduled=true
%cond (s: (f32[256])) -> pred[] {
  %s = (f32[256]{0}) parameter(0)
  ROOT %t = pred[] constant(true)
}
%body (s: (f32[256])) -> (f32[256]) {
  %s = (f32[256]{0}) parameter(0)
  %v = f32[256]{0} get-tuple-element(%s), index=0
  %g = f32[256]{0} negate(%v)
  %h = f32[256]{0} exponential(%g)
  ROOT %r = (f32[256]{0}) tuple(%h)
}
ENTRY e {
  p = f32[256]{0} parameter(0)
  t = (f32[256]{0}) tuple(p)
  w = (f32[256]{0}) while(t), condition=%cond, body=%body
  x = f32[256]{0} get-tuple-element(w), index=0
  ROOT o = f32[256]{0} negate(x)
}
)");
  bool saw_body = false;
  for (const hloroof::LiveBytesPoint& point : r.live_timeline) {
    if (point.computation == "body") {
      saw_body = true;
      CHECK(point.depth == 1);
    }
  }
  CHECK(saw_body);
  // Entry points come in schedule order around the bodies' points.
  CHECK(r.live_timeline.front().instruction == "p");
  CHECK(r.live_timeline.back().instruction == "o");
  CHECK(r.live_timeline.size() > r.live_curve.size());
}

}  // namespace

TEST_CASE("an offloaded async-update's operands are the table's buffers, not copies of them") {
  // libtpu's SparseCore gather: async-start() holds only a context, the update takes the
  // table and indices as element {0} and makes the result (element {1}), the done returns it.
  // t 32768 B and i 512 B are parameters; the only new device buffer is the result r, f32[8,
  // 128] 4096 B, an output. s32[128] under T(128) is 512 B of context: a temporary of the start,
  // aliased by the update's {2,0}; an integer array, not a scalar, so the TPU heap counts it at
  // its 16 KiB place (were the table copied as {0,0}, 32768 B more would live). The tuples'
  // pointer tables, 16 KiB each: s{} and s{2}, and the update's own u{}, u{0} and u{2} (as
  // libtpu's dumps place them; s{0} and s{1} are empty): 5. temp = 16384 + 5 x 16384 B.
  absl::StatusOr<hloroof::DeviceSpec> v5p = hloroof::device("tpu_v5p");
  REQUIRE_OK(v5p);
  const MemoryReport r = analyze(R"(
HloModule offload, is_scheduled=true

%gather (p0: f32[64,128], p1: s32[8]) -> f32[8,128] {
  %p0 = f32[64,128]{1,0:T(8,128)} parameter(0)
  %p1 = s32[8]{0:T(128)} parameter(1)
  ROOT %g = f32[8,128]{1,0:T(8,128)} custom-call(%p0, %p1), custom_call_target="gather"
}, execution_thread="sparsecore"

ENTRY %e (t: f32[64,128], i: s32[8]) -> f32[8,128] {
  %t = f32[64,128]{1,0:T(8,128)} parameter(0)
  %i = s32[8]{0:T(128)} parameter(1)
  %s = ((), (), (s32[128]{0:T(128)})) async-start(), async_execution_thread="sparsecore", calls=%gather
  %u = ((f32[64,128]{1,0:T(8,128)}, s32[8]{0:T(128)}), f32[8,128]{1,0:T(8,128)}, (s32[128]{0:T(128)})) async-update(%s, %t, %i), output_to_operand_aliasing={{2,0}: (0, {2,0})}
  ROOT %d = f32[8,128]{1,0:T(8,128)} async-done(%u)
}
)",
                                 {.top_buffers = 0}, &*v5p);
  CHECK(r.argument_bytes == 32768 + 512);
  CHECK(r.output_bytes == 4096);
  for (const MemoryBuffer& b : r.largest_buffers) CHECK(b.name != "u{0,0}");
  CHECK(r.temp_bytes == 16384 + 5 * 16384);
}

TEST_CASE("SparseCore offloads' stacks of one size share one place on TPU") {
  // Two SparseCore offloads in flight together, each with a 65536 B stack (s32[16384] under
  // T(1024), element {2,0} of its start and, by output_to_operand_aliasing, of its update;
  // stack_size_high_watermark 65536). libtpu places every such stack of one size at one
  // offset (a tpu7x MLP train step's two all-reduce offloads, 25,378,816 B each, and its two
  // data-format offloads, 65,536 B each: docs/memory.md, "On TPU").
  // Positions: a 1, b 2, sa 3, ua 4, sb 5, ub 6, da 7, db 8, ROOT 9. Arrays, 16 KiB places
  // (f32[8,128] is 4096 B): a [1,7] (ua binds it, da reads it) and b [2,8]. Stacks: call 1
  // holds its place over [3,7], call 2 over [5,8]: one 65536 B place. Arrays and stacks:
  // 16384 + 16384 + 65536 = 98304 B. Pointer tables of the tuple-shaped temporaries, 16 KiB
  // each: s{}, s{2}, u{}, u{0}, u{2} per call (s{0} and s{1} are empty): 10, 163840 B.
  // temp = 98304 + 163840 = 262144 B; with a place per call's stack (both live over [6,7]),
  // 65536 B more: 327680 B.
  constexpr std::string_view kTwoCalls = R"(
HloModule sparse_core_stacks, is_scheduled=true

%collective (p0: f32[8,128]) -> f32[8,128] {
  %p0 = f32[8,128]{1,0:T(8,128)} parameter(0)
  ROOT %n = f32[8,128]{1,0:T(8,128)} negate(%p0)
}, execution_thread="sparsecore"

ENTRY %e (x: f32[8,128]) -> (f32[8,128], f32[8,128]) {
  %x = f32[8,128]{1,0:T(8,128)} parameter(0)
  %a = f32[8,128]{1,0:T(8,128)} negate(%x)
  %b = f32[8,128]{1,0:T(8,128)} exponential(%x)
  %sa = ((), (), (s32[16384]{0:T(1024)})) async-start(), async_execution_thread="sparsecore", calls=%collective, backend_config={"sparse_core_config":{"offload":"OFFLOAD_COLLECTIVE","stack_size_high_watermark":"65536"}}
  %ua = ((f32[8,128]{1,0:T(8,128)}), f32[8,128]{1,0:T(8,128)}, (s32[16384]{0:T(1024)})) async-update(%sa, %a), output_to_operand_aliasing={{2,0}: (0, {2,0})}
  %sb = ((), (), (s32[16384]{0:T(1024)})) async-start(), async_execution_thread="sparsecore", calls=%collective, backend_config={"sparse_core_config":{"offload":"OFFLOAD_COLLECTIVE","stack_size_high_watermark":"65536"}}
  %ub = ((f32[8,128]{1,0:T(8,128)}), f32[8,128]{1,0:T(8,128)}, (s32[16384]{0:T(1024)})) async-update(%sb, %b), output_to_operand_aliasing={{2,0}: (0, {2,0})}
  %da = f32[8,128]{1,0:T(8,128)} async-done(%ua)
  %db = f32[8,128]{1,0:T(8,128)} async-done(%ub)
  ROOT %t = (f32[8,128]{1,0:T(8,128)}, f32[8,128]{1,0:T(8,128)}) tuple(%da, %db)
}
)";
  absl::StatusOr<hloroof::DeviceSpec> tpu7x = hloroof::device("tpu7x");
  REQUIRE_OK(tpu7x);
  const MemoryReport r = analyze(kTwoCalls, {.top_buffers = 0}, &*tpu7x);
  CHECK(r.temp_bytes == 262144);
  const int64_t at = buffer(r, "sa{2,0}").allocation_offset;
  for (std::string_view stack : {"ua{2,0}", "sb{2,0}", "ub{2,0}"}) {
    CHECK(buffer(r, stack).allocation_offset == at);
  }

  // The rule reads the offload's stack size: without stack_size_high_watermark the element
  // is a temporary like any other, and the two calls' stacks take two places.
  std::string unmarked(kTwoCalls);
  for (size_t k; (k = unmarked.find(",\"stack_size_high_watermark\":\"65536\"")) !=
                 std::string::npos;) {
    unmarked.erase(k, std::string_view(",\"stack_size_high_watermark\":\"65536\"").size());
  }
  CHECK(analyze(unmarked, {.top_buffers = 0}, &*tpu7x).temp_bytes == 327680);
}

TEST_CASE("a tpu7x MLP train step's temp is XLA's, its offloads' stacks in one place each") {
  // tests/data/memory/tpu7x_mlp_step.hlo: bench/tpu_memory.py's mlp_step (w1, w2 f32[4096,
  // 4096], x f32[256,4096] split over 8 devices; gelu; SGD) compiled by hloroof.jax.compile_for
  // for tpu7x:2x2x1 (jax 0.10.2, libtpu 0.0.52), as libtpu dumped it. XLA's memory_analysis():
  // argument 134,742,016 B, output 134,217,760 B, temp 361,332,736 B. Its buffer assignment puts
  // both gradients' all-reduce offloads' stacks (25,378,816 B, in flight together) at one
  // offset, and both data-format offloads' (65,536 B) at another; a place per call's stack
  // would make the temp 25,444,352 B larger.
  const std::string text = hloroof::testing::read_file(
      std::filesystem::path(HLOROOF_SOURCE_DIR) / "tests/data/memory/tpu7x_mlp_step.hlo");
  REQUIRE(!text.empty());
  absl::StatusOr<hloroof::DeviceSpec> tpu7x = hloroof::device("tpu7x");
  REQUIRE_OK(tpu7x);
  const MemoryReport r = analyze(text, {.top_buffers = 0}, &*tpu7x);
  CHECK(r.argument_bytes == 134742016);
  CHECK(r.output_bytes == 134217760);
  CHECK(r.temp_bytes == 361332736);
  CHECK(buffer(r, "all-reduce.5.cloned.1.call-update{2,0}").allocation_offset ==
        buffer(r, "all-reduce.7.cloned.1.call-update{2,0}").allocation_offset);
}

TEST_CASE("an async dynamic-update-slice into host memory writes in place") {
  // The offload a TPU program writes activations with: h, f32[4,8,128] in host memory
  // (S(5)), 16384 B, is updated by an asynchronous dynamic-update-slice and read back after
  // it. The start's result is h's buffer, not a second one: the host temp allocation holds
  // h alone, 16384 B (two buffers, 32768 B, would live at once otherwise). The module is
  // tests/data/memory/host_offload.hlo (the Python tests read it too).
  const std::string text = hloroof::testing::read_file(
      std::filesystem::path(HLOROOF_SOURCE_DIR) / "tests/data/memory/host_offload.hlo");
  REQUIRE(!text.empty());
  const MemoryReport r = analyze(text);
  int64_t host_temp = 0;
  for (const MemoryAllocation& a : r.allocations) {
    if (a.kind == AllocationKind::kTemp && a.memory_space == 5) host_temp += a.bytes;
  }
  CHECK(host_temp == 16384);
}

TEST_CASE("an async-update binds its late operands after those its start bound") {
  // The start binds a (element {0,0}); the update binds b as {0,1}, its chain's {0,0} kept
  // (XLA's hlo_alias_analysis_test late-binding module): both are the parameters' buffers
  // (64 B each), not copies of them.
  const MemoryReport r = analyze(R"(
HloModule late_binding, is_scheduled=true

%wrapped (p0: f32[16], p1: f32[16]) -> (f32[16]) {
  %p0 = f32[16]{0} parameter(0)
  %p1 = f32[16]{0} parameter(1)
  %add = f32[16]{0} add(%p0, %p1)
  ROOT %t = (f32[16]{0}) tuple(%add)
}

ENTRY %e (a: f32[16], b: f32[16]) -> (f32[16]) {
  %a = f32[16]{0} parameter(0)
  %b = f32[16]{0} parameter(1)
  %s = ((f32[16]{0}), (f32[16]{0}), s32[]) async-start(%a), calls=%wrapped, async_execution_thread="sparsecore"
  %u = ((f32[16]{0}, f32[16]{0}), (f32[16]{0})) async-update(%s, %b)
  ROOT %d = (f32[16]{0}) async-done(%u)
}
)");
  for (const MemoryBuffer& b : r.largest_buffers) {
    CHECK(b.name != "u{0,0}");
    CHECK(b.name != "u{0,1}");
  }
  CHECK(r.argument_bytes == 64 + 64);
}
