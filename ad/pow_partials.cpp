#include "ad/pow_partials.h"

#include <cmath>
#include <limits>

namespace adlab::ad {

using namespace ir;

namespace {
double min_normal(ElemType t) {
  return t == ElemType::F32 ? static_cast<double>(std::numeric_limits<float>::min())
                            : std::numeric_limits<double>::min();
}
}  // namespace

PowPartials pow_partials(Expr a, Expr b, Expr e) {
  const ElemType t = e->type.elem;
  Expr zero = Literal::make(0, t);
  Expr da = Binary::make(
      BinaryOp::Mul, b,
      Prim::make(PrimOp::Pow, {a, Binary::make(BinaryOp::Sub, b, Literal::make(1, t))}));
  Expr db = Binary::make(BinaryOp::Mul, e, Prim::make(PrimOp::Log, {a}));
  auto is_zero = [](Expr x) {
    return Binary::make(BinaryOp::Eq, x, Literal::make(0, x->type.elem));
  };
  // A literal operand decides a guard now (x^2 keeps its plain derivative 2 x).
  auto* la = a.as<Literal>();
  auto* lb = b.as<Literal>();
  // b a^(b-1) is NaN at b = 0 only where a^-1 overflows (|a| below the smallest normal): at b = 0
  // and an ordinary a the formula's own value, 0, is taken, so its derivative in b, a^-1,
  // survives a second differentiation (hvp at b = 0; decision 244: a guard on b alone lost it)
  Expr da_guarded;
  if (lb) {
    da_guarded = lb->value == 0 ? zero : da;
  } else if (la && !(std::fabs(la->value) < min_normal(a->type.elem))) {
    da_guarded = da;
  } else if (la) {  // a literal below the smallest normal: b alone decides
    da_guarded = Select::make(is_zero(b), zero, da);
  } else {
    Expr tiny_a = Binary::make(BinaryOp::Lt, Prim::make(PrimOp::Abs, {a}),
                               Literal::make(min_normal(a->type.elem), a->type.elem));
    da_guarded = Select::make(Binary::make(BinaryOp::And, is_zero(b), tiny_a), zero, da);
  }
  // a^b log a is log 0 * 0^b = NaN at a = 0, where 0^b is 0 for every b > 0
  Expr db_guarded = la ? (la->value == 0 ? zero : db) : Select::make(is_zero(a), zero, db);
  return {da_guarded, db_guarded};
}

}  // namespace adlab::ad
