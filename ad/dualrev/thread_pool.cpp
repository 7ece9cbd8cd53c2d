// The helping fork-join thread pool (paper 003 section 13.1).
#include "ad/dualrev/thread_pool.h"

namespace adlab::ad::dualrev {

namespace {
inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}
}  // namespace

template <class Ready>
bool ThreadPool::spin_until(Ready ready) {
  const auto deadline = std::chrono::steady_clock::now() + kSpin;
  for (int k = 1;; ++k) {
    if (ready()) return true;
    cpu_relax();
    if (k % 64 == 0 && std::chrono::steady_clock::now() > deadline) return false;
  }
}

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
    spin_until([&] { return queued_.load(std::memory_order_relaxed) > 0; });
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
    if (spin_until([&] {
          return item.done.load(std::memory_order_acquire) ||
                 queued_.load(std::memory_order_relaxed) > 0;
        }))
      continue;
    lock.lock();
    cv_.wait(lock, [&] { return item.done.load(std::memory_order_acquire) || !queue_.empty(); });
    lock.unlock();
  }
  if (first) std::rethrow_exception(first);
  if (item.error) std::rethrow_exception(item.error);
}

}  // namespace adlab::ad::dualrev
