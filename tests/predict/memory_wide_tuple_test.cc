// What the memory analysis holds for a parameter of many scalar leaves (issue 33, item 7: a
// parameter of 28 million `f32[]` took 12.6 GB, 64 bytes per input byte). Its text is 7 bytes
// a leaf (`f32[], `), so every byte kept per leaf is a seventh of a byte per input byte. This
// program counts the heap bytes live at once (every operator new and delete of the process)
// while analyze_memory runs, without timing anything.
#include <malloc.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <new>
#include <string>

#include "hloroof/hlo_text.h"
#include "hloroof/memory.h"
#include "memory/memory_liveness.h"

namespace {

std::atomic<int64_t> live_bytes{0};
std::atomic<int64_t> peak_bytes{0};

void* counted_new(size_t n) {
  void* p = std::malloc(n == 0 ? 1 : n);
  if (p == nullptr) throw std::bad_alloc();
  const int64_t now = live_bytes += static_cast<int64_t>(malloc_usable_size(p));
  int64_t peak = peak_bytes.load();
  while (now > peak && !peak_bytes.compare_exchange_weak(peak, now)) {
  }
  return p;
}

void counted_delete(void* p) {
  if (p == nullptr) return;
  live_bytes -= static_cast<int64_t>(malloc_usable_size(p));
  std::free(p);
}

}  // namespace

void* operator new(size_t n) { return counted_new(n); }
void* operator new[](size_t n) { return counted_new(n); }
void operator delete(void* p) noexcept { counted_delete(p); }
void operator delete[](void* p) noexcept { counted_delete(p); }
void operator delete(void* p, size_t) noexcept { counted_delete(p); }
void operator delete[](void* p, size_t) noexcept { counted_delete(p); }
// The nothrow forms too (std::stable_sort's buffer takes one): every form the program uses must
// be this pair, or a block would be freed by another allocator's delete.
void* operator new(size_t n, const std::nothrow_t&) noexcept {
  try {
    return counted_new(n);
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}
void* operator new[](size_t n, const std::nothrow_t& t) noexcept { return operator new(n, t); }
void operator delete(void* p, const std::nothrow_t&) noexcept { counted_delete(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { counted_delete(p); }

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

Analysis analyze(int leaves, bool allocations) {
  absl::StatusOr<hloroof::Module> module = hloroof::parse_module(wide_parameter(leaves));
  REQUIRE(module.ok());
  const int64_t before = live_bytes.load();
  peak_bytes = before;
  absl::StatusOr<hloroof::MemoryReport> report =
      hloroof::analyze_memory(*module, {.allocations = allocations});
  REQUIRE(report.ok());
  return {peak_bytes.load() - before, *std::move(report)};
}

TEST_CASE("a parameter of 200,000 scalar leaves: at most 56 heap bytes per leaf") {
  // Each leaf is a buffer (a Buffer record: two pointers, four 32-bit figures, five flags: 40
  // bytes), a buffer id where its instruction's leaves are listed (4) and an allocation index
  // (4); while the buffers live at the peak are ranked, their ids too (4): 52 bytes. The leaves
  // share one shape and one allocation record (a run of alike read-only parameter leaves).
  // Before: about 440 bytes (a 104-byte record, an allocation record of 64 bytes with a list
  // of its own, per-allocation interference sets, five per-buffer arrays, the report's list).
  static_assert(sizeof(hloroof::detail::Buffer) <= 40);
  constexpr int kLeaves = 200000;
  const Analysis a = analyze(kLeaves, /*allocations=*/false);
  INFO("heap peak " << a.peak_bytes << " B");
  CHECK(a.peak_bytes <= int64_t{56} * kLeaves);
  // The same figures as with every allocation listed: one parameter allocation per leaf, and
  // one output.
  CHECK(a.report.allocations.empty());
  CHECK(a.report.allocation_counts[static_cast<size_t>(hloroof::AllocationKind::kParameter)] ==
        kLeaves);
  CHECK(a.report.allocation_counts[static_cast<size_t>(hloroof::AllocationKind::kOutput)] == 1);
  CHECK(a.report.argument_bytes == int64_t{4} * kLeaves);  // f32[]: 4 bytes a leaf
  CHECK(a.report.buffer_count == kLeaves + 1);
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

}  // namespace
