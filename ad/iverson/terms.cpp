// Small IR helpers of the iverson strategy.
#include "ad/iverson/terms.h"

#include "ir/visitor.h"

namespace adlab::ad::iverson {

using namespace ir;

Expr index_var(const std::string& name) {
  return Var::make(name, Type::scalar(ElemType::I64));
}

Expr int_lit(std::int64_t v) {
  return Literal::make(static_cast<double>(v), ElemType::I64);
}

bool is_zero(Expr e) {
  auto* l = e.as<Literal>();
  return l && l->value == 0 && e->type.is_scalar();
}

bool is_one(Expr e) {
  auto* l = e.as<Literal>();
  return l && l->value == 1 && e->type.is_scalar();
}

Expr zero_like(Expr e) {
  return Literal::make(0, e->type.elem);
}

Expr add(Expr a, Expr b) {
  if (is_zero(a)) return b;
  if (is_zero(b)) return a;
  return Binary::make(BinaryOp::Add, a, b);
}

Expr sub(Expr a, Expr b) {
  if (is_zero(b)) return a;
  if (is_zero(a)) return neg(b);
  return Binary::make(BinaryOp::Sub, a, b);
}

Expr mul(Expr a, Expr b) {
  if (is_zero(a) || is_zero(b)) return zero_like(a);
  if (is_one(a)) return b;
  if (is_one(b)) return a;
  if (auto* u = a.as<Unary>(); u && u->op == UnaryOp::Neg) return neg(mul(u->a, b));
  if (auto* u = b.as<Unary>(); u && u->op == UnaryOp::Neg) return neg(mul(a, u->a));
  return Binary::make(BinaryOp::Mul, a, b);
}

Expr div(Expr a, Expr b) {
  if (is_zero(a)) return a;
  if (is_one(b)) return a;
  return Binary::make(BinaryOp::Div, a, b);
}

Expr neg(Expr a) {
  if (is_zero(a)) return a;
  if (auto* u = a.as<Unary>(); u && u->op == UnaryOp::Neg) return u->a;
  return Unary::make(UnaryOp::Neg, a);
}

Expr fold_arith(BinaryOp op, Expr a, Expr b) {
  switch (op) {
    case BinaryOp::Add:
      return add(a, b);
    case BinaryOp::Sub:
      return sub(a, b);
    case BinaryOp::Mul:
      return mul(a, b);
    case BinaryOp::Div:
      return div(a, b);
    default:
      return Expr();
  }
}

Expr conj(const std::vector<Expr>& atoms) {
  Expr p;
  for (auto a : atoms) p = p.defined() ? Binary::make(BinaryOp::And, p, a) : a;
  return p.defined() ? p : Literal::make(1, ElemType::Bool);
}

Expr guard(const std::vector<Expr>& atoms, Expr e) {
  if (atoms.empty() || is_zero(e)) return e;
  return Iverson::make(conj(atoms), e);
}

Expr read(Expr base, const std::vector<Expr>& idx) {
  return idx.empty() ? base : Access::make(base, idx);
}

Expr gen_over(const std::vector<Binder>& binders, Expr body) {
  if (binders.empty()) return body;
  Domain d;
  for (const auto& b : binders) {
    d.vars.push_back(b.var);
    d.bounds.push_back(b.bound);
  }
  return Gen::make(d, body);
}

Expr sum_over(const std::vector<Binder>& binders, Expr body) {
  if (binders.empty() || is_zero(body)) return body;
  Domain d;
  for (const auto& b : binders) {
    d.vars.push_back(b.var);
    d.bounds.push_back(b.bound);
  }
  return Reduce::make(ReduceOp::Sum, d, body);
}

std::vector<Expr> vars_of(const std::vector<Binder>& binders) {
  std::vector<Expr> out;
  for (const auto& b : binders) out.push_back(b.var);
  return out;
}

std::vector<Expr> range_facts(const std::vector<Binder>& binders) {
  std::vector<Expr> out;
  for (const auto& b : binders) {
    out.push_back(Binary::make(BinaryOp::Le, int_lit(0), b.var));
    out.push_back(Binary::make(BinaryOp::Lt, b.var, b.bound));
  }
  return out;
}

Expr reached_condition(const std::vector<Binder>& dropped, const std::vector<Expr>& unkept) {
  if (dropped.empty()) return Expr();
  bool nested = false;
  for (const auto& b : dropped)
    for (const auto& o : dropped) nested = nested || is_free_in(o.var, b.bound);
  if (unkept.empty() && !nested) {
    std::vector<Expr> atoms;
    for (const auto& b : dropped)
      if (auto* l = b.bound.as<Literal>(); !l || l->value <= 0)
        atoms.push_back(Binary::make(BinaryOp::Lt, int_lit(0), b.bound));
    return atoms.empty() ? Expr() : conj(atoms);
  }
  Domain dom;
  dom.vars = vars_of(dropped);
  for (const auto& b : dropped) dom.bounds.push_back(b.bound);
  return Exists::make(dom, conj(unkept));
}

}  // namespace adlab::ad::iverson
