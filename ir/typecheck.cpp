// Whole-function checks: scoping, size-only shapes, affine bounds, declared results (DESIGN 2.2).
#include "ir/typecheck.h"

#include <algorithm>

#include "ir/affine.h"
#include "ir/context.h"
#include "ir/substitute.h"
#include "ir/syntax/printer.h"
#include "ir/visitor.h"

namespace adlab::ir {

namespace {

// The construct's name as written in `.adl`.
std::string construct_name(Expr e) {
  switch (e->kind) {
    case NodeKind::Gen:
      return "gen";
    case NodeKind::Scan:
      return "scan";
    case NodeKind::Loop:
      return "loop";
    case NodeKind::Scatter:
      return "scatter";
    case NodeKind::Exists:
      return "exists";
    case NodeKind::Reduce: {
      auto op = e.as<Reduce>()->op;
      return op == ReduceOp::Sum ? "sum" : op == ReduceOp::Max ? "max" : "min";
    }
    default:
      return kind_name(e->kind);
  }
}

class Checker {
 public:
  explicit Checker(const Function& f) : f_(f) {
    for (auto s : f.sizes) sizes_.insert(s);
    for (auto p : f.params) bound_.insert(p);
    for (auto s : f.sizes) bound_.insert(s);
  }

  void run() {
    for (const auto& s : f_.stmts) {
      check(s.value);
      for (auto v : s.vars) {
        check_size_dims(v->type, v);
        bind(v);
      }
    }
    for (auto r : f_.results) check(r);
    std::vector<Type> got;
    for (auto r : f_.results) got.push_back(r->type);
    Type want = f_.result_type;
    bool ok;
    if (f_.results.size() == 1) {
      ok = same_shape(got[0], want) && got[0].storage == want.storage;
    } else {
      ok = want.is_tuple() && want.dims.empty() && want.fields.size() == got.size();
      for (std::size_t k = 0; ok && k < got.size(); ++k)
        ok = same_shape(got[k], want.fields[k]) && got[k].storage == want.fields[k].storage;
    }
    if (!ok) {
      std::string g = got.size() == 1 ? type_str(got[0]) : type_str(Type::tuple(got));
      throw Error(
          f_.result_pos.valid() ? f_.result_pos : f_.pos,
          "`" + f_.name + "` is declared to return " + type_str(want) + " but returns " + g);
    }
  }

 private:
  [[noreturn]] void fail(Expr at, const std::string& msg) {
    SourcePos p = pos_of(at, f_.pos.source);
    throw Error(p.valid() ? p : f_.pos, msg);
  }

  bool only_sizes(Expr e) {
    for (auto v : free_vars(e))
      if (!sizes_.count(v)) return false;
    return true;
  }

  void check_size_dims(const Type& t, Expr at) {
    for (auto d : t.dims)
      if (!only_sizes(d))
        fail(at, "the shape " + type_str(t) + " of `" + expr_str(at) +
                     "` depends on a value that is not a size (shapes must be size expressions)");
    for (const auto& f : t.fields) check_size_dims(f, at);
  }

  // Whether e depends on an enclosing index (directly, or through a let bound from one).
  bool index_dependent(Expr e) {
    for (auto v : free_vars(e))
      if (dependent_.count(v)) return true;
    return false;
  }
  void note_let(Expr var, Expr value) {
    if (index_dependent(value)) dependent_.insert(var);
  }

  // Bounds of sum/max/min/loop may be affine in enclosing indices (triangular loops); a
  // non-affine part (idx[0], n * m, a let of data) must not depend on an enclosing index.
  void check_affine_bound(Expr b, Expr owner) {
    auto a = to_affine(b, true);
    if (!a) fail(b, "bound `" + expr_str(b) + "` is not an integer expression");
    for (auto& [atom, c] : a->coeffs) {
      bool ok = atom.as<Var>() ? !dependent_.count(atom) || index_vars_.count(atom)
                               : !index_dependent(atom);
      if (!ok)
        fail(atom.as<Var>() ? owner : atom, "bound `" + expr_str(b) + "` of " +
                                                construct_name(owner) +
                                                " must be affine in the enclosing indices: `" +
                                                expr_str(atom) + "` is not affine");
    }
  }

  void check_domain(const Domain& d, Expr owner, bool size_only_bounds) {
    if (d.is_stored()) {
      check(d.source);
      for (auto p : d.prefix) check(p);
    }
    for (std::size_t k = 0; k < d.vars.size(); ++k) {
      if (k < d.bounds.size()) {
        check(d.bounds[k]);
        if (size_only_bounds && !only_sizes(d.bounds[k]))
          fail(owner, std::string("the bound `") + expr_str(d.bounds[k]) + "` of " +
                          construct_name(owner) +
                          " must be a size expression: it is the shape (sizes, literals and i64 "
                          "parameters that a type uses as a size)");
        check_affine_bound(d.bounds[k], owner);
      }
      bind(d.vars[k]);
      index_vars_.insert(d.vars[k]);
      dependent_.insert(d.vars[k]);
    }
  }

  // A name bound where it is already in scope would be unbound with the inner binder and leave
  // the outer one's later uses "unknown" (the language has no shadowing; SYNTAX.md).
  void bind(Expr v) {
    if (!bound_.insert(v).second)
      fail(v, "`" + var_name(v) + "` is bound here while already in scope (no shadowing)");
  }

  void unbind(const std::vector<Expr>& vs) {
    for (auto v : vs) {
      bound_.erase(v);
      index_vars_.erase(v);
      dependent_.erase(v);
    }
  }

  void check(Expr e) {
    switch (e->kind) {
      case NodeKind::Var:
        if (!bound_.count(e)) fail(e, "unknown name `" + var_name(e) + "` here (not in scope)");
        return;
      case NodeKind::Gen: {
        auto* g = e.as<Gen>();
        check_domain(g->dom, e, true);
        check(g->body);
        unbind(g->dom.vars);
        return;
      }
      case NodeKind::Reduce: {
        auto* r = e.as<Reduce>();
        check_domain(r->dom, e, false);
        check(r->body);
        unbind(r->dom.vars);
        return;
      }
      case NodeKind::Scan: {
        auto* s = e.as<Scan>();
        check_domain(s->dom, e, true);
        check(s->body);
        unbind(s->dom.vars);
        return;
      }
      case NodeKind::Exists: {
        auto* x = e.as<Exists>();
        check_domain(x->dom, e, false);
        check(x->pred);
        unbind(x->dom.vars);
        return;
      }
      case NodeKind::Loop: {
        auto* l = e.as<Loop>();
        for (auto i : l->init) check(i);
        check_domain(l->dom, e, false);
        for (auto s : l->state) {
          bind(s);
          dependent_.insert(s);  // the state changes from one iteration to the next
        }
        check(l->body);
        unbind(l->dom.vars);
        unbind(l->state);
        return;
      }
      case NodeKind::Scatter: {
        auto* s = e.as<Scatter>();
        check_size_dims(s->type, e);
        check_domain(s->dom, e, true);
        for (auto a : s->at) check(a);
        check(s->value);
        unbind(s->dom.vars);
        return;
      }
      case NodeKind::Let: {
        auto* l = e.as<Let>();
        check(l->value);
        for (auto v : l->vars) {
          check_size_dims(v->type, v);
          bind(v);
          note_let(v, l->value);
        }
        check(l->body);
        unbind(l->vars);
        return;
      }
      default:
        for (auto c : children(e)) check(c);
    }
  }

  const Function& f_;
  VarSet sizes_;
  VarSet bound_;
  VarSet index_vars_;  // enclosing index variables (affine coefficients allowed)
  VarSet dependent_;   // index variables, loop state, and lets computed from them
};

}  // namespace

void check_function(const Function& f) {
  Checker(f).run();
}

}  // namespace adlab::ir
