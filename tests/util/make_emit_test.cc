// make_then_emit_in_order (util/threads.h): results made on several threads, emitted in order.
#include "hloroof/threads.h"

#include <catch2/catch.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

namespace hloroof::detail {
namespace {

TEST_CASE("make_then_emit_in_order: in order; the last emit has every thread") {
  const int threads = 3;
  std::mutex mutex;
  std::vector<size_t> emitted;
  std::vector<int> emit_threads;
  std::vector<bool> made(5, false);
  bool made_first = true;  // each result made before it is emitted
  make_then_emit_in_order(
      5, threads,
      [&](size_t k) {
        std::lock_guard<std::mutex> lock(mutex);
        made[k] = true;
      },
      [&](size_t k, int free) {
        std::lock_guard<std::mutex> lock(mutex);
        made_first = made_first && made[k];
        emitted.push_back(k);
        emit_threads.push_back(free);
        return true;
      });
  CHECK(emitted == std::vector<size_t>{0, 1, 2, 3, 4});
  CHECK(made_first);
  // The last emit comes when nothing is left to make: every thread is its.
  REQUIRE(emit_threads.size() == 5);
  CHECK(emit_threads.back() == threads);
  for (int free : emit_threads) CHECK((free == 1 || free == threads));
}

TEST_CASE("make_then_emit_in_order: no more results held than threads") {
  const int threads = 4;
  std::mutex mutex;
  int held = 0;  // made or being made, not yet emitted
  int most_held = 0;
  make_then_emit_in_order(
      6, threads,
      [&](size_t) {
        {
          std::lock_guard<std::mutex> lock(mutex);
          most_held = std::max(most_held, ++held);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      },
      [&](size_t, int) {
        // An emit slower than a make: without the bound, the other threads would make every
        // result while the first is emitted.
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        std::lock_guard<std::mutex> lock(mutex);
        --held;
        return true;
      });
  CHECK(held == 0);
  CHECK(most_held <= threads);
}

TEST_CASE("make_then_emit_in_order: an emit that returns false is the last") {
  std::vector<size_t> emitted;
  std::mutex mutex;
  make_then_emit_in_order(
      6, 3, [](size_t) {},
      [&](size_t k, int) {
        std::lock_guard<std::mutex> lock(mutex);
        emitted.push_back(k);
        return k < 2;
      });
  CHECK(emitted == std::vector<size_t>{0, 1, 2});
}

TEST_CASE("EmitWindow: a result waits for the emits of those more than the window before it") {
  EmitWindow window(2);
  std::atomic<bool> passed{false};
  std::thread third([&] {
    window.wait(2);  // results 0 and 1 are not emitted yet
    passed = true;
  });
  window.wait(0);  // the lowest two never wait
  window.wait(1);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  CHECK_FALSE(passed);
  window.emitted(0);
  third.join();
  CHECK(passed);
}

TEST_CASE("EmitWindow: once released, nothing waits") {
  EmitWindow window(1);
  std::thread late([&] { window.wait(5); });
  window.release_all();
  late.join();
  window.wait(1000);  // returns at once
  SUCCEED("no wait after release_all");
}

TEST_CASE("make_then_emit_in_order with an EmitWindow: at most the window past it; a failed "
          "emit frees the waiting makes") {
  for (const size_t fail_at : {size_t{99}, size_t{1}}) {
    INFO("emit " << fail_at << " fails");
    EmitWindow window(2);
    std::mutex mutex;
    int past = 0;  // makes past the window's wait, not yet emitted
    int most_past = 0;
    std::vector<size_t> emitted;
    make_then_emit_in_order(
        8, 3,
        [&](size_t k) {
          window.wait(k);
          std::lock_guard<std::mutex> lock(mutex);
          most_past = std::max(most_past, ++past);
        },
        [&](size_t k, int) {
          std::this_thread::sleep_for(std::chrono::milliseconds(2));
          std::lock_guard<std::mutex> lock(mutex);
          --past;
          emitted.push_back(k);
          if (k == fail_at) {
            window.release_all();
            return false;
          }
          window.emitted(k);
          return true;
        });
    // (Released after a failed emit, the makes still running pass at once.)
    if (fail_at == 99) CHECK(most_past <= 2);
    CHECK(emitted.size() == std::min<size_t>(8, fail_at + 1));
  }
}

}  // namespace
}  // namespace hloroof::detail
