// Loop-invariant code motion out of the direction loop gen[dir < k] (digest 001 section 4.8):
//   gen[dir < k] C[e]  ->  let x = e; gen[dir < k] C[x]     when dir is not free in e.
// Only subexpressions in strict positions move (never out of a select branch, a bracket's body or
// a binder's body), so the hoisted code is evaluated only where the loop body would have been;
// with k >= 1 that is the empty-loop condition of the digest.
#pragma once

#include <vector>

#include "ir/function.h"

namespace adlab::ad::fwdvec {

// `body` with its maximal `dir`-invariant strict subexpressions replaced by fresh variables bound
// in `out` (in evaluation order).
ir::Expr hoist_invariants(ir::Expr body, ir::Expr dir, std::vector<ir::Stmt>& out);

// LICM out of gen[vars < bounds] over user sizes, which may be empty: the statements of `inner`
// (the gen body's lets, in order) that mention no index of `vars` and no statement left behind
// move to `out` as `let x = select(0 < bounds..., value, 0)`, a lazy select, so an empty gen
// still evaluates nothing (digest 001 section 4.8's empty-loop condition, met by a guard).
void hoist_out_of_gen(std::vector<ir::Stmt>& inner, const std::vector<ir::Expr>& vars,
                      const std::vector<ir::Expr>& bounds, std::vector<ir::Stmt>& out);

// let stmts...; body as one expression.
ir::Expr wrap_lets(const std::vector<ir::Stmt>& stmts, ir::Expr body);

}  // namespace adlab::ad::fwdvec
