// Expression-level adjoints, paper 002 section 4.9 (the PrimApp table of the implementation).
#include "ad/scatter/scalar_adjoint.h"

#include "ad/pow_partials.h"
#include "ad/saturating_partials.h"
#include "ad/scatter/kernel.h"
#include "ad/strategy.h"
#include "ir/builder.h"
#include "ir/context.h"
#include "ir/substitute.h"

namespace adlab::ad::scatter {

using namespace ir;

Expr mul(Expr a, Expr b) {
  if (is_literal(a, 1) && !a->flexible) return b;
  if (is_literal(b, 1) && !b->flexible) return a;
  return Binary::make(BinaryOp::Mul, a, b);
}

namespace {

Expr add(Expr a, Expr b) {
  return Binary::make(BinaryOp::Add, a, b);
}
Expr div(Expr a, Expr b) {
  return Binary::make(BinaryOp::Div, a, b);
}
Expr neg(Expr a) {
  return Unary::make(UnaryOp::Neg, a);
}
Expr prim(PrimOp op, Expr a) {
  return Prim::make(op, {a});
}
Expr lit(double v, ElemType e) {
  return Literal::make(v, e);
}

class Adjoint {
 public:
  Adjoint(const IsActive& active, std::vector<Contribution>& out, Expr root, Expr stored)
      : active_(active), out_(out), root_(root), stored_(stored) {}

  bool depends(Expr e) {
    if (!is_float(e->type.elem) || !e->type.is_scalar()) return false;
    for (auto v : free_vars(e))
      if (active_(v)) return true;
    return false;
  }

  // Propagates adjoint g of scalar expression e under guard.
  void back(Expr e, Expr g, Expr guard) {
    if (!depends(e)) return;
    ElemType t = e->type.elem;
    switch (e->kind) {
      case NodeKind::Var:
        out_.push_back({e, {}, g, guard});
        return;
      case NodeKind::Access: {
        auto& n = *e.as<Access>();
        if (!n.tensor.as<Var>())
          throw Unsupported(pos_of(e), "scatter: an access of a non-variable");
        out_.push_back({n.tensor, n.indices, g, guard});
        return;
      }
      case NodeKind::Unary: {
        auto& n = *e.as<Unary>();
        back(n.a, neg(g), guard);  // adjoint of -a: -g
        return;
      }
      case NodeKind::Binary: {
        auto& n = *e.as<Binary>();
        switch (n.op) {
          case BinaryOp::Add:  // adjoint of a+b: (g, g)
            back(n.a, g, guard);
            back(n.b, g, guard);
            return;
          case BinaryOp::Sub:  // adjoint of a-b: (g, -g)
            back(n.a, g, guard);
            back(n.b, neg(g), guard);
            return;
          case BinaryOp::Mul:  // adjoint of a*b: (g*b, g*a)
            back(n.a, mul(g, n.b), guard);
            back(n.b, mul(g, n.a), guard);
            return;
          case BinaryOp::Div:  // adjoint of a/b: (g/b, -(g/b)(a/b))
            // not -g*a/(b*b): b*b overflows (or g*a underflows) where the adjoint does not
            // (b = 1e200: 0 instead of -1e-200 * g; decision 196)
            back(n.a, div(g, n.b), guard);
            back(n.b, neg(mul(div(g, n.b), div(n.a, n.b))), guard);
            return;
          default:
            return;  // comparisons, logic and % are discrete
        }
      }
      case NodeKind::Prim:
        prim_back(*e.as<Prim>(), e, g, guard, t);
        return;
      case NodeKind::Select: {  // only the taken branch passes its adjoint
        auto& n = *e.as<Select>();
        back(n.then_value, g, and_guard(guard, n.cond));
        back(n.else_value, g, and_guard(guard, Unary::make(UnaryOp::Not, n.cond)));
        return;
      }
      case NodeKind::Iverson: {  // a strong zero passes nothing where its predicate fails
        auto& n = *e.as<Iverson>();
        back(n.body, g, and_guard(guard, n.pred));
        return;
      }
      case NodeKind::Literal:
        return;
      default:
        throw Unsupported(pos_of(e), std::string("scatter: `") + kind_name(e->kind) +
                                         "` inside a scalar kernel body");
    }
  }

 private:
  const IsActive& active_;
  std::vector<Contribution>& out_;
  Expr root_, stored_;

  void prim_back(const Prim& n, Expr e, Expr g, Expr guard, ElemType t) {
    Expr x = n.args.empty() ? Expr() : n.args[0];
    if (e == root_ && stored_.defined()) e = stored_;
    switch (n.op) {
      case PrimOp::Exp:  // exp' = exp
        return back(x, mul(g, e), guard);
      case PrimOp::Log:  // log' = 1/x
        return back(x, div(g, x), guard);
      case PrimOp::Log1p:
        return back(x, div(g, add(lit(1, t), x)), guard);
      case PrimOp::Expm1:
        return back(x, mul(g, prim(PrimOp::Exp, x)), guard);
      case PrimOp::Sin:
        return back(x, mul(g, prim(PrimOp::Cos, x)), guard);
      case PrimOp::Cos:
        return back(x, neg(mul(g, prim(PrimOp::Sin, x))), guard);
      case PrimOp::Tan:  // tan' = 1 + tan^2
        return back(x, mul(g, add(lit(1, t), mul(e, e))), guard);
      case PrimOp::Tanh:  // tanh' = 1 - tanh^2, or 4 s(2x) s(-2x) at saturation
        return back(x, mul(g, tanh_partial(x, e)), guard);
      case PrimOp::Sigmoid:  // s' = (1 - tanh(x/2)^2) / 4, or s(x) s(-x) at saturation
        return back(x, mul(g, sigmoid_partial(x, e)), guard);
      case PrimOp::Sqrt:  // sqrt' = 1 / (2 sqrt x)
        return back(x, div(g, mul(lit(2, t), e)), guard);
      case PrimOp::Abs:  // abs' = sign, +1 at 0 (digest 9.2 fold_3)
        return back(x, Select::make(Binary::make(BinaryOp::Lt, x, lit(0, t)), neg(g), g), guard);
      case PrimOp::Pow: {  // pow(a, b)' = (b pow(a, b-1), pow(a, b) log a)
        auto [da, db] = pow_partials(x, n.args[1], e);  // with the limits at 0
        back(x, mul(g, da), guard);
        back(n.args[1], mul(g, db), guard);
        return;
      }
      case PrimOp::Max:
      case PrimOp::Min: {  // max(a, b)' = a > b ? (g, 0) : (0, g) (paper 002 section 4.6 ties)
        // as !(a <= b): a NaN b is skipped by the interpreter's max, so a keeps g (decision 195)
        Expr c = Unary::make(UnaryOp::Not, n.op == PrimOp::Max
                                               ? Binary::make(BinaryOp::Le, x, n.args[1])
                                               : Binary::make(BinaryOp::Le, n.args[1], x));
        back(x, g, and_guard(guard, c));
        back(n.args[1], g, and_guard(guard, Unary::make(UnaryOp::Not, c)));
        return;
      }
      case PrimOp::ToF64:
      case PrimOp::ToF32:
        // f64(x) of a floating x is the identity up to rounding: its adjoint is g, converted
        // back; only a conversion from an integer is discrete
        if (is_float(x->type.elem)) back(x, dsl::to_float(g, x->type.elem), guard);
        return;
      case PrimOp::Floor:
      case PrimOp::Round:
      case PrimOp::ToI64:
      case PrimOp::Band:
      case PrimOp::Bxor:
        return;  // discrete: zero adjoint (paper 002 section 1)
      case PrimOp::Lgamma:
        throw Unsupported(pos_of(e), "scatter: the derivative of lgamma (digamma) has no IR form");
    }
  }
};

}  // namespace

void scalar_adjoint(Expr body, Expr seed, Expr guard, const IsActive& active,
                    std::vector<Contribution>& out, Expr stored) {
  Adjoint(active, out, body, stored).back(body, seed, guard);
}

}  // namespace adlab::ad::scatter
