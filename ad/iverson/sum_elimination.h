// Summation elimination (paper 000 errata 10, rule SE): a sum whose bracket forces one of its
// indices to a single value loses that index; the value's range becomes a bracket (the guard the
// paper drops, errata 7). Shared by the normalisation of primal sums and by the adjoint rules.
#pragma once

#include <vector>

#include "ad/iverson/terms.h"
#include "ir/logic/predicates.h"

namespace adlab::ad::iverson {

// sum[binders] [atoms] * factor, the form every adjoint contribution (6.28, 6.29) takes.
struct SumTerm {
  std::vector<Binder> binders;
  std::vector<ir::Expr> atoms;  // a conjunction
  ir::Expr factor;              // scalar
  // How many of the binders enclose each atom (`[p] * sum[j < n] [q] * e`: 0 for p, 1 for q);
  // empty: every atom is inside them all. Elimination keeps what can fail behind what protected
  // it in the original (decision 189).
  std::vector<std::size_t> depths = {};
};

// The term with every single-solution index eliminated, brackets that `facts` (and the remaining
// binders' ranges) prove dropped, a bracket that no remaining index mentions hoisted out of the
// sum (so a false one costs nothing), and indices the body does not mention turned into a factor
// (sum[i < n] c = n * c). A term whose brackets are provably empty is the literal 0.
ir::Expr eliminate_sums(SumTerm t, const std::vector<ir::Expr>& facts,
                        ir::logic::PredicateService& logic);

// A sum expression (possibly under brackets, possibly nested sums) as a SumTerm.
SumTerm as_sum_term(ir::Expr sum);

}  // namespace adlab::ad::iverson
