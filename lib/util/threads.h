// Work run on several threads at once, the caller's among them.
#ifndef HLOROOF_LIB_UTIL_THREADS_H_
#define HLOROOF_LIB_UTIL_THREADS_H_

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>

namespace hloroof::detail {

// Runs `work` on `threads` threads at once (the caller's and threads - 1 started here) and
// returns when every one has returned. Where a thread cannot be started, those started take
// the work (`work` takes its tasks from a shared counter until none is left, so that it is
// done whatever the number of threads).
void run_on_threads(int threads, const std::function<void()>& work);

// Runs task(0), ..., task(n - 1), each once, on at most `threads` threads (the caller's among
// them), each thread taking the next task not taken; returns when all are done. On one thread
// they run in order.
void for_each_on_threads(size_t n, int threads, const std::function<void(size_t)>& task);

// Turns of pieces of one output made at once by several threads (make_pieces_in_order).
class PieceTurns {
 public:
  // Waits until pieces 0 to k - 1 are written, runs `write` (piece k's), then lets k + 1 go.
  void write_in_turn(size_t k, const std::function<void()>& write);

 private:
  std::mutex mutex_;
  std::condition_variable written_;
  size_t turn_ = 0;  // the piece to be written next
};

// Pieces 0 to n - 1 of one output, made by up to `threads` threads at once (the caller's among
// them) and written in order: each thread gets a maker of its own from new_maker() (its
// buffers, its caches), makes each piece it takes with make(maker, k), then write(maker)
// writes it once every piece before it is written.
//
//   make_pieces_in_order(pieces, 2, [] { return std::string(); },
//                        [&](std::string& text, size_t k) { text = make(k); },
//                        [&](std::string& text) { out << text; });
template <typename NewMaker, typename Make, typename Write>
void make_pieces_in_order(size_t n, int threads, const NewMaker& new_maker, const Make& make,
                          const Write& write) {
  std::atomic<size_t> next{0};
  PieceTurns turns;
  run_on_threads(static_cast<int>(std::min<size_t>(static_cast<size_t>(std::max(threads, 1)), n)),
                 [&] {
                   auto maker = new_maker();
                   for (size_t k = next++; k < n; k = next++) {
                     make(maker, k);
                     turns.write_in_turn(k, [&] { write(maker); });
                   }
                 });
}

}  // namespace hloroof::detail

#endif  // HLOROOF_LIB_UTIL_THREADS_H_
