// Forward mode's product of a tangent and a partial that can be infinite or NaN where the value is
// finite: sqrt at 0 and pow's base partial at a base of 0 with an exponent below 1 (infinite),
// pow's exponent partial a^b log a at a negative base (NaN). Where the tangent is 0 there,
// nothing varies and the derivative is 0, as reverse mode finds (its adjoint of such a partial
// goes to a constant and is dropped); the plain product would be 0 * inf = NaN (decision 247:
// `sqrt(max(x, 0))` at x < 0, `pow(x, select(c, y, 0))` at x < 0).
// The guard holds only where the partial does blow up: a guard on the tangent alone also took
// the constant branch where the partial is finite and the tangent merely passes through 0, and a
// second differentiation (fwdvec's hvp) lost t' p there (sqrt(x^2 + 1) at x = 0 had hvp 0).
#pragma once

#include <cstddef>

#include "ir/expr.h"

namespace adlab::ad {

// whether a partial of `op` can be infinite or NaN at arguments where `op` itself is finite
bool partial_can_blow_up(ir::PrimOp op);

// where the partial of `prim` by its argument `k` is infinite or NaN with a finite value (sqrt:
// a == 0; pow by a: a == 0 && b < 1; pow by b: a < 0); null for a partial that never does
ir::Expr partial_blows_up(const ir::Prim& prim, std::size_t k);

// select(tangent == 0 && blows_up, 0, product): `product` is the tangent times that partial
ir::Expr zero_where_tangent_is_zero(ir::Expr tangent, ir::Expr blows_up, ir::Expr product);

}  // namespace adlab::ad
