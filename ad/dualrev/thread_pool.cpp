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

void ThreadPool::run_item(Item* item, std::unique_lock<std::mutex>& lock) {
  lock.unlock();
  try {
    (*item->fn)();
  } catch (...) {
    item->error = std::current_exception();
  }
  lock.lock();
  item->done = true;
  cv_.notify_all();
}

void ThreadPool::worker() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stop_ with nothing left
    Item* item = queue_.front();
    queue_.pop_front();
    run_item(item, lock);
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
  }
  cv_.notify_one();
  std::exception_ptr first;
  try {
    f();
  } catch (...) {
    first = std::current_exception();
  }
  {
    // `item` lives on this stack: wait for it even after an exception; help while waiting.
    std::unique_lock<std::mutex> lock(mutex_);
    while (!item.done) {
      if (!queue_.empty()) {
        Item* next = queue_.back();
        queue_.pop_back();
        run_item(next, lock);
      } else {
        cv_.wait(lock);
      }
    }
  }
  if (first) std::rethrow_exception(first);
  if (item.error) std::rethrow_exception(item.error);
}

}  // namespace adlab::ad::dualrev
