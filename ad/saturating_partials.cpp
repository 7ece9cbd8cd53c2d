#include "ad/saturating_partials.h"

#include "ir/interp/scalar.h"

namespace adlab::ad {

using namespace ir;

namespace {
Expr prim(PrimOp op, Expr x) {
  return Prim::make(op, {x});
}
Expr bin(BinaryOp op, Expr a, Expr b) {
  return Binary::make(op, a, b);
}
Expr num(double v, Expr like) {
  return Literal::make(v, like->type.elem);
}
// where x x < limit, `near_zero`, else `saturating`
Expr by_size(Expr x, double limit, Expr near_zero, Expr saturating) {
  return Select::make(bin(BinaryOp::Lt, bin(BinaryOp::Mul, x, x), num(limit, x)), near_zero,
                      saturating);
}
}  // namespace

Expr tanh_partial(Expr x, Expr t) {
  Expr near_zero = bin(BinaryOp::Sub, num(1, x), bin(BinaryOp::Mul, t, t));
  Expr two_x = bin(BinaryOp::Mul, num(2, x), x);
  Expr saturating = bin(BinaryOp::Mul, num(4, x),
                        bin(BinaryOp::Mul, prim(PrimOp::Sigmoid, two_x),
                            prim(PrimOp::Sigmoid, Unary::make(UnaryOp::Neg, two_x))));
  return by_size(x, ir::math::kTanhNearZeroSquare, near_zero, saturating);
}

Expr sigmoid_partial(Expr x, Expr s) {
  Expr u = prim(PrimOp::Tanh, bin(BinaryOp::Div, x, num(2, x)));
  Expr near_zero =
      bin(BinaryOp::Div, bin(BinaryOp::Sub, num(1, x), bin(BinaryOp::Mul, u, u)), num(4, x));
  Expr saturating = bin(BinaryOp::Mul, s, prim(PrimOp::Sigmoid, Unary::make(UnaryOp::Neg, x)));
  return by_size(x, ir::math::kSigmoidNearZeroSquare, near_zero, saturating);
}

}  // namespace adlab::ad
