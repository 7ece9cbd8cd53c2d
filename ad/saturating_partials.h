// The derivatives of tanh and sigmoid as IR, shared by the strategies that emit derivative code
// (iverson, scatter, fwdvec); dualrev and sparse compute the same formulas on doubles
// (ir::math::tanh_derivative, sigmoid_derivative in ir/interp/scalar.h). Each takes one of two
// forms by the size of x, both exact in real arithmetic:
//   - near saturation, from x: 1 - tanh^2 and s (1 - s) lose the derivative to the rounding of
//     the value (tanh'(15) was 1.7e-4 off, sigmoid'(30) 1e-3; decision 221);
//   - near 0, as a constant minus a square of the value: the product form's own derivative (the
//     second derivative an hvp takes of this code) cancels there (tanh''(1e-9) was 8e-8 off,
//     found by a reviewing helper; decision 223).
// The select is in the derivative code only, so it is no switch of the function being checked.
#pragma once

#include "ir/expr.h"

namespace adlab::ad {

// tanh'(x): 1 - t t where x x < 1/4, else 4 sigmoid(2x) sigmoid(-2x); `t` is tanh(x), reused
ir::Expr tanh_partial(ir::Expr x, ir::Expr t);

// sigmoid'(x): (1 - u u) / 4 with u = tanh(x / 2) where x x < 1, else s sigmoid(-x); `s` is
// sigmoid(x), reused
ir::Expr sigmoid_partial(ir::Expr x, ir::Expr s);

}  // namespace adlab::ad
