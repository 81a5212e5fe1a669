// Work run on several threads at once, the caller's among them.
#ifndef HLOROOF_LIB_UTIL_THREADS_H_
#define HLOROOF_LIB_UTIL_THREADS_H_

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

// Pieces of one output made at once by several threads and written in order: each thread
// makes the next piece it takes, then writes it in its turn, when every piece before it is
// written.
//
//   PieceTurns turns;
//   std::atomic<size_t> next{0};
//   run_on_threads(2, [&] {
//     for (size_t k = next++; k < pieces; k = next++) {
//       std::string text = make(k);
//       turns.write_in_turn(k, [&] { out << text; });
//     }
//   });
class PieceTurns {
 public:
  // Waits until pieces 0 to k - 1 are written, runs `write` (piece k's), then lets k + 1 go.
  void write_in_turn(size_t k, const std::function<void()>& write);

 private:
  std::mutex mutex_;
  std::condition_variable written_;
  size_t turn_ = 0;  // the piece to be written next
};

}  // namespace hloroof::detail

#endif  // HLOROOF_LIB_UTIL_THREADS_H_
