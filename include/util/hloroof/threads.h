// Work run on several threads at once, the caller's among them.
#ifndef HLOROOF_THREADS_H_
#define HLOROOF_THREADS_H_

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

// Runs make(0), ..., make(n - 1) as for_each_on_threads does, on at most `threads` threads, and
// emit(k, free) for each k in order, as soon as make(k) and emit(k - 1) are done, on whichever
// thread is free (never two emits at once): each result written while later ones are still being
// made. At most as many results as threads are held at once (made or being made, not yet emitted):
// a thread whose next make would be one more waits for the emit, so that three devices compared on
// two threads hold two predictions, not three. `free` is how many threads the emit may use: 1 while
// another make may start, else every thread (a make still running shares the cores with it until it
// ends). An emit that returns false is the last (no make starts after it; those running finish).
void make_then_emit_in_order(size_t n, int threads, const std::function<void(size_t)>& make,
                             const std::function<bool(size_t, int)>& emit);

// A bound on the results of make_then_emit_in_order that have passed a point of their make
// (the op records of a device's prediction, most of its memory): make(k) calls wait(k), which
// returns once fewer than `window` results before k are still to be emitted; emit(k) calls
// emitted(k) once done with it. The results before the point may all be made at once; at most
// `window` hold what comes after it. The lowest results never wait, so every emit comes. An
// emit that fails (returns false) calls release_all: no make waits after it.
class EmitWindow {
 public:
  explicit EmitWindow(size_t window) : window_(window) {}
  void wait(size_t k);
  void emitted(size_t k);
  void release_all();

 private:
  void open_through(size_t through);

  const size_t window_;
  std::mutex mutex_;
  std::condition_variable opened_;
  size_t emitted_ = 0;  // results 0 .. emitted_ - 1 are emitted (or all released)
};

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

#endif  // HLOROOF_THREADS_H_
