#include "util/threads.h"

#include <algorithm>
#include <atomic>
#include <system_error>
#include <thread>
#include <vector>

namespace hloroof::detail {

void run_on_threads(int threads, const std::function<void()>& work) {
  std::vector<std::thread> helpers;
  for (int t = 1; t < threads; ++t) {
    try {
      helpers.emplace_back(work);
    } catch (const std::system_error&) {
      break;  // the threads started, this one among them, do the work
    }
  }
  work();
  for (std::thread& h : helpers) h.join();
}

void for_each_on_threads(size_t n, int threads, const std::function<void(size_t)>& task) {
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < n; i = next++) task(i);
  };
  run_on_threads(static_cast<int>(std::min<size_t>(n, static_cast<size_t>(std::max(threads, 1)))),
                 work);
}

}  // namespace hloroof::detail
