#include "ad/strong_zero.h"

namespace adlab::ad {

using namespace ir;

bool partial_can_blow_up(PrimOp op) {
  return op == PrimOp::Sqrt || op == PrimOp::Pow;
}

Expr partial_blows_up(const Prim& prim, std::size_t k) {
  if (!partial_can_blow_up(prim.op)) return Expr();
  Expr a = prim.args[0];
  Expr zero = Literal::make(0, a->type.elem);
  if (prim.op == PrimOp::Sqrt) return Binary::make(BinaryOp::Eq, a, zero);
  if (k == 1) return Binary::make(BinaryOp::Lt, a, zero);  // log of a negative base
  Expr b = prim.args[1];
  return Binary::make(BinaryOp::And, Binary::make(BinaryOp::Eq, a, zero),
                      Binary::make(BinaryOp::Lt, b, Literal::make(1, b->type.elem)));
}

Expr zero_where_tangent_is_zero(Expr tangent, Expr blows_up, Expr product) {
  if (!blows_up.defined()) return product;
  if (auto* l = tangent.as<Literal>(); l && l->value != 0) return product;
  Expr still = Binary::make(BinaryOp::Eq, tangent, Literal::make(0, tangent->type.elem));
  return Select::make(Binary::make(BinaryOp::And, still, blows_up),
                      Literal::make(0, product->type.elem), product);
}

}  // namespace adlab::ad
