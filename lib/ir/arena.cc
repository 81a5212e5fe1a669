#include "ir/arena.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <new>

namespace hloroof::detail {
namespace {

// Blocks grow geometrically so that small modules stay small and big ones allocate rarely.
// (Huge pages were tried for the big blocks: fewer page faults, but the kernel's compaction
// made parsing slower.)
constexpr size_t kFirstBlock = 16 * 1024;
constexpr size_t kMaxBlock = 16 * 1024 * 1024;

}  // namespace

Arena::~Arena() {
  for (auto it = destructors_.rbegin(); it != destructors_.rend(); ++it) it->destroy(it->object);
  for (char* block : blocks_) std::free(block);
}

void* Arena::allocate(size_t size, size_t align) {
  auto aligned = [&](char* p) {
    auto address = reinterpret_cast<uintptr_t>(p);
    return reinterpret_cast<char*>((address + align - 1) & ~(uintptr_t{align} - 1));
  };
  char* p = cursor_ ? aligned(cursor_) : nullptr;
  if (p == nullptr || p + size > end_) {
    size_t block = std::clamp(reserved_, kFirstBlock, kMaxBlock);
    block = std::max(block, size + align);
    char* memory = static_cast<char*>(std::malloc(block));  // not zeroed
    if (memory == nullptr) throw std::bad_alloc();
    blocks_.push_back(memory);
    reserved_ += block;
    cursor_ = memory;
    end_ = cursor_ + block;
    p = aligned(cursor_);
  }
  cursor_ = p + size;
  return p;
}

std::string_view Arena::save(std::string_view text) {
  if (text.empty()) return {};
  char* p = static_cast<char*>(allocate(text.size(), 1));
  std::memcpy(p, text.data(), text.size());
  return std::string_view(p, text.size());
}

}  // namespace hloroof::detail
