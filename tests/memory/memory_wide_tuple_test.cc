// What the memory analysis holds for a parameter of many scalar leaves (one of 28 million
// `f32[]` is 200 MB of text: every byte held per leaf counts). Its text is 7 bytes
// a leaf (`f32[], `), so every byte kept per leaf is a seventh of a byte per input byte. This
// program counts the heap bytes live at once (every operator new and delete of the process)
// while analyze_memory runs, without timing anything; and, the same way, what the memory
// analysis and a prediction hold for long chains of temporaries, one op each.
#include <malloc.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <new>
#include <ostream>
#include <streambuf>
#include <string>

#include "hloroof/analysis_json.h"
#include "hloroof/device.h"
#include "hloroof/hlo_text.h"
#include "hloroof/memory.h"
#include "hloroof/predict.h"
#include "memory/memory_liveness.h"
#include "predict_on.h"
#include "heap_counter.h"
#include "require_ok.h"

using hloroof::testing::live_bytes;
using hloroof::testing::peak_bytes;

namespace {

std::string wide_parameter(int leaves) {
  std::string text = "HloModule wide, is_scheduled=true\nENTRY e {\n  p = (";
  for (int i = 0; i < leaves; ++i) text += i == 0 ? "f32[]" : ", f32[]";
  text += ") parameter(0)\n  g = f32[] get-tuple-element(p), index=0\n";
  text += "  ROOT r = f32[] add(g, g)\n}\n";
  return text;
}

struct Analysis {
  int64_t peak_bytes = 0;  // heap bytes above those live before analyze_memory
  hloroof::MemoryReport report;
};

Analysis analyze_text(const std::string& text, bool allocations, bool allocation_runs = false) {
  absl::StatusOr<hloroof::Module> module = hloroof::parse_module(text);
  INFO(module.status().message());
  REQUIRE_OK(module);
  const int64_t before = live_bytes.load();
  peak_bytes = before;
  absl::StatusOr<hloroof::MemoryReport> report = hloroof::analyze_memory(
      *module, {.allocations = allocations, .allocation_runs = allocation_runs});
  REQUIRE_OK(report);
  return {peak_bytes.load() - before, *std::move(report)};
}

Analysis analyze(int leaves, bool allocations, bool allocation_runs = false) {
  return analyze_text(wide_parameter(leaves), allocations, allocation_runs);
}

// `links` temporaries each made from the one before (a concatenate of it with itself, then a
// slice back to its size): two buffers an instruction, one allocation for all of them.
std::string chain_of_temporaries(int links) {
  std::string text = "HloModule chain, is_scheduled=true\nENTRY e {\n";
  text += "  x0 = f32[64]{0} parameter(0)\n";
  for (int i = 1; i <= links; ++i) {
    const std::string from = "x" + std::to_string(i - 1);
    text += "  cat" + std::to_string(i) + " = f32[128]{0} concatenate(" + from + ", " + from +
            "), dimensions={0}\n";
    text += std::string(i == links ? "  ROOT " : "  ") + "x" + std::to_string(i) +
            " = f32[64]{0} slice(cat" + std::to_string(i) + "), slice={[0:64]}\n";
  }
  return text + "}\n";
}

// A stream that keeps nothing of what is written to it: its length and an FNV-1a hash.
class HashingBuffer : public std::streambuf {
 public:
  uint64_t hash = 14695981039346656037ull;
  int64_t size = 0;

 protected:
  int_type overflow(int_type c) override {
    if (!traits_type::eq_int_type(c, traits_type::eof())) add(static_cast<char>(c));
    return traits_type::not_eof(c);
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    for (std::streamsize k = 0; k < n; ++k) add(s[k]);
    return n;
  }

 private:
  void add(char c) {
    hash = (hash ^ static_cast<unsigned char>(c)) * 1099511628211ull;
    ++size;
  }
};

struct Written {
  int64_t peak_bytes = 0;  // heap bytes above those live before write_memory_json
  uint64_t hash = 0;
  int64_t size = 0;
};

Written write_json(const hloroof::MemoryReport& report) {
  HashingBuffer buffer;
  std::ostream out(&buffer);
  const int64_t before = live_bytes.load();
  peak_bytes = before;
  hloroof::write_memory_json(report, out);
  return {peak_bytes.load() - before, buffer.hash, buffer.size};
}

TEST_CASE("a parameter of 200,000 scalar leaves: at most 44 heap bytes per leaf") {
  // Each leaf is a buffer (a Buffer record: two pointers and four 32-bit words holding the
  // positions, the leaf number, the kind and the flags: 32 bytes), a buffer id where its
  // instruction's leaves are listed (4) and an allocation index (4): 40 bytes. The leaves share
  // one shape and one allocation record (a run of alike read-only parameter leaves), and the
  // buffers live at the peak are ranked as they are visited, the top 20 kept. Before: 56 (a
  // 40-byte record, the live buffers' ids listed to be ranked); about 440 before that (a
  // 104-byte record, an allocation record of 64 bytes with a list of its own, per-allocation
  // interference sets, five per-buffer arrays, the report's list).
  static_assert(sizeof(hloroof::detail::Buffer) <= 32);
  constexpr int kLeaves = 200000;
  const Analysis a = analyze(kLeaves, /*allocations=*/false);
  INFO("heap peak " << a.peak_bytes << " B");
  CHECK(a.peak_bytes <= int64_t{44} * kLeaves);
  // The same figures as with every allocation listed: one parameter allocation per leaf, and
  // one output.
  CHECK(a.report.allocations.empty());
  CHECK(a.report.allocation_counts[static_cast<size_t>(hloroof::AllocationKind::kParameter)] ==
        kLeaves);
  CHECK(a.report.allocation_counts[static_cast<size_t>(hloroof::AllocationKind::kOutput)] == 1);
  CHECK(a.report.argument_bytes == int64_t{4} * kLeaves);  // f32[]: 4 bytes a leaf
  CHECK(a.report.buffer_count == kLeaves + 1);
}

TEST_CASE("a chain of 200,000 temporaries: at most 260 heap bytes per temporary") {
  // Measured: 237 bytes (47.4 MB). Before, 325 (65.0 MB): the assignment's list of buffers to
  // place (40 bytes a buffer) grew by doubling, was copied once sorted, and was held while the
  // temporaries were packed, beside room for an allocation record (48 bytes) per buffer where
  // the temporaries share one allocation.
  constexpr int kLinks = 100000;  // two temporaries each
  const Analysis a = analyze_text(chain_of_temporaries(kLinks), /*allocations=*/false);
  INFO("heap peak " << a.peak_bytes << " B");
  CHECK(a.peak_bytes <= int64_t{260} * 2 * kLinks);
  // One parameter, the root as the output, every other result in the one temporary allocation.
  CHECK(a.report.allocation_counts[static_cast<size_t>(hloroof::AllocationKind::kTemp)] == 1);
  CHECK(a.report.allocation_counts[static_cast<size_t>(hloroof::AllocationKind::kOutput)] == 1);
}

TEST_CASE("a prediction of 200,000 ops: at most 400 heap bytes per op") {
  // While the op records are made a prediction holds, for each op, its timing (104 bytes), the
  // figures its record takes from the cost (48), its record (168) and its place among the
  // records (8): 328 bytes, and its texts. Measured: 368 bytes (73.7 MB). Before, 509 (101.9
  // MB): the module's cost records (184 bytes an op) were held until the records were made.
  constexpr int kLinks = 100000;  // two ops each
  absl::StatusOr<hloroof::Module> module = hloroof::parse_module(chain_of_temporaries(kLinks));
  REQUIRE_OK(module);
  absl::StatusOr<hloroof::DeviceSpec> spec = hloroof::device("tpu_v5e");
  REQUIRE_OK(spec);
  hloroof::PredictOptions options;
  options.timeline = false;
  const int64_t before = live_bytes.load();
  peak_bytes = before;
  absl::StatusOr<hloroof::Prediction> p = hloroof::testing::predict_on(*module, *spec, options);
  REQUIRE_OK(p);
  const int64_t peak = peak_bytes.load() - before;
  INFO("heap peak " << peak << " B");
  CHECK(p->ops.size() == 2 * kLinks);
  CHECK(peak <= int64_t{400} * 2 * kLinks);
}

TEST_CASE("a run of parameter leaves lists one allocation per leaf, each with its buffer") {
  const Analysis a = analyze(1000, /*allocations=*/true);
  REQUIRE(a.report.allocations.size() == 1001);
  // Leaf 0 is read by g and dies there; the others are read by nothing. All are 4 bytes, so
  // the output (r, 4 bytes, live out) comes first, then the parameter leaves in their order.
  CHECK(a.report.allocations[0].kind == hloroof::AllocationKind::kOutput);
  for (int k = 0; k < 1000; ++k) {
    const hloroof::MemoryAllocation& p = a.report.allocations[static_cast<size_t>(k) + 1];
    INFO("allocation " << k + 1);
    CHECK(p.index == k + 1);
    CHECK(p.kind == hloroof::AllocationKind::kParameter);
    CHECK(p.parameter_number == 0);
    CHECK(p.bytes == 4);
    CHECK(p.buffer_count == 1);
    REQUIRE(p.buffers.size() == 1);
    CHECK(p.buffers[0] == "p{" + std::to_string(k) + "}");
  }
}

TEST_CASE("memory JSON: 200,000 leaves' allocations are written as they are made") {
  // `hloroof memory --json` asks for the runs of alike allocations as one record each
  // (MemoryOptions::allocation_runs); the writer makes each allocation of a run as it writes
  // it. Listed one record each, the 200,001 allocations held 44 MB before the first byte was
  // written (an 80-byte record and a list of one name each).
  constexpr int kLeaves = 200000;
  const Analysis runs = analyze(kLeaves, /*allocations=*/true, /*allocation_runs=*/true);
  REQUIRE(runs.report.allocations.size() == 1);  // the output, r
  REQUIRE(runs.report.allocation_runs.size() == 1);
  const hloroof::MemoryAllocationRun& run = runs.report.allocation_runs[0];
  CHECK(run.count == kLeaves);
  CHECK(run.first.index == 1);
  CHECK(run.first_leaf == 0);
  CHECK(run.instruction == "p");
  const Written streamed = write_json(runs.report);
  // What the writer holds: its 64 KiB of text before each write to the stream (a string that
  // may double once past it) and one allocation's record; nothing per leaf (the document is
  // 47 MB: 234 bytes an allocation).
  INFO("heap peak while writing " << streamed.peak_bytes << " B");
  CHECK(streamed.peak_bytes <= 256 * 1024);
  CHECK(streamed.size > int64_t{200} * kLeaves);
  // The same document as with every allocation listed.
  const Analysis listed = analyze(kLeaves, /*allocations=*/true);
  REQUIRE(listed.report.allocations.size() == kLeaves + 1);
  CHECK(listed.report.allocation_runs.empty());
  const Written whole = write_json(listed.report);
  CHECK(whole.size == streamed.size);
  CHECK(whole.hash == streamed.hash);
}

}  // namespace
