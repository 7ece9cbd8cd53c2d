// Forward mode's product of a tangent and a partial that can be infinite or NaN where the value is
// finite: sqrt and pow at a base of 0 (infinite), pow's exponent partial a^b log a at a negative
// base (NaN). Where the tangent is 0 nothing varies and the derivative is 0, as reverse mode finds
// (its adjoint of such a partial goes to a constant and is dropped); the plain product would be
// 0 * inf = NaN (decision 247: `sqrt(max(x, 0))` at x < 0, `pow(x, select(c, y, 0))` at x < 0).
#pragma once

#include "ir/expr.h"

namespace adlab::ad {

// whether a partial of `op` can be infinite or NaN at arguments where `op` itself is finite
bool partial_can_blow_up(ir::PrimOp op);

// select(tangent == 0, 0, product): `product` is the tangent times such a partial
ir::Expr zero_where_tangent_is_zero(ir::Expr tangent, ir::Expr product);

}  // namespace adlab::ad
