#include "ir/rewrite/pattern.h"

#include <cmath>

#include "ir/affine.h"
#include "ir/context.h"
#include "ir/mutator.h"
#include "ir/substitute.h"
#include "ir/visitor.h"

namespace adlab::ir::rewrite {

namespace {

bool sort_accepts(Sort s, Expr term) {
  const Type& t = term->type;
  switch (s) {
    case Sort::Scalar:
      return t.is_float_scalar();
    case Sort::Value:
      return !t.is_bool();
    case Sort::IndexVar:
    case Sort::LetVar:
      return term.as<Var>() != nullptr;
    case Sort::IndexExpr:
    case Sort::Size:
      return t.is_index();
    case Sort::Pred:
      return t.is_bool();
    case Sort::Tensor:
      return true;  // checked against the declared type by the caller
  }
  return false;
}

// The node's own data besides its children: operators, literal values, projections, callees.
bool same_head(Expr p, Expr t) {
  if (p->kind != t->kind) return false;
  switch (p->kind) {
    case NodeKind::Literal: {
      auto *a = p.as<Literal>(), *b = t.as<Literal>();
      bool pf = is_float(p->type.elem) || p->flexible, tf = is_float(t->type.elem) || t->flexible;
      if (p->type.elem == ElemType::Bool || t->type.elem == ElemType::Bool)
        return p->type.elem == t->type.elem && a->value == b->value;
      // -0.0 == 0.0, but a rule proved for 0 (sub-zero: x - 0 = x) is false for -0.0
      return a->value == b->value && std::signbit(a->value) == std::signbit(b->value) &&
             (pf == tf || p->flexible || t->flexible);
    }
    case NodeKind::Var:
      return p == t;
    case NodeKind::Unary:
      return p.as<Unary>()->op == t.as<Unary>()->op;
    case NodeKind::Binary:
      return p.as<Binary>()->op == t.as<Binary>()->op;
    case NodeKind::Prim:
      return p.as<Prim>()->op == t.as<Prim>()->op;
    case NodeKind::Reduce:
      return p.as<Reduce>()->op == t.as<Reduce>()->op &&
             p.as<Reduce>()->dom.vars.size() == t.as<Reduce>()->dom.vars.size() &&
             p.as<Reduce>()->dom.is_stored() == t.as<Reduce>()->dom.is_stored();
    case NodeKind::Scan:
      return p.as<Scan>()->op == t.as<Scan>()->op;
    case NodeKind::Gen:
      return p.as<Gen>()->dom.vars.size() == t.as<Gen>()->dom.vars.size();
    case NodeKind::Exists:
      return p.as<Exists>()->dom.vars.size() == t.as<Exists>()->dom.vars.size();
    case NodeKind::Proj:
      return p.as<Proj>()->index == t.as<Proj>()->index;
    case NodeKind::Call:
      return p.as<Call>()->callee == t.as<Call>()->callee;
    case NodeKind::Let:
      return p.as<Let>()->vars.size() == t.as<Let>()->vars.size();
    case NodeKind::Loop:
      return p.as<Loop>()->state.size() == t.as<Loop>()->state.size();
    case NodeKind::Scatter:
      return p->type.dims.size() == t->type.dims.size() && p->type.elem == t->type.elem;
    default:
      return true;
  }
}

class Instantiate : public Mutator {
 public:
  Instantiate(const Rule& r, Bindings& b) : r_(r), b_(b) {}
  // No position inheritance: the pattern's positions are the rule text's, not the program's.
  Expr mutate(Expr e) override {
    switch (e->kind) {
#define ADLAB_NODE(N) \
  case NodeKind::N:   \
    return mutate_node(static_cast<const N&>(*e), e);
#include "ir/node_kinds.def"
    }
    return e;
  }

 protected:
  using Mutator::mutate_node;
  Expr mutate_node(const Var& n, Expr self) override {
    if (!is_pattern_var(self)) return self;
    auto it = b_.find(self);
    if (it != b_.end()) return it->second;
    Sort s = sort_of(self, r_);
    if (s == Sort::IndexVar) {  // a binder the left side did not bind: fresh
      std::string base = n.name.substr(1);
      Expr v = Var::make(Context::current().fresh_name(base), Type::scalar(ElemType::I64));
      b_[self] = v;
      return v;
    }
    throw Error("rule `" + r_.name() + "`: `" + n.name +
                "` is unbound when building the right side");
  }
  Expr mutate_node(const Let& n, Expr self) override {
    if (n.vars.size() == 1 && is_pattern_var(n.vars[0])) {
      Sort s = sort_of(n.vars[0], r_);
      Expr value = mutate(n.value);
      if (s == Sort::IndexVar) {  // let ?i = a; e  is  e{i := a}
        auto it = b_.find(n.vars[0]);
        Expr body = mutate(n.body);
        if (it == b_.end()) return body;  // ?i bound nowhere: e does not mention it
        return substitute(body, it->second, value);
      }
      if (!b_.count(n.vars[0])) {
        std::string base = var_name(n.vars[0]).substr(1);
        b_[n.vars[0]] = Var::make(Context::current().fresh_name(base), value->type);
      }
      Expr var = b_.at(n.vars[0]);
      return Let::make({var}, value, mutate(n.body));
    }
    return Mutator::mutate_node(n, self);
  }

 private:
  const Rule& r_;
  Bindings& b_;
};

}  // namespace

bool match(const Rule& r, Expr pattern, Expr term, Bindings& b) {
  if (is_pattern_var(pattern)) {
    auto it = b.find(pattern);
    if (it != b.end()) return it->second == term;
    const PatternVar* pv = r.find_var(pattern);
    if (!pv || !sort_accepts(pv->sort, term)) return false;
    if (pv->sort == Sort::Tensor) {
      const Type &want = pattern->type, &got = term->type;
      if (want.rank() != got.rank() || want.elem != got.elem || want.storage != got.storage)
        return false;
      for (std::size_t k = 0; k < want.rank(); ++k)
        if (!match(r, want.dims[k], got.dims[k], b)) return false;
    }
    b[pattern] = term;
    return true;
  }
  if (!same_head(pattern, term)) return false;
  if (pattern->kind == NodeKind::Scatter)
    for (std::size_t k = 0; k < pattern->type.dims.size(); ++k)
      if (!match(r, pattern->type.dims[k], term->type.dims[k], b)) return false;
  auto pc = children(pattern), tc = children(term);
  if (pc.size() != tc.size()) return false;
  for (std::size_t k = 0; k < pc.size(); ++k)
    if (!match(r, pc[k], tc[k], b)) return false;
  return true;
}

Expr instantiate(const Rule& r, Expr pattern, Bindings& b) {
  Instantiate inst(r, b);
  return inst.mutate(pattern);
}

}  // namespace adlab::ir::rewrite
