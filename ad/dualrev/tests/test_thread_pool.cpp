// The fork-join pool with placed work (paper 003 section 13.1: waiting threads help, so a fixed
// pool cannot deadlock; decision 122: the reverse pass runs each job where it was recorded).
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <random>
#include <stdexcept>
#include <thread>

#include "ad/dualrev/thread_pool.h"

using namespace adlab::ad::dualrev;

namespace {

// A random fork-join tree whose every side is placed on a random thread (or anywhere); each leaf
// checks that it runs where it was placed. Returns the number of leaves.
int placed_tree(ThreadPool& pool, std::uint64_t seed, int depth, unsigned on,
                std::atomic<int>& misplaced) {
  if (on != ThreadPool::kAnyThread && pool.current_thread() != on) ++misplaced;
  if (depth == 0) return 1;
  std::mt19937_64 rng(seed);
  auto place = [&] {
    const auto r = static_cast<unsigned>(rng() % (pool.threads() + 1));
    return r == pool.threads() ? ThreadPool::kAnyThread : r;
  };
  const unsigned f_on = place(), g_on = place();
  const std::uint64_t fs = rng(), gs = rng();
  int left = 0, right = 0;
  pool.fork_join_on([&] { left = placed_tree(pool, fs, depth - 1, f_on, misplaced); }, f_on,
                    [&] { right = placed_tree(pool, gs, depth - 1, g_on, misplaced); }, g_on);
  return left + right;
}

}  // namespace

TEST_CASE("003 section 13.1 pool: placed work runs on its thread", "[dualrev]") {
  ThreadPool pool(2);
  CHECK(pool.current_thread() == 0);  // a thread outside the pool
  unsigned f_ran = 99, g_ran = 99;
  pool.fork_join_on([&] { f_ran = pool.current_thread(); }, 1,
                    [&] { g_ran = pool.current_thread(); }, 0);
  CHECK(f_ran == 1);
  CHECK(g_ran == 0);
  // Both placed on the worker: this thread only waits.
  f_ran = g_ran = 99;
  pool.fork_join_on([&] { f_ran = pool.current_thread(); }, 1,
                    [&] { g_ran = pool.current_thread(); }, 1);
  CHECK(f_ran == 1);
  CHECK(g_ran == 1);
  // A placement outside the pool means any thread.
  pool.fork_join_on([&] { f_ran = pool.current_thread(); }, 7, [] {}, 7);
  CHECK(f_ran == 0);
}

TEST_CASE("003 section 13.1 pool: nested random placements, no deadlock, all where placed",
          "[dualrev]") {
  for (unsigned threads : {2u, 3u, 4u}) {
    ThreadPool pool(threads);
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
      std::atomic<int> misplaced{0};
      CHECK(placed_tree(pool, seed, 7, ThreadPool::kAnyThread, misplaced) == 128);
      CHECK(misplaced == 0);
    }
  }
}

TEST_CASE("003 section 13.1 pool: both sides finish, f's exception before g's", "[dualrev]") {
  ThreadPool pool(2);
  for (unsigned f_on : {0u, 1u, ThreadPool::kAnyThread})
    for (unsigned g_on : {0u, 1u, ThreadPool::kAnyThread}) {
      std::atomic<int> ran{0};
      try {
        pool.fork_join_on(
            [&] {
              ++ran;
              throw std::runtime_error("f");
            },
            f_on,
            [&] {
              ++ran;
              throw std::runtime_error("g");
            },
            g_on);
        FAIL("no exception");
      } catch (const std::runtime_error& e) {
        CHECK(std::string(e.what()) == "f");
      }
      // Placed apart, both sides ran; placed together on this thread, f's throw ends the pair.
      const bool sequential = (f_on == 0 || f_on == ThreadPool::kAnyThread) && g_on == 0;
      CHECK(ran == (sequential ? 1 : 2));
    }
}

TEST_CASE("003 section 13.1 pool: a side that waits for the other one to start", "[dualrev]") {
  // g must run on the worker while f runs here (no helping thread could run both in turn).
  ThreadPool pool(2);
  std::atomic<bool> g_started{false};
  bool f_saw_g = false;
  pool.fork_join(
      [&] {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (!g_started && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
        f_saw_g = g_started;
      },
      [&] { g_started = true; });
  CHECK(f_saw_g);
}
