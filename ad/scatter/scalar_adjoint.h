// Expression-level reverse AD (paper 002 section 4.9): the adjoint of a binder-free scalar body,
// as one contribution per read of an active variable (an index site, the IAI tuple of 4.4).
#pragma once

#include <functional>
#include <vector>

#include "ir/expr.h"

namespace adlab::ad::scatter {

// adjoint `value` for the read `target[at...]` (at empty: a scalar variable), where `guard` holds.
struct Contribution {
  ir::Expr target;
  std::vector<ir::Expr> at;
  ir::Expr value;
  ir::Expr guard;  // undefined: always (the exec flag of the IAI tuple)
};

using IsActive = std::function<bool(ir::Expr var)>;

// Appends the contributions of `body` under the seed adjoint `seed`. Discrete values (i64, bool,
// floor, round, conversions, comparisons) pass no adjoint. Throws ad::Unsupported for a primitive
// without a derivative rule.
// `stored`, when defined, is the stored value of `body` itself (read instead of recomputed).
void scalar_adjoint(ir::Expr body, ir::Expr seed, ir::Expr guard, const IsActive& active,
                    std::vector<Contribution>& out, ir::Expr stored = ir::Expr());

// a * b with the multiplicative unit folded (exact).
ir::Expr mul(ir::Expr a, ir::Expr b);

}  // namespace adlab::ad::scatter
