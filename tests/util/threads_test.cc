#include "hloroof/threads.h"

#include <catch2/catch.hpp>
#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#if defined(__linux__) && defined(__GLIBC__)
#include <sched.h>
#endif

namespace hloroof::detail {
namespace {

TEST_CASE("run_on_threads: the work runs once on each thread asked for, all at once") {
  std::mutex mutex;
  std::vector<std::thread::id> ran;
  std::atomic<int> arrived{0};
  std::atomic<bool> together{true};
  run_on_threads(3, [&] {
    {
      std::lock_guard<std::mutex> lock(mutex);
      ran.push_back(std::this_thread::get_id());
    }
    // Each waits for the other two: they run at the same time, not one after the other.
    ++arrived;
    const auto start = std::chrono::steady_clock::now();
    while (arrived.load() < 3) {
      if (std::chrono::steady_clock::now() - start > std::chrono::seconds(20)) {
        together = false;
        return;
      }
      std::this_thread::yield();
    }
  });
  CHECK(together.load());
  REQUIRE(ran.size() == 3);
  const std::set<std::thread::id> distinct(ran.begin(), ran.end());
  CHECK(distinct.size() == 3);
  CHECK(distinct.count(std::this_thread::get_id()) == 1);  // the caller's among them
}

TEST_CASE("for_each_on_threads: every task once, whatever the threads") {
  for (int threads : {1, 2, 5}) {
    std::vector<std::atomic<int>> runs(100);
    for_each_on_threads(runs.size(), threads, [&](size_t k) { ++runs[k]; });
    for (const std::atomic<int>& r : runs) CHECK(r.load() == 1);
  }
}

TEST_CASE("make_pieces_in_order: pieces made on several threads, written in order") {
  for (int threads : {1, 2, 4}) {
    std::mutex mutex;
    int makers = 0;
    std::string out;
    make_pieces_in_order(
        50, threads,
        [&] {
          std::lock_guard<std::mutex> lock(mutex);
          ++makers;
          return std::string();
        },
        [](std::string& text, size_t k) {
          // Later pieces quicker to make: out of order unless written in turn.
          std::this_thread::sleep_for(std::chrono::microseconds(50 * (k % 4)));
          text = std::to_string(k) + ",";
        },
        [&](std::string& text) { out += text; });
    std::string expected;
    for (int k = 0; k < 50; ++k) expected += std::to_string(k) + ",";
    INFO("threads " << threads);
    CHECK(out == expected);
    CHECK(makers >= 1);
    CHECK(makers <= threads);  // a maker per thread, not per piece
  }
}

#if defined(__linux__) && defined(__GLIBC__)
// The CPUs the calling thread may run on.
cpu_set_t allowed() {
  cpu_set_t set;
  CPU_ZERO(&set);
  REQUIRE(sched_getaffinity(0, sizeof(set), &set) == 0);
  return set;
}

TEST_CASE("run_on_threads: a helper, started away from its starter's CPU, may then run on any") {
  // Started on the CPUs other than the starter's, each helper is allowed them all once it runs
  // (where the starter may use one CPU only, the helper starts there).
  const cpu_set_t mine = allowed();
  auto helpers_allowed_all = [](const cpu_set_t& expected) {
    std::mutex mutex;
    int helpers = 0;
    int alike = 0;
    const std::thread::id caller = std::this_thread::get_id();
    run_on_threads(3, [&] {
      if (std::this_thread::get_id() == caller) return;
      const cpu_set_t set = allowed();
      std::lock_guard<std::mutex> lock(mutex);
      ++helpers;
      alike += CPU_EQUAL(&set, &expected) ? 1 : 0;
    });
    CHECK(helpers == 2);
    CHECK(alike == 2);
  };
  helpers_allowed_all(mine);

  // Held to the CPU it is on, the caller's helpers are held there too.
  cpu_set_t one;
  CPU_ZERO(&one);
  const int here = sched_getcpu();
  REQUIRE(here >= 0);
  CPU_SET(here, &one);
  REQUIRE(sched_setaffinity(0, sizeof(one), &one) == 0);
  helpers_allowed_all(one);
  REQUIRE(sched_setaffinity(0, sizeof(mine), &mine) == 0);
}
#endif

}  // namespace
}  // namespace hloroof::detail
