// The helping fork-join thread pool (paper 003 section 13.1), with work placed on given threads.
#include "ad/dualrev/thread_pool.h"

#include <iterator>

namespace adlab::ad::dualrev {

namespace {
// The pool a worker thread belongs to and its index there (threads outside any pool: null, 0).
constinit thread_local const ThreadPool* tl_pool = nullptr;
constinit thread_local unsigned tl_index = 0;
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

template <class Ready>
void ThreadPool::sleep_until(Ready ready) {
  std::unique_lock<std::mutex> lock(sleep_mutex_);
  sleepers_.fetch_add(1);
  cv_.wait(lock, ready);
  sleepers_.fetch_sub(1);
}

void ThreadPool::wake_sleepers() {
  if (sleepers_.load() == 0) return;
  // Taking the mutex orders this wake-up after a sleeper's check of its condition.
  { std::lock_guard<std::mutex> lock(sleep_mutex_); }
  cv_.notify_all();
}

ThreadPool::ThreadPool(unsigned threads)
    : inboxes_(std::make_unique<Inbox[]>(threads == 0 ? 1 : threads)) {
  for (unsigned k = 1; k < threads; ++k) workers_.emplace_back([this, k] { worker(k); });
}

ThreadPool::~ThreadPool() {
  stop_.store(true);
  { std::lock_guard<std::mutex> lock(sleep_mutex_); }
  cv_.notify_all();
  for (auto& w : workers_) w.join();
}

unsigned ThreadPool::current_thread() const {
  return tl_pool == this ? tl_index : 0;
}

void ThreadPool::push(Item* item, unsigned on) {
  {
    std::lock_guard<SpinLock> lock(queue_lock_);
    if (on == kAnyThread) {
      queue_.push_back(item);
      queued_.fetch_add(1);
    } else {
      inboxes_[on].items.push_back(item);
      inboxes_[on].size.fetch_add(1);
    }
  }
  wake_sleepers();
}

ThreadPool::Item* ThreadPool::take(unsigned me, bool newest) {
  Inbox& in = inboxes_[me];
  if (!in.items.empty()) {
    Item* item = in.items.front();
    in.items.pop_front();
    in.size.fetch_sub(1);
    return item;
  }
  if (queue_.empty()) return nullptr;
  Item* item = newest ? queue_.back() : queue_.front();
  if (newest)
    queue_.pop_back();
  else
    queue_.pop_front();
  queued_.fetch_sub(1);
  return item;
}

ThreadPool::Item* ThreadPool::reclaim(Item* item) {
  for (auto it = queue_.rbegin(); it != queue_.rend(); ++it)
    if (*it == item) {
      queue_.erase(std::next(it).base());
      queued_.fetch_sub(1);
      return item;
    }
  return nullptr;
}

void ThreadPool::run_item(Item* item) {
  try {
    (*item->fn)();
  } catch (...) {
    item->error = std::current_exception();
  }
  // The waiting thread may return and free `item` as soon as it sees done: not touched after.
  item->done.store(true);
  wake_sleepers();
}

void ThreadPool::worker(unsigned index) {
  tl_pool = this;
  tl_index = index;
  auto ready = [&] { return has_work(index) || stop_.load(); };
  for (;;) {
    Item* item = nullptr;
    if (spin_until(ready)) {
      std::lock_guard<SpinLock> lock(queue_lock_);
      item = take(index, false);
    }
    if (item) {
      run_item(item);
      continue;
    }
    if (stop_.load() && !has_work(index)) return;  // stop with nothing left
    sleep_until(ready);
  }
}

void ThreadPool::help_until_done(Item& item, unsigned me) {
  auto ready = [&] { return item.done.load() || has_work(me); };
  while (!item.done.load()) {
    if (has_work(me)) {
      // Our own item first, if no thread took it: a thread that helped with another thread's
      // newest item recorded it into its own memory, and the reverse pass then resolves it
      // there, away from its parent's data (decision 124).
      Item* next = nullptr;
      {
        std::lock_guard<SpinLock> lock(queue_lock_);
        next = reclaim(&item) ? &item : take(me, true);
      }
      if (next) {
        run_item(next);
        continue;
      }
    }
    if (!spin_until(ready)) sleep_until(ready);
  }
}

void ThreadPool::fork_join_on(const std::function<void()>& f, unsigned f_on,
                              const std::function<void()>& g, unsigned g_on) {
  if (workers_.empty()) {
    f();
    g();
    return;
  }
  const unsigned me = current_thread();
  if (f_on >= threads()) f_on = kAnyThread;
  if (g_on >= threads()) g_on = kAnyThread;
  const bool f_here = f_on == kAnyThread || f_on == me;
  if (f_here && g_on == me) {  // both placed here: no fork
    f();
    g();
    return;
  }
  // Which side this thread runs (f if it may, else g if placed here, else neither); the others
  // are queued. Both items live on this stack: wait for them even after an exception.
  Item items[2];
  const std::function<void()>* fns[2] = {&f, &g};
  const unsigned on[2] = {f_on, g_on};
  const int here = f_here ? 0 : (g_on == me ? 1 : -1);
  for (int k = 0; k < 2; ++k) {
    if (k == here) continue;
    items[k].fn = fns[k];
    push(&items[k], on[k]);
  }
  if (here >= 0) {
    try {
      (*fns[here])();
    } catch (...) {
      items[here].error = std::current_exception();
    }
  }
  for (int k = 0; k < 2; ++k)
    if (k != here) help_until_done(items[k], me);
  for (const Item& item : items)  // f's exception before g's
    if (item.error) std::rethrow_exception(item.error);
}

}  // namespace adlab::ad::dualrev
