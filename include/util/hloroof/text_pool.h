// TextPool: text that records view, held once. A prediction's records (hloroof/predict.h) view
// their names, categories, models and explanations in one pool, which each of them holds
// shared: a few models and categories, and explanations that repeat from layer to layer, are
// stored once, not once per op.
//
//   auto texts = std::make_shared<hloroof::TextPool>();
//   std::string_view a = texts->save("loop fusion");
//   std::string_view b = texts->save(std::string("loop ") + "fusion");  // == a, the same bytes
#ifndef HLOROOF_TEXT_POOL_H_
#define HLOROOF_TEXT_POOL_H_

#include <cstddef>
#include <memory>
#include <string_view>
#include <vector>

namespace hloroof {

class TextPool {
 public:
  TextPool();
  ~TextPool();
  // Views point into the pool: it does not move, and is not copied.
  TextPool(const TextPool&) = delete;
  TextPool& operator=(const TextPool&) = delete;

  // A view of `text` held by the pool, valid while the pool lives: the same view for the same
  // text (a text saved once is held once).
  std::string_view save(std::string_view text);
  // The same without looking for an equal text: for a text saved once (an op's name).
  std::string_view save_once(std::string_view text);

 private:
  struct Index;
  char* room(size_t size);

  std::vector<std::unique_ptr<char[]>> blocks_;
  size_t block_size_ = 0;  // of the last block
  size_t used_ = 0;        // bytes of the last block used
  std::unique_ptr<Index> index_;
};

}  // namespace hloroof

#endif  // HLOROOF_TEXT_POOL_H_
