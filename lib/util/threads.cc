#include "hloroof/threads.h"

#include <algorithm>
#include <atomic>
#include <limits>
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

void EmitWindow::wait(size_t k) {
  std::unique_lock<std::mutex> lock(mutex_);
  opened_.wait(lock, [&] { return k < emitted_ + window_; });
}

void EmitWindow::emitted(size_t k) { open_through(k + 1); }

void EmitWindow::release_all() { open_through(std::numeric_limits<size_t>::max() - window_); }

void EmitWindow::open_through(size_t through) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    emitted_ = std::max(emitted_, through);
  }
  opened_.notify_all();
}

void make_then_emit_in_order(size_t n, int max_threads, const std::function<void(size_t)>& make,
                             const std::function<bool(size_t, int)>& emit) {
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<bool> made(n, false);
  size_t next_make = 0;
  size_t next_emit = 0;
  bool emitting = false;
  bool stopped = false;
  const int threads =
      static_cast<int>(std::min<size_t>(n, static_cast<size_t>(std::max(max_threads, 1))));
  // A make may start while fewer results than threads are made or being made and not emitted.
  const auto may_make = [&] { return next_make < n && next_make < next_emit + threads; };
  // Each thread emits the next result when it is ready and no one else emits; otherwise it
  // makes the next one; otherwise it waits for another thread to finish either.
  auto work = [&] {
    std::unique_lock<std::mutex> lock(mutex);
    while (!stopped && next_emit < n) {
      if (!emitting && made[next_emit]) {
        emitting = true;
        const size_t k = next_emit;
        // Where no make may start, the emit takes every thread: a thread whose make ends
        // meanwhile would otherwise idle until it ends.
        const int free = may_make() ? 1 : threads;
        lock.unlock();
        const bool go_on = emit(k, free);
        lock.lock();
        emitting = false;
        ++next_emit;
        stopped = !go_on;
        changed.notify_all();
      } else if (may_make()) {
        const size_t k = next_make++;
        lock.unlock();
        make(k);
        lock.lock();
        made[k] = true;
        changed.notify_all();
      } else {
        changed.wait(lock);
      }
    }
  };
  run_on_threads(threads, work);
}

}  // namespace hloroof::detail
