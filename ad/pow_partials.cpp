#include "ad/pow_partials.h"

namespace adlab::ad {

using namespace ir;

PowPartials pow_partials(Expr a, Expr b, Expr e) {
  const ElemType t = e->type.elem;
  Expr zero = Literal::make(0, t);
  Expr da = Binary::make(
      BinaryOp::Mul, b,
      Prim::make(PrimOp::Pow, {a, Binary::make(BinaryOp::Sub, b, Literal::make(1, t))}));
  Expr db = Binary::make(BinaryOp::Mul, e, Prim::make(PrimOp::Log, {a}));
  // A literal operand decides the guard now (x^2 keeps its plain derivative 2 x).
  auto guarded = [&](Expr operand, Expr partial) -> Expr {
    if (auto* l = operand.as<Literal>()) return l->value == 0 ? zero : partial;
    return Select::make(Binary::make(BinaryOp::Eq, operand, Literal::make(0, operand->type.elem)),
                        zero, partial);
  };
  return {guarded(b, da), guarded(a, db)};
}

}  // namespace adlab::ad
