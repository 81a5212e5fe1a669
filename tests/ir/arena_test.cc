// The module arena: objects with destructors are destroyed, newest first, however many chunks of
// destructor records they fill; memory handed out stays writable and distinct across blocks
// large enough to be mapped and made resident a step at a time.
#include "ir/arena.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "hloroof/module.h"
#include "ir/mapped_memory.h"
#include "hloroof/huge_pages.h"

namespace hloroof::detail {
namespace {

struct Recorder {
  Recorder(std::vector<int>* d, int i) : destroyed(d), id(i) {}
  ~Recorder() { destroyed->push_back(id); }
  std::vector<int>* destroyed;
  int id;
};

TEST_CASE("the arena destroys what it created, newest first, over several destructor chunks") {
  // 1,000 objects: the destructor records fill 254-entry chunks, so four chunks (254 * 3 = 762
  // < 1,000 <= 1,016 = 254 * 4) are walked.
  constexpr int kObjects = 1000;
  std::vector<int> destroyed;
  {
    Arena arena;
    for (int i = 0; i < kObjects; ++i) {
      Recorder* r = arena.create<Recorder>(&destroyed, i);
      REQUIRE(r->id == i);
    }
    CHECK(destroyed.empty());
  }
  REQUIRE(destroyed.size() == static_cast<size_t>(kObjects));
  for (int i = 0; i < kObjects; ++i) CHECK(destroyed[static_cast<size_t>(i)] == kObjects - 1 - i);
}

TEST_CASE("arena memory past the mapped-block size is writable and not shared between calls") {
  // 40 MiB in 4 KiB pieces takes blocks past 1 MiB (mapped, made resident in steps) and past the
  // 16 MiB cap; each piece is filled with its own byte and checked after all are handed out.
  constexpr size_t kPiece = 4096;
  constexpr size_t kPieces = 40 * 256;
  Arena arena;
  std::vector<char*> pieces;
  for (size_t i = 0; i < kPieces; ++i) {
    auto* p = static_cast<char*>(arena.allocate(kPiece, 8));
    REQUIRE(reinterpret_cast<uintptr_t>(p) % 8 == 0);
    std::memset(p, static_cast<int>(i % 251), kPiece);
    pieces.push_back(p);
  }
  bool intact = true;
  for (size_t i = 0; i < kPieces; ++i) {
    const char expected = static_cast<char>(i % 251);
    if (pieces[i][0] != expected || pieces[i][kPiece - 1] != expected) intact = false;
  }
  CHECK(intact);
  CHECK(arena.reserved_bytes() >= kPiece * kPieces);
  // One piece larger than any block so far gets a block of its own.
  auto* big = static_cast<char*>(arena.allocate(24 << 20, 64));
  std::memset(big, 7, 24 << 20);
  CHECK(big[(24 << 20) - 1] == 7);
}

TEST_CASE("a destroyed arena's large blocks serve the next arena") {
  if (!kMapLargeAllocations) return;  // under AddressSanitizer blocks come from malloc
  Arena::release_pooled();
  REQUIRE(Arena::pooled_bytes() == 0);
  constexpr size_t kPiece = 2 << 20;  // past the 64 KiB from which blocks are mapped
  {
    Arena first;
    std::memset(first.allocate(kPiece, 8), 1, kPiece);
  }
  const size_t kept = Arena::pooled_bytes();
  CHECK(kept >= kPiece);
  {
    Arena second;
    auto* p = static_cast<char*>(second.allocate(kPiece, 8));
    CHECK(Arena::pooled_bytes() < kept);  // taken from the pool, not mapped afresh
    std::memset(p, 2, kPiece);
    CHECK(p[kPiece - 1] == 2);
  }
  CHECK(Arena::pooled_bytes() == kept);
  Arena::release_pooled();
  CHECK(Arena::pooled_bytes() == 0);
}

TEST_CASE("release_unused_module_memory gives back what destroyed arenas kept") {
  if (!kMapLargeAllocations) return;  // under AddressSanitizer blocks come from malloc
  Arena::release_pooled();
  {
    Arena arena;
    std::memset(arena.allocate(1 << 20, 8), 3, 1 << 20);  // one mapped block of at least 1 MiB
  }
  CHECK(release_unused_module_memory() >= size_t{1} << 20);
  CHECK(release_unused_module_memory() == 0);  // nothing left the second time
  CHECK(Arena::pooled_bytes() == 0);
}

TEST_CASE("the arena counts the bytes it hands out, alignment padding included") {
  Arena arena;
  CHECK(arena.used_bytes() == 0);
  arena.allocate(10, 1);
  CHECK(arena.used_bytes() == 10);
  // The first block is at least 8-aligned, so 8-aligning the cursor at 10 pads 6 bytes:
  // 10 + 6 + 8 = 24.
  arena.allocate(8, 8);
  CHECK(arena.used_bytes() == 24);
  // A piece too large for the 16 KiB first block opens a new block; the first block's unused
  // end (16384 - 24) is not counted as used.
  arena.allocate(20000, 1);
  CHECK(arena.used_bytes() == 24 + 20000);
  CHECK(arena.reserved_bytes() >= arena.used_bytes() + (16384 - 24));
}

TEST_CASE("the arena makes resident what it hands out, a step at a time, not whole blocks") {
  // 3 MiB in 4 KiB pieces: blocks of 16 + 16 + 32 KiB from malloc, then mapped blocks of 64 KiB
  // to 1 MiB (1984 KiB in all, filled), then a 2 MiB block of which about 1 MiB is used.
  constexpr size_t kPiece = 4096;
  constexpr size_t kPieces = 3 * 256;
  Arena arena;
  for (size_t i = 0; i < kPieces; ++i) arena.allocate(kPiece, 8);
  CHECK(arena.used_bytes() == kPiece * kPieces);
  CHECK(arena.resident_bytes() >= arena.used_bytes());
  CHECK(arena.resident_bytes() <= arena.reserved_bytes());
  if (!kMapLargeAllocations) {
    // Under AddressSanitizer every block comes from malloc, resident as a whole.
    CHECK(arena.resident_bytes() == arena.reserved_bytes());
    CHECK(arena.heap_block_bytes() == arena.reserved_bytes());
    return;
  }
  CHECK(arena.heap_block_bytes() == (16 + 16 + 32) * 1024);
  CHECK(arena.reserved_bytes() == 4 << 20);  // 64 KiB + 64 KiB + ... + 2 MiB
  // Resident but unused: at most one populate step beyond the cursor (the pieces fill every
  // block exactly, so no block leaves an unused end).
  CHECK(arena.resident_bytes() - arena.used_bytes() <= Arena::kPopulateStep);
  // So most of the last block's unused megabyte is not resident.
  CHECK(arena.reserved_bytes() - arena.resident_bytes() >= (1 << 20) - Arena::kPopulateStep);
}

TEST_CASE("an arena told what to expect opens one block that large, in huge pages where given") {
  // Without huge pages (a kernel that gives none), expect() changes nothing: blocks grow as the
  // test above shows.
  if (!huge_pages_available()) return;
  Arena::release_pooled();  // or a pooled block of a destroyed arena would be taken instead
  {
    // 3 MiB would use half of a second huge page: one block of 4 MiB holds 3 MiB in 4 KiB
    // pieces.
    Arena arena;
    arena.expect(3 << 20);
    for (size_t i = 0; i < 3 * 256; ++i) {
      auto* piece = static_cast<char*>(arena.allocate(4096, 8));
      piece[0] = piece[4095] = 1;
    }
    CHECK(arena.used_bytes() == size_t{3} << 20);
    CHECK(arena.reserved_bytes() == size_t{4} << 20);
    if (!kMapLargeAllocations) {
      CHECK(arena.resident_bytes() == arena.reserved_bytes());  // from malloc, whole
    } else {
      // Made resident a huge page at a time: 3 MiB used, two huge pages resident.
      CHECK(arena.resident_bytes() == size_t{4} << 20);
    }
  }
  // Whole huge pages, rounded up unless the last would be less than a quarter used: 2.25 MiB
  // (the second an eighth used) gives one, 2.5 MiB (a quarter) two.
  for (auto [expected, block] : {std::pair{size_t{9} << 18, size_t{2} << 20},
                                 std::pair{size_t{5} << 19, size_t{4} << 20}}) {
    Arena::release_pooled();
    CAPTURE(expected);
    Arena arena;
    arena.expect(expected);
    arena.allocate(8, 8);
    CHECK(arena.reserved_bytes() == block);
  }
  Arena::release_pooled();
  {
    // Under 1 MiB expected, blocks grow from 16 KiB as usual.
    Arena arena;
    arena.expect(512 << 10);
    arena.allocate(8, 8);
    CHECK(arena.reserved_bytes() == 16 << 10);
  }
}

}  // namespace
}  // namespace hloroof::detail
