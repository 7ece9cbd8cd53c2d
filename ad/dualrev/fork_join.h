// The explicit fork-join API for C++ users (paper 003 section 12: the parallel pair s * t and the
// parmap built on it). Inside a recording the two sides become subtasks of the job graph.
#pragma once

#include <cstddef>
#include <optional>
#include <type_traits>
#include <utility>

#include "ad/dualrev/tape.h"

namespace adlab::ad::dualrev {

// Evaluates f() and g(), possibly in parallel, and returns both results (paper 003 `|*|`).
// The two sides must not exchange Duals (the paper's language is pure): a scalar made in one side
// may be used after the join, never in the other side.
template <class F, class G>
auto parallel(F&& f, G&& g) -> std::pair<std::invoke_result_t<F&>, std::invoke_result_t<G&>> {
  using A = std::invoke_result_t<F&>;
  using B = std::invoke_result_t<G&>;
  std::optional<A> a;
  std::optional<B> b;
  Job* j = tl_job;
  if (!j) return {f(), g()};  // not recording: plain sequential evaluation
  j->tape->fork([&] { a.emplace(f()); }, [&] { b.emplace(g()); });
  return {std::move(*a), std::move(*b)};
}

// Runs body(i) for i in [lo, hi) by recursive halving into forks down to `grain` iterations (the
// parmap of paper 003's particles benchmark). Iterations must be independent.
template <class F>
void parallel_for(std::size_t lo, std::size_t hi, std::size_t grain, F&& body) {
  Job* j = tl_job;
  if (hi - lo <= (grain == 0 ? 1 : grain) || hi <= lo || !j) {
    for (std::size_t i = lo; i < hi; ++i) body(i);
    return;
  }
  std::size_t mid = lo + (hi - lo) / 2;
  j->tape->fork([&] { parallel_for(lo, mid, grain, body); },
                [&] { parallel_for(mid, hi, grain, body); });
}

}  // namespace adlab::ad::dualrev
