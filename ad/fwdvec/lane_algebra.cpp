// Zero-aware tangent arithmetic with bracket lifting (paper 000 P11, paper 001 Fig. 8b b1-b3).
#include "ad/fwdvec/lane_algebra.h"

#include "ad/strong_zero.h"

namespace adlab::ad::fwdvec {

using namespace ir;

Expr f_lit(double v, ElemType elem) {
  return Literal::make(v, elem);
}

namespace {
const Iverson* bracket_of(Expr e) {
  return e.defined() && e->type.is_scalar() ? e.as<Iverson>() : nullptr;
}
}  // namespace

Expr t_and(Expr p, Expr q) {
  if (!p.defined()) return q;
  if (!q.defined()) return p;
  return Binary::make(BinaryOp::And, p, q);
}

Expr t_bracket(Expr pred, Expr t) {
  if (!t.defined()) return t;
  if (auto* b = bracket_of(t)) return Iverson::make(t_and(pred, b->pred), b->body);
  return Iverson::make(pred, t);
}

Expr t_add(Expr a, Expr b) {
  if (!a.defined()) return b;
  if (!b.defined()) return a;
  auto *ba = bracket_of(a), *bb = bracket_of(b);
  if (ba && bb && ba->pred == bb->pred)  // [p] * x + [p] * y -> [p] * (x + y)
    return Iverson::make(ba->pred, Binary::make(BinaryOp::Add, ba->body, bb->body));
  return Binary::make(BinaryOp::Add, a, b);
}

Expr t_neg(Expr a) {
  if (!a.defined()) return a;
  if (auto* b = bracket_of(a)) return Iverson::make(b->pred, t_neg(b->body));
  if (auto* l = a.as<Literal>()) return Literal::make(-l->value, a->type.elem);
  return Unary::make(UnaryOp::Neg, a);
}

Expr t_sub(Expr a, Expr b) {
  if (!b.defined()) return a;
  if (!a.defined()) return t_neg(b);
  auto *ba = bracket_of(a), *bb = bracket_of(b);
  if (ba && bb && ba->pred == bb->pred)
    return Iverson::make(ba->pred, Binary::make(BinaryOp::Sub, ba->body, bb->body));
  return Binary::make(BinaryOp::Sub, a, b);
}

Expr t_scale(Expr t, Expr p) {
  if (!t.defined()) return t;
  if (is_literal(p, 1)) return t;  // b2
  if (auto* b = bracket_of(t)) {
    if (is_literal(b->body, 1)) return Iverson::make(b->pred, p);  // [q] * 1 * p -> [q] * p
    return Iverson::make(b->pred, t_scale(b->body, p));
  }
  if (is_literal(t, 1)) return p;
  return Binary::make(BinaryOp::Mul, t, p);
}

Expr t_div(Expr t, Expr p) {
  if (!t.defined()) return t;
  if (auto* b = bracket_of(t)) return Iverson::make(b->pred, t_div(b->body, p));
  return Binary::make(BinaryOp::Div, t, p);
}

namespace {
// `times` applied under the tangent's brackets, guarded where the bracket's body is 0
template <class Times>
Expr strong(Expr t, Expr blows_up, const Times& times) {
  if (!t.defined()) return t;
  if (auto* b = bracket_of(t)) return Iverson::make(b->pred, strong(b->body, blows_up, times));
  return zero_where_tangent_is_zero(t, blows_up, times(t));
}
}  // namespace

Expr t_scale_strong(Expr t, Expr p, Expr blows_up) {
  return strong(t, blows_up, [&](Expr u) { return t_scale(u, p); });
}

Expr t_div_strong(Expr t, Expr p, Expr blows_up) {
  return strong(t, blows_up, [&](Expr u) { return t_div(u, p); });
}

Expr t_select(Expr c, Expr a, Expr b, ElemType elem) {
  if (!a.defined() && !b.defined()) return a;
  if (!a.defined()) a = f_lit(0, elem);
  if (!b.defined()) b = f_lit(0, elem);
  return Select::make(c, a, b);
}

}  // namespace adlab::ad::fwdvec
