// The predicate service (DESIGN 4.1): emptiness, equivalence, implication, single solutions and
// `exists` projection over index predicates. Common affine cases are decided by a fast path
// without Z3; the rest go to Z3 (linear integer arithmetic, data accesses as uninterpreted
// functions). Strategies and the rewrite engine ask it; checker/smt tests it against Z3.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ir/expr.h"

namespace adlab::ir::logic {

enum class Answer { Yes, No, Unknown };
const char* answer_name(Answer a);

struct PredicateStats {
  std::uint64_t fast = 0;     // decided by the affine fast path
  std::uint64_t solver = 0;   // decided by Z3
  std::uint64_t unknown = 0;  // Z3 gave up (timeout)
};

class PredicateService {
 public:
  explicit PredicateService(unsigned timeout_ms = 2000) : timeout_ms_(timeout_ms) {}

  // Whether `facts` (boolean expressions assumed true) imply `goal`.
  Answer implies(const std::vector<Expr>& facts, Expr goal);
  // Whether p and q agree wherever `facts` hold.
  Answer equivalent(Expr p, Expr q, const std::vector<Expr>& facts = {});
  // Whether p holds nowhere where `facts` hold.
  Answer is_empty(Expr p, const std::vector<Expr>& facts = {});
  // An expression `a` without `i` such that p forces i == a (a conjunct i == a, a == i or an
  // affine equality with coefficient +-1 on i); nullopt when none is found.
  std::optional<Expr> solve_for(Expr p, Expr i);
  // exists[i < n] p without the quantifier when p forces i == a:
  // 0 <= a && a < n && p{i := a} (paper 000 errata 10, E∃); when p only bounds i (coefficient
  // +-1), every lower bound below every upper bound (`exists[i < n] i > 5` is `6 < n`);
  // otherwise the exists node itself.
  Expr project_exists(Expr exists_node);

  // The same questions decided by Z3 only (no fast path): for tests of the fast path.
  Answer implies_by_solver(const std::vector<Expr>& facts, Expr goal);

  const PredicateStats& stats() const { return stats_; }
  unsigned timeout_ms() const { return timeout_ms_; }

 private:
  std::optional<bool> implies_fast(const std::vector<Expr>& facts, Expr goal) const;
  unsigned timeout_ms_;
  PredicateStats stats_;
};

// The conjuncts of a predicate (a && b && c -> {a, b, c}).
std::vector<Expr> conjuncts(Expr p);

// Whether evaluating a cannot fail: no integer / or % by anything but a positive literal, no
// tensor read or scatter (its index may be out of range), no call, no `i64(...)` of a float, no max or min
// over a range that may be empty and no gen or scan whose bound may be negative (i64 overflow
// is not considered). Sum elimination evaluates a solved index where the sum evaluated it only
// inside a non-empty loop and after the conjuncts before its equation: a value that can fail
// must keep that place (decision 184); a dead let is dropped only if it cannot fail (197).
bool never_fails(Expr a);

}  // namespace adlab::ir::logic
