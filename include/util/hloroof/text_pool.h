// TextPool: text that records view, held once. A prediction's records (hloroof/predict.h) view
// their names, categories, models and explanations in one pool, which each of them holds
// shared: a few models and categories, and explanations that repeat from layer to layer, are
// stored once, not once per op.
//
//   auto texts = std::make_shared<hloroof::TextPool>();
//   std::string_view a = texts->save("loop fusion");
//   std::string_view b = texts->save(std::string("loop ") + "fusion");  // == a, the same bytes
//   hloroof::TextPool::Ref r = texts->ref("loop fusion");  // 4 bytes that stand for it
//   texts->text(r) == a;
#ifndef HLOROOF_TEXT_POOL_H_
#define HLOROOF_TEXT_POOL_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

namespace hloroof {

class TextPool {
 public:
  // A text held by the pool, told by where it lies: 4 bytes where a view takes 16 (a record
  // that keeps several texts keeps these). 0 is the empty text.
  using Ref = uint32_t;

  TextPool();
  ~TextPool();
  // Views point into the pool: it does not move, and is not copied.
  TextPool(const TextPool&) = delete;
  TextPool& operator=(const TextPool&) = delete;

  // A view of `text` held by the pool, valid while the pool lives: the same view for the same
  // text (a text saved once is held once).
  std::string_view save(std::string_view text) { return this->text(ref(text)); }
  // The same without looking for an equal text: for a text saved once (an op's name).
  std::string_view save_once(std::string_view text) { return this->text(ref_once(text)); }
  // save() and save_once(), giving the text's Ref. A pool holds up to 4 GiB of text: past
  // that, a text is given as the empty one and full() is true.
  Ref ref(std::string_view text);
  Ref ref_once(std::string_view text);
  // The text of a Ref this pool gave.
  std::string_view text(Ref ref) const {
    if (ref == 0) return {};
    --ref;  // 0 is the empty text: the text at block 0, offset 0 is 1
    const char* at = blocks_[ref >> kOffsetBits].get() + (ref & kOffsetMask);
    uint32_t size;
    std::memcpy(&size, at, sizeof size);
    return {at + sizeof size, size};
  }
  // A text was refused: the pool holds 4 GiB.
  bool full() const { return full_; }

 private:
  struct Index;
  // Whether a text of `size` bytes can be saved: false only past 4 GiB of text (every block
  // taken, the last one too full) or for a text of 4 GiB.
  bool has_room(size_t size) const {
    return size <= UINT32_MAX &&
           (blocks_.size() < kMaxBlocks || block_size_ - used_ >= sizeof(uint32_t) + size);
  }
  // A Ref is 1 + the place of the text's size (4 bytes, then its bytes): its block, then the
  // offset in the block (a block of 64 KiB; a larger text has one of its own).
  static constexpr int kOffsetBits = 16;
  static constexpr size_t kBlockSize = size_t{1} << kOffsetBits;
  static constexpr Ref kOffsetMask = (Ref{1} << kOffsetBits) - 1;
  static constexpr size_t kMaxBlocks = (size_t{1} << (32 - kOffsetBits)) - 1;

  std::vector<std::unique_ptr<char[]>> blocks_;
  size_t block_size_ = 0;  // of the last block
  size_t used_ = 0;        // bytes of the last block used
  bool full_ = false;
  std::unique_ptr<Index> index_;
};

}  // namespace hloroof

#endif  // HLOROOF_TEXT_POOL_H_
