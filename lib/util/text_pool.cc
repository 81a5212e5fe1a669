#include "hloroof/text_pool.h"

#include <algorithm>
#include <cstring>

#include "absl/container/flat_hash_set.h"
#include "util/string_view_hash.h"

namespace hloroof {

// Every text saved with ref(), by content (hashed a word at a time: op names and
// explanations run to a hundred bytes and more), held as its Ref and looked up by its text.
struct TextPool::Index {
  struct Hash {
    using is_transparent = void;
    const TextPool* pool;
    size_t operator()(std::string_view text) const { return detail::hash_text(text); }
    size_t operator()(Ref ref) const { return detail::hash_text(pool->text(ref)); }
  };
  struct Eq {
    using is_transparent = void;
    const TextPool* pool;
    bool operator()(Ref a, Ref b) const { return a == b; }
    bool operator()(Ref a, std::string_view b) const { return pool->text(a) == b; }
    bool operator()(std::string_view a, Ref b) const { return a == pool->text(b); }
  };
  explicit Index(const TextPool* pool) : texts(0, Hash{pool}, Eq{pool}) {}
  absl::flat_hash_set<Ref, Hash, Eq> texts;
};

TextPool::TextPool() : index_(std::make_unique<Index>(this)) {}
TextPool::~TextPool() = default;

TextPool::Ref TextPool::ref_once(std::string_view text) {
  if (text.empty()) return 0;
  if (!has_room(text.size())) [[unlikely]] {
    full_ = true;
    return 0;
  }
  const size_t size = sizeof(uint32_t) + text.size();
  if (blocks_.empty() || block_size_ - used_ < size) {
    const size_t block = std::max(size, kBlockSize);
    blocks_.push_back(std::make_unique_for_overwrite<char[]>(block));
    block_size_ = block;
    used_ = 0;
  }
  const Ref ref = static_cast<Ref>(((blocks_.size() - 1) << kOffsetBits) | used_) + 1;
  char* at = blocks_.back().get() + used_;
  const auto length = static_cast<uint32_t>(text.size());
  std::memcpy(at, &length, sizeof length);
  std::memcpy(at + sizeof length, text.data(), text.size());
  used_ += size;
  return ref;
}

TextPool::Ref TextPool::ref(std::string_view text) {
  if (text.empty()) return 0;
  if (!has_room(text.size())) [[unlikely]] {  // refused, unless held already
    auto it = index_->texts.find(text);
    if (it != index_->texts.end()) return *it;
    full_ = true;
    return 0;
  }
  // One probe: a text not there is saved and takes the slot the probe found.
  return *index_->texts.lazy_emplace(text,
                                     [&](const auto& construct) { construct(ref_once(text)); });
}

}  // namespace hloroof
