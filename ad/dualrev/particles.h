// The particles program of paper 003 section 7 (digest section 7), a parallel_for example: P
// particles, T steps of dt = 0.05 under force -0.5 p and friction -0.2 v, output sum of x * y over
// final positions; the particles are simulated in parallel (parmap over fork-join). Shared by tests
// and benchmarks.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "ad/dualrev/fork_join.h"
#include "ir/error.h"

namespace adlab::ad::dualrev::testing {

// state: P * 4 scalars (x, y, vx, vy) per particle; explicit Euler as suites/.../particles.adl.
// `body_ns`, when given, accumulates the time spent inside the particles' loops over all threads
// (the benchmark's diagnosis of threads slowing each other down).
template <class S>
S particles(const std::vector<S>& state, int steps, bool in_parallel,
            std::atomic<std::int64_t>* body_ns = nullptr) {
  if (state.empty() || state.size() % 4 != 0)
    throw Error("particles: the state needs 4 scalars (x, y, vx, vy) per particle and at least "
                "one particle, got " + std::to_string(state.size()));
  const std::size_t P = state.size() / 4;
  std::vector<S> out(P);
  auto simulate = [&](std::size_t p) {
    const auto t0 =
        body_ns ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
    S x = state[4 * p], y = state[4 * p + 1], vx = state[4 * p + 2], vy = state[4 * p + 3];
    for (int t = 0; t < steps; ++t) {
      S nx = x + 0.05 * vx, ny = y + 0.05 * vy;
      S nvx = vx + 0.05 * (-0.5 * x - 0.2 * vx), nvy = vy + 0.05 * (-0.5 * y - 0.2 * vy);
      x = nx;
      y = ny;
      vx = nvx;
      vy = nvy;
    }
    out[p] = x * y;
    if (body_ns)
      body_ns->fetch_add(std::chrono::duration_cast<std::chrono::nanoseconds>(
                             std::chrono::steady_clock::now() - t0)
                             .count());
  };
  if (in_parallel)
    parallel_for(0, P, 1, simulate);
  else
    for (std::size_t p = 0; p < P; ++p) simulate(p);
  S total = out[0];
  for (std::size_t p = 1; p < P; ++p) total = total + out[p];
  return total;
}

}  // namespace adlab::ad::dualrev::testing
