// Memory analysis over real modules: the examples (with hand-derived totals) and every
// parseable module of the shared corpus (no error, numbers that add up).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "corpus.h"
#include "examples.h"
#include "hloroof/analysis_json.h"
#include "hloroof/hlo_text.h"
#include "hloroof/instruction.h"
#include "hloroof/memory.h"
#include "require_ok.h"

namespace {

using hloroof::testing::read_file;

namespace fs = std::filesystem;
using hloroof::MemoryReport;

// What must hold for any report.
void check_consistent(const MemoryReport& r) {
  int64_t curve_max = 0;
  for (const hloroof::LiveBytesPoint& p : r.live_curve) {
    REQUIRE(p.device_bytes >= 0);
    curve_max = std::max(curve_max, p.device_bytes);
  }
  CHECK(curve_max == r.peak_bytes);
  CHECK(r.peak_breakdown.total() == r.peak_bytes);
  CHECK(r.peak_padding_waste_bytes >= 0);
  CHECK(r.padding_waste_bytes >= 0);
  CHECK(r.alias_bytes <= r.argument_bytes);
  CHECK(r.peak_bytes <= r.argument_bytes + r.output_bytes - r.alias_bytes + r.temporary_peak_bytes +
                            r.constant_bytes);
  for (const hloroof::MemoryBuffer& b : r.largest_buffers) {
    CHECK(b.padded_bytes >= b.logical_bytes);
    CHECK(b.live_from_index <= b.live_to_index);
  }
  // Buffer assignment: the footprint is its terms' sum; the allocations hold what the terms
  // say (device memory), and a device buffer with memory of its own has an allocation.
  CHECK(r.footprint_bytes ==
        r.argument_bytes + r.output_bytes - r.alias_bytes + r.temp_bytes + r.constant_bytes);
  int64_t arguments = 0, temp = 0, live_out = 0;
  for (const hloroof::MemoryAllocation& a : r.allocations) {
    if (hloroof::memory_tier(a.memory_space) != hloroof::MemoryTier::kDevice) continue;
    if (a.kind == hloroof::AllocationKind::kParameter) arguments += a.bytes;
    if (a.kind == hloroof::AllocationKind::kTemp) temp += a.bytes;
    if (a.maybe_live_out) live_out += a.bytes;
  }
  CHECK(arguments == r.argument_bytes);
  CHECK(temp == r.temp_bytes);
  CHECK(live_out <= r.output_bytes);
  for (const hloroof::MemoryBuffer& b : r.largest_buffers) CHECK(b.allocation >= 0);
}

// A report narrowed from one that lists every buffer and allocation is the report made with
// the narrower options: the command's report and its XSpace's buffer assignment share one
// analysis.
void check_narrowed(const hloroof::Module& m) {
  for (const hloroof::MemoryOptions& narrow :
       {hloroof::MemoryOptions{.live_curves = false, .allocations = false},
        hloroof::MemoryOptions{.top_buffers = 3, .live_curves = true, .allocations = true}}) {
    hloroof::MemoryOptions wide = narrow;
    wide.top_buffers = 0;
    wide.allocations = true;
    absl::StatusOr<MemoryReport> all = hloroof::analyze_memory(m, wide);
    absl::StatusOr<MemoryReport> made = hloroof::analyze_memory(m, narrow);
    REQUIRE_OK(all);
    REQUIRE_OK(made);
    const MemoryReport narrowed = hloroof::narrow_memory_report(*all, narrow);
    CHECK(hloroof::memory_to_json(narrowed) == hloroof::memory_to_json(*made));
    CHECK(narrowed.largest_buffers.size() == made->largest_buffers.size());
    CHECK(narrowed.peak_buffers.size() == made->peak_buffers.size());
    CHECK(narrowed.allocations.size() == made->allocations.size());
    CHECK(narrowed.live_timeline.size() == made->live_timeline.size());
  }
}

// A buffer placed (MemoryOptions::placements) is where its description puts it: the same
// buffers in the same order, each field the same; a narrowed report keeps the first ones.
void check_placed(const hloroof::Module& m) {
  absl::StatusOr<MemoryReport> described = hloroof::analyze_memory(m, {.top_buffers = 0});
  absl::StatusOr<MemoryReport> placed =
      hloroof::analyze_memory(m, {.top_buffers = 1, .placements = 1'000'000});
  REQUIRE_OK(described);
  REQUIRE_OK(placed);
  CHECK(placed->largest_buffers.size() == std::min<size_t>(1, described->largest_buffers.size()));
  REQUIRE(placed->placements.size() == described->largest_buffers.size());
  for (size_t k = 0; k < placed->placements.size(); ++k) {
    const hloroof::BufferPlacement& p = placed->placements[k];
    const hloroof::MemoryBuffer& b = described->largest_buffers[k];
    INFO(b.name);
    CHECK(p.id == b.id);
    REQUIRE(p.instruction != nullptr);
    CHECK(p.instruction->name() == b.instruction);
    CHECK(p.computation == b.computation);
    CHECK(p.live_to == b.live_to);
    CHECK(p.padded_bytes == b.padded_bytes);
    CHECK(p.memory_space == b.memory_space);
    CHECK(p.allocation == b.allocation);
    CHECK(p.allocation_offset == b.allocation_offset);
    CHECK(p.program_from == b.program_from);
    CHECK(p.program_to == b.program_to);
    CHECK(p.shares_with == b.shares_with);
    REQUIRE(p.shape_index_at + p.shape_index_size <= placed->placement_shape_indices.size());
    const std::vector<int64_t> index(
        placed->placement_shape_indices.begin() + p.shape_index_at,
        placed->placement_shape_indices.begin() + p.shape_index_at + p.shape_index_size);
    CHECK(index == b.shape_index);
  }
  // Placing buffers describes none, and changes nothing else.
  CHECK(hloroof::memory_to_json(hloroof::narrow_memory_report(*placed, {.top_buffers = 1})) ==
        hloroof::memory_to_json(hloroof::narrow_memory_report(*described, {.top_buffers = 1})));
  const MemoryReport narrowed =
      hloroof::narrow_memory_report(*placed, {.top_buffers = 1, .placements = 2});
  REQUIRE(narrowed.placements.size() == std::min<size_t>(2, placed->placements.size()));
  for (size_t k = 0; k < narrowed.placements.size(); ++k) {
    CHECK(narrowed.placements[k].id == placed->placements[k].id);
  }
  CHECK(hloroof::narrow_memory_report(*placed, {.top_buffers = 1}).placements.empty());
}

// Without buffer assignment the liveness figures are the full analysis's, and what the
// assignment decides is left unset.
void check_liveness_only(const hloroof::Module& m, const MemoryReport& full) {
  absl::StatusOr<MemoryReport> r =
      hloroof::analyze_memory(m, hloroof::MemoryOptions{.buffer_assignment = false});
  REQUIRE_OK(r);
  CHECK(r->peak_bytes == full.peak_bytes);
  CHECK(r->peak_on_chip_bytes == full.peak_on_chip_bytes);
  CHECK(r->peak_at == full.peak_at);
  CHECK(r->peak_path.size() == full.peak_path.size());
  CHECK(r->temporary_peak_bytes == full.temporary_peak_bytes);
  CHECK(r->peak_buffer_count == full.peak_buffer_count);
  CHECK(r->buffer_count == full.buffer_count);
  CHECK(r->argument_bytes == full.argument_bytes);
  CHECK(r->output_bytes == full.output_bytes);
  CHECK(r->padding_waste_bytes == full.padding_waste_bytes);
  CHECK(r->live_curve.size() == full.live_curve.size());
  REQUIRE(r->largest_buffers.size() == full.largest_buffers.size());
  for (size_t k = 0; k < r->largest_buffers.size(); ++k) {
    CHECK(r->largest_buffers[k].name == full.largest_buffers[k].name);
    CHECK(r->largest_buffers[k].padded_bytes == full.largest_buffers[k].padded_bytes);
    CHECK(r->largest_buffers[k].allocation == -1);
  }
  CHECK(r->footprint_bytes == 0);
  CHECK(r->temp_bytes == 0);
  CHECK(r->allocations.empty());
}

TEST_CASE("example: the TPU v5e train step's arguments and donated outputs") {
  absl::StatusOr<hloroof::Module> m = hloroof::parse_module(
      read_file(fs::path(HLOROOF_SOURCE_DIR) / "examples" / "tpu_v5e_train_step.hlo"));
  REQUIRE_OK(m);
  absl::StatusOr<MemoryReport> r = hloroof::analyze_memory(*m);
  REQUIRE_OK(r);
  check_consistent(*r);
  // Parameters, from entry_computation_layout, padded by their tiles (f32 (8,128) adds
  // nothing to these dims; f32[4,1024] under (4,128) neither):
  //   2 x (f32[8192,1024] 32 MiB + [4,256,3072] 12 MiB + [4,256,1024] 4 MiB
  //        + [4,256,4096] 16 MiB + [4,1024,1024] 16 MiB + [256,32768] 32 MiB) = 224 MiB
  //   + 4 x f32[4,1024] 16 KiB + 2 x f32[1024] 4 KiB + 2 x s32[8,2048] 64 KiB
  //   = 234881024 + 65536 + 8192 + 131072 = 235085824 B.
  CHECK(r->argument_bytes == 235085824);
  // The 18 weights and momenta (all but the two s32 token arrays) are donated to outputs
  // 0..17; output 18 is the f32[]{:T(128)} loss, 512 B.
  CHECK(r->alias_bytes == 235085824 - 131072);
  CHECK(r->output_bytes == r->alias_bytes + 512);
  // The peak is inside the step, above everything the step keeps (parameters).
  CHECK(r->peak_bytes > r->argument_bytes);
  CHECK(r->peak_buffer_count > 0);
}

TEST_CASE("example: the H100 GEMM step") {
  absl::StatusOr<hloroof::Module> m = hloroof::parse_module(
      read_file(fs::path(HLOROOF_SOURCE_DIR) / "examples" / "h100_gemm_step.hlo"));
  REQUIRE_OK(m);
  absl::StatusOr<MemoryReport> r = hloroof::analyze_memory(*m);
  REQUIRE_OK(r);
  check_consistent(*r);
  // GPU layouts have no tiles: nothing is padding.
  CHECK(r->padding_waste_bytes == 0);
  // x bf16[8192,4096] (64 MiB) and the f32 weights W1 [4096,16384], W2 [16384,4096]
  // (256 MiB each) are parameters.
  CHECK(r->argument_bytes >= (64 + 256 + 256) * (int64_t{1} << 20));
}

TEST_CASE("every parseable corpus module analyzes to consistent numbers") {
  const fs::path dir = hloroof::testing::corpus_or_skip("INDEX.tsv");
  const fs::path index = dir / "INDEX.tsv";
  std::istringstream rows(read_file(index));
  std::string line;
  std::getline(rows, line);  // header
  int analyzed = 0;
  int with_loops = 0;
  while (std::getline(rows, line)) {
    std::vector<std::string> cells = absl::StrSplit(line, '\t');
    if (cells.size() < 5 || cells[4] != "0") continue;  // likely_invalid
    absl::StatusOr<hloroof::Module> m = hloroof::parse_module(read_file(dir / cells[0]));
    if (!m.ok()) continue;  // the parser's own conformance tests cover these
    absl::StatusOr<MemoryReport> r = hloroof::analyze_memory(*m);
    INFO(cells[0] << ": " << r.status().ToString());
    REQUIRE_OK(r);
    check_consistent(*r);
    if (analyzed % 16 == 0) {
      check_narrowed(*m);
      check_liveness_only(*m, *r);
      check_placed(*m);
    }
    ++analyzed;
    if (r->peak_path.size() > 1) ++with_loops;
  }
  INFO("analyzed " << analyzed << ", peak inside a body in " << with_loops);
  CHECK(analyzed > 1000);
  CHECK(with_loops > 0);
}

}  // namespace
