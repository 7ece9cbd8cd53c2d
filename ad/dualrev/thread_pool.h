// A small fixed thread pool with fork-join whose waiting threads help (paper 003 section 13.1:
// a join that blocks a pool thread can deadlock a fixed-size pool, so a waiter runs queued work).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace adlab::ad::dualrev {

class ThreadPool {
 public:
  // `threads` threads take part: threads - 1 workers plus the thread that calls fork_join.
  explicit ThreadPool(unsigned threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  unsigned threads() const { return static_cast<unsigned>(workers_.size()) + 1; }

  // Runs f on this thread and g on any thread of the pool; returns when both have finished and
  // rethrows the first exception (f's before g's).
  void fork_join(const std::function<void()>& f, const std::function<void()>& g);

 private:
  struct Item {
    const std::function<void()>* fn = nullptr;
    std::exception_ptr error;
    std::atomic<bool> done{false};
  };
  // Spins for up to this long before sleeping: jobs are short, and a sleeping thread takes tens
  // of microseconds to wake. A pause loop, not sched_yield: on a loaded machine each yield can
  // hand a whole time slice to another process.
  static constexpr std::chrono::microseconds kSpin{50};
  template <class Ready>
  static bool spin_until(Ready ready);

  Item* pop_newest();  // takes the lock; null when the queue is empty
  // Runs one queued item (the newest when helping, the oldest for a worker); `lock` is held on
  // entry and exit and released while the item runs.
  void run_item(Item* item, std::unique_lock<std::mutex>& lock);
  void worker();

  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<Item*> queue_;
  std::atomic<int> queued_{0};  // queue_.size(), readable without the lock
  bool stop_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace adlab::ad::dualrev
