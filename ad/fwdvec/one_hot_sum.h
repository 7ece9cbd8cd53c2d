// One-hot sum elimination: the rule that makes one-hot seeded forward mode cheap. Paper 001 e4
// (single-hit loop) with the bounds condition the paper forgot (digest 001 section 4.5), in its
// summation form, paper 000 errata 10 (SE):
//   sum[..., v < n, ...] [v == a && q] * e  ->  sum[...] [0 <= a && a < n && q{v := a}] * e{v := a}
// when `a` mentions no index of the domain.
#pragma once

#include "ir/expr.h"

namespace adlab::ad::fwdvec {

// sum[dom] body with every index fixed by an equation of the body's bracket eliminated.
// `known`: an index variable and a bound with 0 <= var < bound known to hold (the direction
// index of gen[dir < k]); the range condition is dropped when it is exactly that.
ir::Expr one_hot_sum(const ir::Domain& dom, ir::Expr body, ir::Expr known_var = ir::Expr(),
                     ir::Expr known_bound = ir::Expr());

}  // namespace adlab::ad::fwdvec
