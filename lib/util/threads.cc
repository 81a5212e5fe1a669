#include "util/threads.h"

#include <algorithm>
#include <atomic>
#include <system_error>
#include <thread>
#include <vector>

#if defined(__linux__) && defined(__GLIBC__)
#include <pthread.h>
#include <sched.h>
#define HLOROOF_SPREAD_THREADS 1
#endif

namespace hloroof::detail {
namespace {

#ifdef HLOROOF_SPREAD_THREADS
// A helper started on a CPU other than its starter's. Some kernels place a new thread on its
// starter's CPU, busy, and move it only milliseconds later (measured on 2-core virtual machines:
// in half the runs of `hloroof compare`, the second prediction began 1.5-4 ms late, or after the
// first was done). The helper is started allowed every CPU the process may use but the starter's,
// then allowed them all again as soon as it runs.
class Helper {
 public:
  // Starts `work` on a new thread; false where no thread could be started.
  bool start(const std::function<void()>& work) {
    work_ = &work;
    if (sched_getaffinity(0, sizeof(all_), &all_) != 0) return start_anywhere();
    cpu_set_t others = all_;
    const int here = sched_getcpu();
    if (here >= 0 && here < CPU_SETSIZE) CPU_CLR(here, &others);
    if (CPU_COUNT(&others) == 0) return start_anywhere();
    pthread_attr_t attr;
    if (pthread_attr_init(&attr) != 0) return start_anywhere();
    const bool placed = pthread_attr_setaffinity_np(&attr, sizeof(others), &others) == 0;
    reset_ = placed;
    const bool started = pthread_create(&thread_, &attr, &Helper::run, this) == 0;
    pthread_attr_destroy(&attr);
    // A system that refuses the placement (a sandbox that forbids setting affinity) still
    // gets its helper.
    return started || (placed && start_anywhere());
  }
  void join() { pthread_join(thread_, nullptr); }

 private:
  bool start_anywhere() {
    reset_ = false;
    return pthread_create(&thread_, nullptr, &Helper::run, this) == 0;
  }
  static void* run(void* self) {
    auto* h = static_cast<Helper*>(self);
    if (h->reset_) (void)sched_setaffinity(0, sizeof(h->all_), &h->all_);
    (*h->work_)();
    return nullptr;
  }

  const std::function<void()>* work_ = nullptr;
  cpu_set_t all_;
  bool reset_ = false;
  pthread_t thread_{};
};
#else
class Helper {
 public:
  bool start(const std::function<void()>& work) {
    try {
      thread_ = std::thread(work);
    } catch (const std::system_error&) {
      return false;
    }
    return true;
  }
  void join() { thread_.join(); }

 private:
  std::thread thread_;
};
#endif

}  // namespace

void run_on_threads(int threads, const std::function<void()>& work) {
  // Each helper stays where it is (a started thread holds its address).
  std::vector<Helper> helpers(static_cast<size_t>(std::max(threads - 1, 0)));
  size_t started = 0;
  for (Helper& h : helpers) {
    if (!h.start(work)) break;  // the threads started, this one among them, do the work
    ++started;
  }
  work();
  for (size_t k = 0; k < started; ++k) helpers[k].join();
}

void for_each_on_threads(size_t n, int threads, const std::function<void(size_t)>& task) {
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < n; i = next++) task(i);
  };
  run_on_threads(static_cast<int>(std::min<size_t>(n, static_cast<size_t>(std::max(threads, 1)))),
                 work);
}

void PieceTurns::write_in_turn(size_t k, const std::function<void()>& write) {
  std::unique_lock<std::mutex> lock(mutex_);
  written_.wait(lock, [&] { return turn_ == k; });
  write();
  ++turn_;
  lock.unlock();
  written_.notify_all();
}

}  // namespace hloroof::detail
