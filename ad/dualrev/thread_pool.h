// A small fixed thread pool with fork-join whose waiting threads help (paper 003 section 13.1:
// a join that blocks a pool thread can deadlock a fixed-size pool, so a waiter runs queued work).
// Work can be placed on a given thread of the pool, so that the reverse pass resolves each job on
// the thread that recorded it (decision 122).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "ad/dualrev/spin_lock.h"

namespace adlab::ad::dualrev {

class ThreadPool {
 public:
  // A placement that lets any thread of the pool run the work.
  static constexpr unsigned kAnyThread = ~0u;

  // `threads` threads take part: threads - 1 workers (indices 1 .. threads - 1) plus the thread
  // that calls fork_join from outside the pool (index 0).
  explicit ThreadPool(unsigned threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  unsigned threads() const { return static_cast<unsigned>(workers_.size()) + 1; }
  // The calling thread's index in this pool: its worker index, or 0 for any other thread.
  unsigned current_thread() const;

  // Runs f on this thread and g on any thread of the pool; returns when both have finished and
  // rethrows the first exception (f's before g's).
  void fork_join(const std::function<void()>& f, const std::function<void()>& g) {
    fork_join_on(f, kAnyThread, g, kAnyThread);
  }
  // The same with placements: f runs on thread `f_on` and g on thread `g_on` (indices as
  // current_thread(); kAnyThread: this thread for f, any thread for g). A waiting thread still
  // runs work placed on it, so nested placements cannot deadlock.
  void fork_join_on(const std::function<void()>& f, unsigned f_on, const std::function<void()>& g,
                    unsigned g_on);

 private:
  struct Item {
    const std::function<void()>* fn = nullptr;
    std::exception_ptr error;
    std::atomic<bool> done{false};
  };
  // Work placed on one thread, with its size readable without the lock. Padded: each thread
  // polls its own count while spinning, and the counts of two threads must not share a line.
  struct alignas(64) Inbox {
    std::deque<Item*> items;
    std::atomic<int> size{0};
  };
  // Spins for up to this long before sleeping: jobs are short, and a sleeping thread takes tens
  // of microseconds to wake. A pause loop, not sched_yield: on a loaded machine each yield can
  // hand a whole time slice to another process.
  static constexpr std::chrono::microseconds kSpin{400};
  template <class Ready>
  static bool spin_until(Ready ready);

  bool has_work(unsigned me) const { return queued_.load() > 0 || inboxes_[me].size.load() > 0; }
  // Queues `item` for thread `on` (kAnyThread: the shared queue) and wakes the pool.
  void push(Item* item, unsigned on);
  // Takes work for thread `me` (queue_lock_ held): its own inbox first, then the shared queue
  // (the newest item when helping at a join, the oldest for an idle worker); null when none.
  Item* take(unsigned me, bool newest);
  // Takes `item` back from the shared queue (queue_lock_ held); null when a thread has taken it.
  Item* reclaim(Item* item);
  // Runs one item and marks it done.
  void run_item(Item* item);
  // Sleeps until `ready()`; wake_sleepers() after every change that can make it true.
  template <class Ready>
  void sleep_until(Ready ready);
  void wake_sleepers();
  // Waits until `item` is done, running work for thread `me` meanwhile.
  void help_until_done(Item& item, unsigned me);
  void worker(unsigned index);

  // Queue operations take queue_lock_ (a few instructions); sleeping uses sleep_mutex_ and cv_.
  // The counts are sequentially consistent: a sleeper announces itself in sleepers_ and then
  // checks them, a waker changes them and then checks sleepers_, so no wake-up is lost.
  SpinLock queue_lock_;
  std::deque<Item*> queue_;           // work for any thread
  std::atomic<int> queued_{0};        // queue_.size(), readable without the lock
  std::unique_ptr<Inbox[]> inboxes_;  // per thread index, work placed on that thread
  std::mutex sleep_mutex_;
  std::condition_variable cv_;
  std::atomic<int> sleepers_{0};
  std::atomic<bool> stop_{false};
  std::vector<std::thread> workers_;
};

}  // namespace adlab::ad::dualrev
