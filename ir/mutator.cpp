// Default mutation: rebuild from mutated children, reusing the node when nothing changed.
#include "ir/mutator.h"

#include "ir/context.h"

namespace adlab::ir {

namespace {
std::vector<Expr> mutate_all(Mutator& m, const std::vector<Expr>& es, bool& changed) {
  std::vector<Expr> out;
  out.reserve(es.size());
  for (auto e : es) {
    out.push_back(m.mutate(e));
    changed = changed || out.back() != e;
  }
  return out;
}

// Rebuilt nodes inherit the position of the node they replace (STYLE.md "Errors").
Expr inherit(Expr rebuilt, Expr self) {
  if (rebuilt != self) {
    SourcePos p = pos_of(self);
    if (p.valid() && !pos_of(rebuilt).valid()) at_pos(rebuilt, p);
  }
  return rebuilt;
}

}  // namespace

bool same_domain(const Domain& a, const Domain& b) {
  return a.vars == b.vars && a.bounds == b.bounds && a.source == b.source && a.prefix == b.prefix;
}

Expr Mutator::mutate(Expr e) {
  switch (e->kind) {
#define ADLAB_NODE(N) \
  case NodeKind::N:   \
    return inherit(mutate_node(static_cast<const N&>(*e), e), e);
#include "ir/node_kinds.def"
  }
  return e;
}

Type Mutator::mutate_type(const Type& t) {
  Type r = t;
  for (auto& d : r.dims) d = mutate(d);
  for (auto& f : r.fields) f = mutate_type(f);
  return r;
}

Domain Mutator::mutate_domain(const Domain& d) {
  Domain r;
  bool changed = false;
  r.vars = mutate_all(*this, d.vars, changed);
  r.bounds = mutate_all(*this, d.bounds, changed);
  r.source = d.source.defined() ? mutate(d.source) : Expr();
  r.prefix = mutate_all(*this, d.prefix, changed);
  return r;
}

Expr Mutator::mutate_node(const Literal&, Expr self) {
  return self;
}

Expr Mutator::mutate_node(const Var& n, Expr self) {
  Type t = mutate_type(n.type);
  return t == n.type ? self : Var::make(n.name, t);
}

Expr Mutator::mutate_node(const Unary& n, Expr self) {
  Expr a = mutate(n.a);
  return a == n.a ? self : Unary::make(n.op, a);
}

Expr Mutator::mutate_node(const Binary& n, Expr self) {
  Expr a = mutate(n.a), b = mutate(n.b);
  return a == n.a && b == n.b ? self : Binary::make(n.op, a, b);
}

Expr Mutator::mutate_node(const Prim& n, Expr self) {
  bool changed = false;
  auto args = mutate_all(*this, n.args, changed);
  return changed ? Prim::make(n.op, args) : self;
}

Expr Mutator::mutate_node(const Select& n, Expr self) {
  Expr c = mutate(n.cond), a = mutate(n.then_value), b = mutate(n.else_value);
  return c == n.cond && a == n.then_value && b == n.else_value ? self : Select::make(c, a, b);
}

Expr Mutator::mutate_node(const Iverson& n, Expr self) {
  Expr p = mutate(n.pred), b = mutate(n.body);
  return p == n.pred && b == n.body ? self : Iverson::make(p, b);
}

Expr Mutator::mutate_node(const Exists& n, Expr self) {
  Domain d = mutate_domain(n.dom);
  Expr p = mutate(n.pred);
  return same_domain(d, n.dom) && p == n.pred ? self : Exists::make(d, p);
}

Expr Mutator::mutate_node(const Nz& n, Expr self) {
  bool changed = false;
  Expr t = mutate(n.tensor);
  auto is = mutate_all(*this, n.indices, changed);
  return !changed && t == n.tensor ? self : Nz::make(t, is);
}

Expr Mutator::mutate_node(const Access& n, Expr self) {
  bool changed = false;
  Expr t = mutate(n.tensor);
  auto is = mutate_all(*this, n.indices, changed);
  return !changed && t == n.tensor ? self : Access::make(t, is);
}

Expr Mutator::mutate_node(const Gen& n, Expr self) {
  Domain d = mutate_domain(n.dom);
  Expr b = mutate(n.body);
  return same_domain(d, n.dom) && b == n.body ? self : Gen::make(d, b);
}

Expr Mutator::mutate_node(const Reduce& n, Expr self) {
  Domain d = mutate_domain(n.dom);
  Expr b = mutate(n.body);
  return same_domain(d, n.dom) && b == n.body ? self : Reduce::make(n.op, d, b);
}

Expr Mutator::mutate_node(const Scan& n, Expr self) {
  Domain d = mutate_domain(n.dom);
  Expr b = mutate(n.body);
  return same_domain(d, n.dom) && b == n.body ? self : Scan::make(n.op, d, b);
}

Expr Mutator::mutate_node(const Loop& n, Expr self) {
  bool changed = false;
  Domain d = mutate_domain(n.dom);
  auto s = mutate_all(*this, n.state, changed);
  auto i = mutate_all(*this, n.init, changed);
  Expr b = mutate(n.body);
  return !changed && same_domain(d, n.dom) && b == n.body ? self : Loop::make(d, s, i, b);
}

Expr Mutator::mutate_node(const Scatter& n, Expr self) {
  bool changed = false;
  Domain d = mutate_domain(n.dom);
  auto at = mutate_all(*this, n.at, changed);
  Expr v = mutate(n.value);
  Type t = mutate_type(n.type);
  return !changed && same_domain(d, n.dom) && v == n.value && t == n.type
             ? self
             : Scatter::make(d, t, at, v);
}

Expr Mutator::mutate_node(const Let& n, Expr self) {
  bool changed = false;
  auto vs = mutate_all(*this, n.vars, changed);
  Expr v = mutate(n.value), b = mutate(n.body);
  return !changed && v == n.value && b == n.body ? self : Let::make(vs, v, b);
}

Expr Mutator::mutate_node(const Tuple& n, Expr self) {
  bool changed = false;
  auto es = mutate_all(*this, n.elems, changed);
  return changed ? Tuple::make(es) : self;
}

Expr Mutator::mutate_node(const Proj& n, Expr self) {
  Expr t = mutate(n.tuple);
  return t == n.tuple ? self : Proj::make(t, n.index);
}

Expr Mutator::mutate_node(const Call& n, Expr self) {
  bool changed = false;
  auto as = mutate_all(*this, n.args, changed);
  return changed ? Call::make(n.callee, as) : self;
}

}  // namespace adlab::ir
