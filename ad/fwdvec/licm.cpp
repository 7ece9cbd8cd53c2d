// Loop-invariant code motion out of the direction loop (digest 001 section 4.8, LICM).
#include "ad/fwdvec/licm.h"

#include <unordered_set>

#include "ir/context.h"
#include "ir/substitute.h"

namespace adlab::ad::fwdvec {

using namespace ir;

namespace {

class Hoister {
 public:
  Hoister(Expr dir, std::vector<Stmt>& out) : dir_(dir), out_(out) {}

  Expr run(Expr e) {
    if (invariant(e) && worth(e)) {
      Expr v = Var::make(Context::current().fresh_name("h"), e->type);
      out_.push_back(Stmt{{v}, e});
      return v;
    }
    switch (e->kind) {
      case NodeKind::Unary: {
        auto* u = e.as<Unary>();
        return Unary::make(u->op, run(u->a));
      }
      case NodeKind::Binary: {
        auto* b = e.as<Binary>();
        // `&&` and `||` evaluate their right side only when the left does not decide (the
        // interpreter short-circuits): `i > 0 && x[i - 1] > 0` must not hoist x[i - 1]
        if (b->op == BinaryOp::And || b->op == BinaryOp::Or)
          return Binary::make(b->op, run(b->a), b->b);
        return Binary::make(b->op, run(b->a), run(b->b));
      }
      case NodeKind::Prim: {
        auto* p = e.as<Prim>();
        std::vector<Expr> args;
        for (auto a : p->args) args.push_back(run(a));
        return Prim::make(p->op, args);
      }
      case NodeKind::Select: {  // the condition is strict, the branches are not
        auto* s = e.as<Select>();
        return Select::make(run(s->cond), s->then_value, s->else_value);
      }
      case NodeKind::Iverson: {
        auto* i = e.as<Iverson>();
        return Iverson::make(run(i->pred), i->body);
      }
      case NodeKind::Access: {
        auto* a = e.as<Access>();
        std::vector<Expr> idx;
        for (auto x : a->indices) idx.push_back(run(x));
        return Access::make(run(a->tensor), idx);
      }
      case NodeKind::Tuple: {
        auto* t = e.as<Tuple>();
        std::vector<Expr> es;
        for (auto x : t->elems) es.push_back(run(x));
        return Tuple::make(es);
      }
      case NodeKind::Proj: {
        auto* p = e.as<Proj>();
        return Proj::make(run(p->tuple), p->index);
      }
      case NodeKind::Let: {
        auto* l = e.as<Let>();
        if (l->vars.size() == 1 && invariant(l->value)) {
          // let-floating (paper 001 a4/a6): the binding leaves the loop, renamed apart
          Expr h = Var::make(Context::current().fresh_name(var_name(l->vars[0])), l->vars[0]->type);
          out_.push_back(Stmt{{h}, l->value});
          return run(substitute(l->body, l->vars[0], h));
        }
        Expr value = run(l->value);
        for (auto v : l->vars) bound_.insert(v);
        Expr body = run(l->body);
        for (auto v : l->vars) bound_.erase(v);
        return Let::make(l->vars, value, body);
      }
      default:
        return e;  // binders: their bodies may run zero times
    }
  }

 private:
  bool invariant(Expr e) const {
    for (auto v : free_vars(e))
      if (v == dir_ || bound_.count(v)) return false;
    return true;
  }
  static bool worth(Expr e) {
    switch (e->kind) {
      case NodeKind::Prim:
      case NodeKind::Reduce:
      case NodeKind::Loop:
      case NodeKind::Scan:
      case NodeKind::Gen:
      case NodeKind::Scatter:
      case NodeKind::Let:
      // a whole select in a strict position moves with its branches still lazy: tanh' and
      // sigmoid' pick their form by the argument's size (decision 223)
      case NodeKind::Select:
        return true;
      case NodeKind::Binary:
        return is_float(e->type.elem) && e->type.is_scalar();
      default:
        return false;
    }
  }

  Expr dir_;
  std::vector<Stmt>& out_;
  std::unordered_set<Expr, ExprHash> bound_;
};

}  // namespace

Expr hoist_invariants(Expr body, Expr dir, std::vector<Stmt>& out) {
  return Hoister(dir, out).run(body);
}

void hoist_out_of_gen(std::vector<Stmt>& inner, const std::vector<Expr>& vars,
                      const std::vector<Expr>& bounds, std::vector<Stmt>& out) {
  std::unordered_set<Expr, ExprHash> stay(vars.begin(), vars.end());
  Expr guard;
  for (auto b : bounds) {
    if (auto* l = b.as<Literal>(); l && l->value > 0) continue;
    Expr c = Binary::make(BinaryOp::Lt, Literal::make(0, ElemType::I64), b);
    guard = guard.defined() ? Binary::make(BinaryOp::And, guard, c) : c;
  }
  std::vector<Stmt> kept;
  for (const auto& st : inner) {
    bool movable = st.vars.size() == 1 && !st.vars[0]->type.is_tuple();
    if (movable)
      for (auto v : free_vars(st.value))
        if (stay.count(v)) movable = false;
    if (!movable) {
      for (auto v : st.vars) stay.insert(v);
      kept.push_back(st);
      continue;
    }
    Expr value = st.value;
    if (guard.defined()) {
      const Type& t = st.vars[0]->type;
      Expr zero = Literal::make(0, t.elem);
      if (!t.is_scalar()) {
        Domain d;
        for (auto dim : t.dims) {
          d.vars.push_back(
              Var::make(Context::current().fresh_name("z"), Type::scalar(ElemType::I64)));
          d.bounds.push_back(dim);
        }
        zero = Gen::make(d, zero);
      }
      value = Select::make(guard, value, zero);
    }
    out.push_back(Stmt{st.vars, value});
  }
  inner = kept;
}

Expr wrap_lets(const std::vector<Stmt>& stmts, Expr body) {
  for (auto it = stmts.rbegin(); it != stmts.rend(); ++it)
    body = Let::make(it->vars, it->value, body);
  return body;
}

}  // namespace adlab::ad::fwdvec
