#include "hloroof/text_pool.h"

#include <algorithm>
#include <cstring>

#include "absl/container/flat_hash_set.h"
#include "util/string_view_hash.h"

namespace hloroof {
namespace {

// Small enough that a prediction of a few ops holds little, large enough that a large one
// takes few blocks; a text larger than a block gets a block of its own.
constexpr size_t kBlockSize = 64 * 1024;

}  // namespace

// Every text saved with save(), by content (hashed a word at a time: op names and
// explanations run to a hundred bytes and more).
struct TextPool::Index {
  absl::flat_hash_set<std::string_view, detail::StringViewHash, detail::StringViewEq> texts;
};

TextPool::TextPool() : index_(std::make_unique<Index>()) {}
TextPool::~TextPool() = default;

char* TextPool::room(size_t size) {
  if (blocks_.empty() || block_size_ - used_ < size) {
    const size_t block = std::max(size, kBlockSize);
    blocks_.push_back(std::make_unique_for_overwrite<char[]>(block));
    block_size_ = block;
    used_ = 0;
  }
  char* at = blocks_.back().get() + used_;
  used_ += size;
  return at;
}

std::string_view TextPool::save_once(std::string_view text) {
  if (text.empty()) return {};
  char* at = room(text.size());
  std::memcpy(at, text.data(), text.size());
  return {at, text.size()};
}

std::string_view TextPool::save(std::string_view text) {
  if (text.empty()) return {};
  // One probe: a text not there is saved and takes the slot the probe found.
  return *index_->texts.lazy_emplace(
      text, [&](const auto& construct) { construct(save_once(text)); });
}

}  // namespace hloroof
