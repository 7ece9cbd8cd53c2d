// Partial derivatives of the primitives (paper 000 (6.8), (6.18)).
#include "ad/iverson/scalar_partials.h"

#include "ad/iverson/terms.h"
#include "ad/pow_partials.h"
#include "ad/saturating_partials.h"
#include "ad/strategy.h"
#include "ir/builder.h"
#include "ir/context.h"

namespace adlab::ad::iverson {

using namespace ir;

namespace {
Expr prim(PrimOp op, Expr a) {
  return Prim::make(op, {a});
}
Expr num(double v, Expr like) {
  return Literal::make(v, like->type.elem);
}
Expr cmp(BinaryOp op, Expr a, Expr b) {
  return Binary::make(op, a, b);
}
}  // namespace

Expr scalar_partial(Expr prim_node, std::size_t k, Expr g, Expr e) {
  auto* p = prim_node.as<Prim>();
  Expr a = p->args[0];
  switch (p->op) {
    case PrimOp::Exp:  // exp' = exp
      return mul(g, e);
    case PrimOp::Log:  // log' a = 1 / a
      return div(g, a);
    case PrimOp::Log1p:
      return div(g, add(num(1, a), a));
    case PrimOp::Expm1:
      return mul(g, prim(PrimOp::Exp, a));
    case PrimOp::Sin:
      return mul(g, prim(PrimOp::Cos, a));
    case PrimOp::Cos:
      return neg(mul(g, prim(PrimOp::Sin, a)));
    case PrimOp::Tan:  // 1 + tan^2
      return mul(g, add(num(1, a), mul(e, e)));
    case PrimOp::Tanh:  // 1 - tanh^2, or 4 s(2a) s(-2a) at saturation (saturating_partials.h)
      return mul(g, tanh_partial(a, e));
    case PrimOp::Sigmoid:  // (1 - tanh(a/2)^2) / 4, or s(a) s(-a) at saturation
      return mul(g, sigmoid_partial(a, e));
    case PrimOp::Sqrt:  // 1 / (2 sqrt a)
      return div(g, mul(num(2, a), e));
    case PrimOp::Abs:  // sign a (the kink at 0 takes the right derivative)
      return Select::make(cmp(BinaryOp::Lt, a, num(0, a)), neg(g), g);
    case PrimOp::Pow: {
      auto [da, db] = pow_partials(a, p->args[1], e);  // b a^(b-1), a^b log a, limits at 0
      return mul(g, k == 0 ? da : db);
    }
    case PrimOp::Min: {  // the interpreter's min(x, y) is y where y < x
      Expr y_taken = cmp(BinaryOp::Lt, p->args[1], a);
      return k == 0 ? Select::make(y_taken, num(0, a), g) : Select::make(y_taken, g, num(0, a));
    }
    case PrimOp::Max: {  // max(x, y) is y where x < y
      Expr y_taken = cmp(BinaryOp::Lt, a, p->args[1]);
      return k == 0 ? Select::make(y_taken, num(0, a), g) : Select::make(y_taken, g, num(0, a));
    }
    case PrimOp::ToF64:
    case PrimOp::ToF32:  // the identity up to rounding on a floating a: g, converted back
      return is_float(a->type.elem) ? dsl::to_float(g, a->type.elem) : num(0, g);
    case PrimOp::Floor:
    case PrimOp::Round:
    case PrimOp::ToI64:  // no derivative flows through a conversion from an integer (DESIGN 2.3)
      return num(0, g);
    default:
      break;
  }
  throw Unsupported(pos_of(prim_node),
                    std::string("iverson: `") + op_name(p->op) + "` has no derivative in the IR");
}

}  // namespace adlab::ad::iverson
