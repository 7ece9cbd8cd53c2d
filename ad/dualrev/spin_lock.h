// A lock for critical sections of a few instructions that two threads reach at the same moment
// (the pool's queues, the tape's job table at forks and joins): a contended std::mutex sleeps in
// the kernel at once, which costs microseconds per join on a VM (decision 126).
#pragma once

#include <atomic>
#include <thread>

namespace adlab::ad::dualrev {

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// BasicLockable (std::lock_guard works). Test-and-test-and-set; yields after a while, so a holder
// preempted on an oversubscribed machine gets its core back.
class SpinLock {
 public:
  void lock() {
    for (int k = 1; flag_.exchange(true, std::memory_order_acquire); ++k)
      while (flag_.load(std::memory_order_relaxed)) {
        if (k % 256 == 0) std::this_thread::yield();
        cpu_relax();
        ++k;
      }
  }
  void unlock() { flag_.store(false, std::memory_order_release); }

 private:
  std::atomic<bool> flag_{false};
};

}  // namespace adlab::ad::dualrev
