#include "ir/arena.h"

#include <algorithm>
#include <cstdint>

namespace hloroof::detail {
namespace {

// Blocks grow geometrically so that small modules stay small and big ones allocate rarely.
constexpr size_t kFirstBlock = 16 * 1024;
constexpr size_t kMaxBlock = 4 * 1024 * 1024;

}  // namespace

Arena::~Arena() {
  for (auto it = destructors_.rbegin(); it != destructors_.rend(); ++it) it->destroy(it->object);
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
    blocks_.push_back(std::unique_ptr<char[]>(new char[block]));  // not zeroed
    reserved_ += block;
    cursor_ = blocks_.back().get();
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
