// The derivatives of tanh and sigmoid as IR, from their argument rather than their value, shared
// by the strategies that emit derivative code (iverson, scatter, fwdvec); dualrev and sparse use
// the same formulas on doubles (ir::math::tanh_derivative, sigmoid_derivative in
// ir/interp/scalar.h). 1 - tanh^2 and s (1 - s) lose the derivative to the rounding of the value
// once it saturates: tanh'(15) came out 1.7e-4 off, sigmoid'(30) 1e-3 (decision 221).
#pragma once

#include "ir/expr.h"

namespace adlab::ad {

// sigmoid'(x) = sigmoid(x) sigmoid(-x); `s` is sigmoid(x) itself, reused
ir::Expr sigmoid_partial(ir::Expr x, ir::Expr s);

// tanh'(x) = 4 sigmoid(2x) sigmoid(-2x)
ir::Expr tanh_partial(ir::Expr x);

}  // namespace adlab::ad
