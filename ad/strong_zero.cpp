#include "ad/strong_zero.h"

namespace adlab::ad {

using namespace ir;

bool partial_can_blow_up(PrimOp op) {
  return op == PrimOp::Sqrt || op == PrimOp::Pow;
}

Expr zero_where_tangent_is_zero(Expr tangent, Expr product) {
  if (auto* l = tangent.as<Literal>(); l && l->value != 0) return product;
  const ElemType t = product->type.elem;
  return Select::make(Binary::make(BinaryOp::Eq, tangent, Literal::make(0, tangent->type.elem)),
                      Literal::make(0, t), product);
}

}  // namespace adlab::ad
