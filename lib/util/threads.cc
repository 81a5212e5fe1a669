#include "util/threads.h"

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

}  // namespace hloroof::detail
