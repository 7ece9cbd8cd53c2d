#include "ad/saturating_partials.h"

namespace adlab::ad {

using namespace ir;

namespace {
Expr sigmoid_of(Expr x) {
  return Prim::make(PrimOp::Sigmoid, {x});
}
Expr times(Expr a, Expr b) {
  return Binary::make(BinaryOp::Mul, a, b);
}
}  // namespace

Expr sigmoid_partial(Expr x, Expr s) {
  return times(s, sigmoid_of(Unary::make(UnaryOp::Neg, x)));
}

Expr tanh_partial(Expr x) {
  const ElemType t = x->type.elem;
  Expr two_x = times(Literal::make(2, t), x);
  return times(Literal::make(4, t), sigmoid_partial(two_x, sigmoid_of(two_x)));
}

}  // namespace adlab::ad
