// The helping fork-join thread pool (paper 003 section 13.1).
#include "ad/dualrev/thread_pool.h"

namespace adlab::ad::dualrev {

ThreadPool::ThreadPool(unsigned threads) {
  for (unsigned k = 1; k < threads; ++k) workers_.emplace_back([this] { worker(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  cv_.notify_all();
  for (auto& w : workers_) w.join();
}

ThreadPool::Item* ThreadPool::pop_newest() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (queue_.empty()) return nullptr;
  Item* item = queue_.back();
  queue_.pop_back();
  queued_.fetch_sub(1, std::memory_order_relaxed);
  return item;
}

void ThreadPool::run_item(Item* item, std::unique_lock<std::mutex>& lock) {
  lock.unlock();
  try {
    (*item->fn)();
  } catch (...) {
    item->error = std::current_exception();
  }
  lock.lock();
  item->done.store(true, std::memory_order_release);
  cv_.notify_all();
}

void ThreadPool::worker() {
  std::unique_lock<std::mutex> lock(mutex_, std::defer_lock);
  for (;;) {
    for (int k = 0; k < kSpinRounds && queued_.load(std::memory_order_relaxed) == 0; ++k)
      std::this_thread::yield();
    lock.lock();
    cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stop_ with nothing left
    Item* item = queue_.front();
    queue_.pop_front();
    queued_.fetch_sub(1, std::memory_order_relaxed);
    run_item(item, lock);
    lock.unlock();
  }
}

void ThreadPool::fork_join(const std::function<void()>& f, const std::function<void()>& g) {
  if (workers_.empty()) {
    f();
    g();
    return;
  }
  Item item;
  item.fn = &g;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    queue_.push_back(&item);
    queued_.fetch_add(1, std::memory_order_relaxed);
  }
  cv_.notify_one();
  std::exception_ptr first;
  try {
    f();
  } catch (...) {
    first = std::current_exception();
  }
  // `item` lives on this stack: wait for it even after an exception; help while waiting (the
  // newest queued item is usually our own g, not yet taken).
  std::unique_lock<std::mutex> lock(mutex_, std::defer_lock);
  while (!item.done.load(std::memory_order_acquire)) {
    if (queued_.load(std::memory_order_relaxed) > 0) {
      if (Item* next = pop_newest()) {
        lock.lock();
        run_item(next, lock);
        lock.unlock();
        continue;
      }
    }
    int k = 0;
    while (k < kSpinRounds && !item.done.load(std::memory_order_acquire) &&
           queued_.load(std::memory_order_relaxed) == 0) {
      std::this_thread::yield();
      ++k;
    }
    if (k < kSpinRounds) continue;
    lock.lock();
    cv_.wait(lock, [&] { return item.done.load(std::memory_order_acquire) || !queue_.empty(); });
    lock.unlock();
  }
  if (first) std::rethrow_exception(first);
  if (item.error) std::rethrow_exception(item.error);
}

}  // namespace adlab::ad::dualrev
