// Free variables and capture-avoiding substitution over every binder (gen, sum, scan, exists,
// loop, scatter, let).
#include "ir/substitute.h"

#include <algorithm>
#include <optional>

#include "ir/context.h"
#include "ir/mutator.h"
#include "ir/visitor.h"

namespace adlab::ir {

namespace {

// The variables a node binds, and which of its children they scope over.
struct Binding {
  std::vector<Expr> bound;
  std::vector<Expr> scoped;    // children under the binder
  std::vector<Expr> unscoped;  // children outside it (stored-entry source and prefix, loop init)
};

void bind_domain(Binding& b, const Domain& d) {
  b.bound.insert(b.bound.end(), d.vars.begin(), d.vars.end());
  // Rectangular bounds may use earlier index variables; no shadowing makes scoping them all safe.
  b.scoped.insert(b.scoped.end(), d.bounds.begin(), d.bounds.end());
  if (d.source.defined()) b.unscoped.push_back(d.source);
  b.unscoped.insert(b.unscoped.end(), d.prefix.begin(), d.prefix.end());
}

std::optional<Binding> binding_of(Expr e) {
  Binding b;
  switch (e->kind) {
    case NodeKind::Gen:
      bind_domain(b, e.as<Gen>()->dom);
      b.scoped.push_back(e.as<Gen>()->body);
      return b;
    case NodeKind::Reduce:
      bind_domain(b, e.as<Reduce>()->dom);
      b.scoped.push_back(e.as<Reduce>()->body);
      return b;
    case NodeKind::Scan:
      bind_domain(b, e.as<Scan>()->dom);
      b.scoped.push_back(e.as<Scan>()->body);
      return b;
    case NodeKind::Exists:
      bind_domain(b, e.as<Exists>()->dom);
      b.scoped.push_back(e.as<Exists>()->pred);
      return b;
    case NodeKind::Loop: {
      auto* l = e.as<Loop>();
      bind_domain(b, l->dom);
      b.bound.insert(b.bound.end(), l->state.begin(), l->state.end());
      b.unscoped.insert(b.unscoped.end(), l->init.begin(), l->init.end());
      b.scoped.push_back(l->body);
      return b;
    }
    case NodeKind::Scatter: {
      auto* s = e.as<Scatter>();
      bind_domain(b, s->dom);
      b.scoped.insert(b.scoped.end(), s->at.begin(), s->at.end());
      b.scoped.push_back(s->value);
      return b;
    }
    case NodeKind::Let: {
      auto* l = e.as<Let>();
      b.bound = l->vars;
      b.unscoped.push_back(l->value);
      b.scoped.push_back(l->body);
      return b;
    }
    default:
      return std::nullopt;
  }
}

void collect_free(Expr e, VarSet& bound, VarSet& seen, std::vector<Expr>& out) {
  if (e.as<Var>()) {
    if (!bound.count(e) && seen.insert(e).second) out.push_back(e);
    return;
  }
  if (auto b = binding_of(e)) {
    for (auto u : b->unscoped) collect_free(u, bound, seen, out);
    std::vector<Expr> added;
    for (auto v : b->bound)
      if (bound.insert(v).second) added.push_back(v);
    for (auto s : b->scoped) collect_free(s, bound, seen, out);
    for (auto v : added) bound.erase(v);
    return;
  }
  for (auto c : children(e)) collect_free(c, bound, seen, out);
}

class Substituter : public Mutator {
 public:
  explicit Substituter(const SubstMap& m) : map_(m) {
    for (auto& [from, to] : m)
      for (auto v : free_vars(to)) captured_.insert(v);
  }

  Expr mutate(Expr e) override {
    if (e.as<Var>()) {
      auto it = map_.find(e);
      if (it != map_.end()) return it->second;
      return Mutator::mutate(e);
    }
    if (map_.empty()) return e;
    auto b = binding_of(e);
    if (!b) return Mutator::mutate(e);
    // Rename binders that would capture, and stop substituting names the binder rebinds.
    SubstMap saved = map_;
    for (auto v : b->bound) {
      map_.erase(v);
      if (captured_.count(v)) {
        Expr fresh = Var::make(Context::current().fresh_name(var_name(v)), v->type);
        map_[v] = fresh;
      }
    }
    // Unscoped children (a let's value, a loop's init, a stored-entry source) see the outer map.
    SubstMap inner = map_;
    map_ = saved;
    SubstMap outer_for_unscoped = saved;
    Expr result = rebuild(e, inner, outer_for_unscoped);
    map_ = saved;
    return result;
  }

 private:
  Expr rebuild(Expr e, const SubstMap& inner, const SubstMap& outer) {
    auto with = [&](const SubstMap& m, Expr x) {
      SubstMap keep = map_;
      map_ = m;
      Expr r = mutate(x);
      map_ = keep;
      return r;
    };
    auto with_all = [&](const SubstMap& m, const std::vector<Expr>& xs) {
      std::vector<Expr> r;
      for (auto x : xs) r.push_back(with(m, x));
      return r;
    };
    auto domain = [&](const Domain& d) {
      Domain r;
      r.vars = with_all(inner, d.vars);
      r.bounds = with_all(inner, d.bounds);
      r.source = d.source.defined() ? with(outer, d.source) : Expr();
      r.prefix = with_all(outer, d.prefix);
      return r;
    };
    switch (e->kind) {
      case NodeKind::Gen:
        return Gen::make(domain(e.as<Gen>()->dom), with(inner, e.as<Gen>()->body));
      case NodeKind::Reduce: {
        auto* r = e.as<Reduce>();
        return Reduce::make(r->op, domain(r->dom), with(inner, r->body));
      }
      case NodeKind::Scan: {
        auto* s = e.as<Scan>();
        return Scan::make(s->op, domain(s->dom), with(inner, s->body));
      }
      case NodeKind::Exists:
        return Exists::make(domain(e.as<Exists>()->dom), with(inner, e.as<Exists>()->pred));
      case NodeKind::Loop: {
        auto* l = e.as<Loop>();
        return Loop::make(domain(l->dom), with_all(inner, l->state), with_all(outer, l->init),
                          with(inner, l->body));
      }
      case NodeKind::Scatter: {
        auto* s = e.as<Scatter>();
        SubstMap keep = map_;
        map_ = outer;
        Type t = mutate_type(s->type);
        map_ = keep;
        return Scatter::make(domain(s->dom), t, with_all(inner, s->at), with(inner, s->value));
      }
      case NodeKind::Let: {
        auto* l = e.as<Let>();
        return Let::make(with_all(inner, l->vars), with(outer, l->value), with(inner, l->body));
      }
      default:
        return Mutator::mutate(e);
    }
  }

  SubstMap map_;
  VarSet captured_;
};

// Renames a binder of a name bound around it (the whole node's children count as inside: a
// let's value renamed needlessly is still the same program).
class Unshadower : public Mutator {
 public:
  explicit Unshadower(VarSet around) : scope_(std::move(around)) {}
  Expr mutate(Expr e) override {
    std::vector<Expr> bound;
    if (auto b = binding_of(e)) bound = b->bound;
    if (bound.empty()) return Mutator::mutate(e);
    SubstMap rename;  // a replacement mentioning v makes substitute rename e's binder of v
    for (auto v : bound)
      if (scope_.count(v))
        rename[Var::make(Context::current().fresh_name("unshadow"), v->type)] = v;
    if (!rename.empty()) {
      e = substitute(e, rename);
      if (auto b = binding_of(e)) bound = b->bound;
    }
    std::vector<Expr> added;
    for (auto v : bound)
      if (scope_.insert(v).second) added.push_back(v);
    Expr r = Mutator::mutate(e);
    for (auto v : added) scope_.erase(v);
    return r;
  }

 private:
  VarSet scope_;
};

}  // namespace

Expr unshadow(Expr e, const VarSet& bound_around) {
  return Unshadower(bound_around).mutate(e);
}

void unshadow_statements(Function& f) {
  VarSet scope(f.params.begin(), f.params.end());
  scope.insert(f.sizes.begin(), f.sizes.end());
  for (auto& st : f.stmts) {
    st.value = unshadow(st.value, scope);
    scope.insert(st.vars.begin(), st.vars.end());
  }
  for (auto& r : f.results) r = unshadow(r, scope);
}

std::vector<Expr> free_vars(Expr e) {
  VarSet bound, seen;
  std::vector<Expr> out;
  collect_free(e, bound, seen, out);
  return out;
}

std::vector<Expr> bound_vars(Expr e, bool lets) {
  std::vector<Expr> out;
  VarSet seen, visited;  // visited: a shared subexpression is walked once
  std::vector<Expr> todo{e};
  while (!todo.empty()) {
    Expr x = todo.back();
    todo.pop_back();
    if (!visited.insert(x).second) continue;
    if (auto b = binding_of(x); b && (lets || x->kind != NodeKind::Let))
      for (auto v : b->bound)
        if (seen.insert(v).second) out.push_back(v);
    auto c = children(x);
    todo.insert(todo.end(), c.rbegin(), c.rend());
  }
  return out;
}

bool is_free_in(Expr var, Expr e) {
  auto fv = free_vars(e);
  return std::find(fv.begin(), fv.end(), var) != fv.end();
}

Expr substitute(Expr e, const SubstMap& m) {
  if (m.empty()) return e;
  Substituter s(m);
  return s.mutate(e);
}

Expr substitute(Expr e, Expr var, Expr replacement) {
  SubstMap m;
  m[var] = replacement;
  return substitute(e, m);
}

Type substitute_type(const Type& t, const SubstMap& m) {
  if (m.empty()) return t;
  Substituter s(m);
  return s.mutate_type(t);
}

}  // namespace adlab::ir
