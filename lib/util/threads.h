// Work run on several threads at once, the caller's among them.
#ifndef HLOROOF_LIB_UTIL_THREADS_H_
#define HLOROOF_LIB_UTIL_THREADS_H_

#include <cstddef>
#include <functional>

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

}  // namespace hloroof::detail

#endif  // HLOROOF_LIB_UTIL_THREADS_H_
