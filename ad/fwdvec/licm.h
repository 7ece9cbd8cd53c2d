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

// let stmts...; body as one expression.
ir::Expr wrap_lets(const std::vector<ir::Stmt>& stmts, ir::Expr body);

}  // namespace adlab::ad::fwdvec
