// Flattening into kernels: paper 002 section 4.5, with call inlining and tuple elimination.
#include "ad/scatter/flatten.h"

#include <algorithm>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "ad/scatter/hull.h"
#include "ad/strategy.h"
#include "ir/affine.h"
#include "ir/context.h"
#include "ir/logic/predicates.h"
#include "ir/mutator.h"
#include "ir/substitute.h"
#include "ir/syntax/printer.h"

namespace adlab::ad::scatter {

using namespace ir;

namespace {

[[noreturn]] void unsupported(Expr e, const std::string& what) {
  throw Unsupported(pos_of(e), "scatter: " + what + " is not supported");
}

// What a local name stands for: a tuple of values, a tensor whose elements are
// base[prefix..., rest...], or a scalar expression valid in the current scope.
struct Val {
  std::vector<Val> fields;
  Expr base;
  std::vector<Expr> prefix;
  Expr scalar;
  bool is_tuple() const { return !fields.empty(); }
};

// The enclosing domain of an expression: rectangular hull bounds and the guard under which the
// expression is evaluated (branch conditions, brackets, triangular bounds).
struct Scope {
  std::vector<Expr> vars, hull;
  Expr guard;
  bool in_loop = false;          // inside a loop body: lets are inlined, never hoisted
  std::vector<Expr> loop_state;  // state variables that hoisted kernels must not read
};

class Flattener {
 public:
  Flattener(bool store, FreshNames& names) : store_(store), names_(names) {}

  FlatProgram run(const Function& f) {
    sizes_.insert(f.sizes.begin(), f.sizes.end());
    Scope top;
    for (const auto& st : f.stmts) bind(st.vars, flat(st.value, top), st.value, top);
    FlatProgram p;
    for (auto r : f.results) p.results.push_back(as_top_var(flat(r, top), r, top));
    p.kernels = std::move(kernels_);
    return p;
  }

 private:
  bool store_;
  FreshNames& names_;
  std::vector<Kernel> kernels_;
  std::unordered_set<Expr, ExprHash> sizes_;  // of the flattened function: what a shape may use
  std::unordered_map<Expr, Val, ExprHash> env_;

  // ---- kernels ----
  Expr new_kernel(Kernel k, const std::string& hint, Expr origin) {
    if (k.body.defined()) check_state_free(k.body, origin);
    if (k.init.defined()) check_state_free(k.init, origin);
    if (k.guard.defined()) check_state_free(k.guard, origin);  // a select on the state, too
    Type t = k.body->type;
    std::vector<Expr> dims = k.bounds;
    if (k.kind == KernelKind::Scan) dims.push_back(k.ibounds[0]);
    Type vt = dims.empty() ? Type::scalar(t.elem) : Type::tensor(t.elem, dims);
    k.var = Var::make(names_.fresh(hint), vt);
    k.pos = pos_of(origin);
    kernels_.push_back(k);
    return k.var;
  }
  std::vector<Expr> state_vars_;  // loop states currently in scope
  void check_state_free(Expr e, Expr origin) {
    for (auto s : state_vars_)
      if (is_free_in(s, e))
        unsupported(origin, "a binder or let inside a loop body that reads the loop state");
  }

  // Hoists a scalar expression of scope s into a Map kernel; returns its element in s.
  Expr hoist(Expr body, const Scope& s, const std::string& hint, Expr origin) {
    Kernel k;
    k.vars = s.vars;
    k.bounds = s.hull;
    k.guard = s.guard;
    k.body = body;
    return access_or_self(new_kernel(k, hint, origin), s.vars);
  }

  // Materialises a tensor value of scope s as a kernel over s plus the tensor's dimensions.
  Val materialize(const Val& v, const Scope& s, const std::string& hint, Expr origin) {
    if (v.is_tuple()) {
      Val out;
      for (const auto& f : v.fields) out.fields.push_back(materialize(f, s, hint, origin));
      return out;
    }
    if (v.scalar.defined()) return Val{{}, {}, {}, v.scalar};
    Type t = v.base->type.drop_dims(v.prefix.size());
    Scope s2 = s;
    std::vector<Expr> idx = v.prefix;
    for (auto d : t.dims) {
      Expr j = Var::make(names_.fresh("j"), Type::scalar(ElemType::I64));
      s2.vars.push_back(j);
      s2.hull.push_back(d);
      idx.push_back(j);
    }
    Expr e = hoist(Access::make(v.base, idx), s2, hint, origin);
    return Val{{}, e.as<Access>() ? e.as<Access>()->tensor : e, s.vars, {}};
  }

  // A top-level variable holding a result: a kernel or a parameter.
  Expr as_top_var(const Val& v, Expr origin, const Scope& top) {
    if (v.is_tuple()) unsupported(origin, "a tuple-valued result field");
    if (v.scalar.defined()) {
      if (v.scalar.as<Var>() && !env_.count(v.scalar)) return v.scalar;
      return hoist(v.scalar, top, "result", origin);
    }
    if (v.prefix.empty()) return v.base;
    return materialize(v, top, "result", origin).base;
  }

  void bind(const std::vector<Expr>& vars, const Val& v, Expr origin, const Scope& s) {
    if (vars.size() > 1) {
      if (!v.is_tuple() || v.fields.size() != vars.size())
        unsupported(origin, "this destructuring");
      for (std::size_t k = 0; k < vars.size(); ++k) env_[vars[k]] = v.fields[k];
      return;
    }
    Val b = v;
    const std::string& name = var_name(vars[0]);
    if (b.scalar.defined() && !s.in_loop && (store_ || s.vars.empty()) && !trivial(b.scalar))
      b.scalar = hoist(b.scalar, s, name, origin);
    env_[vars[0]] = b;
  }

  static bool trivial(Expr e) { return e.as<Literal>() || e.as<Var>(); }

  // Labelling (paper 002 section 4.1): in the store variant every floating operation's value is
  // a stored temporary, so the dual reads it instead of recomputing the expression tree.
  Val temp(Expr value, const Scope& s, Expr origin) {
    if (!store_ || s.in_loop || !value->type.is_float_scalar()) return Val{{}, {}, {}, value};
    for (auto v : free_vars(value))
      if (std::find(state_vars_.begin(), state_vars_.end(), v) != state_vars_.end())
        return Val{{}, {}, {}, value};
    return Val{{}, {}, {}, hoist(value, s, "t", origin)};
  }

  // ---- expressions ----
  Expr scalar(Expr e, const Scope& s) {
    Val v = flat(e, s);
    if (!v.scalar.defined()) {
      if (v.is_tuple() || !v.base.defined()) unsupported(e, "a non-scalar value here");
      Type t = v.base->type.drop_dims(v.prefix.size());
      if (t.rank() != 0) unsupported(e, "a non-scalar value here");
      return access_or_self(v.base, v.prefix);
    }
    return v.scalar;
  }

  Val flat(Expr e, const Scope& s) {
    switch (e->kind) {
      case NodeKind::Literal:
        return Val{{}, {}, {}, e};
      case NodeKind::Var: {
        if (auto it = env_.find(e); it != env_.end()) return it->second;
        if (e->type.is_tuple()) unsupported(e, "a tuple parameter");
        if (e->type.rank() == 0) return Val{{}, {}, {}, e};
        if (e->type.storage != Storage::Dense) unsupported(e, "a sparse (@csr/@coo) input");
        return Val{{}, e, {}, {}};
      }
      case NodeKind::Unary: {
        auto& n = *e.as<Unary>();
        return temp(Unary::make(n.op, scalar(n.a, s)), s, e);
      }
      case NodeKind::Binary: {
        auto& n = *e.as<Binary>();
        if (n.op == BinaryOp::And || n.op == BinaryOp::Or) {
          Expr a = scalar(n.a, s);
          Scope s2 = s;
          s2.guard = and_guard(s.guard, n.op == BinaryOp::And ? a : Unary::make(UnaryOp::Not, a));
          return Val{{}, {}, {}, Binary::make(n.op, a, scalar(n.b, s2))};
        }
        return temp(Binary::make(n.op, scalar(n.a, s), scalar(n.b, s)), s, e);
      }
      case NodeKind::Prim: {
        auto& n = *e.as<Prim>();
        std::vector<Expr> args;
        for (auto a : n.args) args.push_back(scalar(a, s));
        return temp(Prim::make(n.op, args), s, e);
      }
      case NodeKind::Select: {
        auto& n = *e.as<Select>();
        Expr c = scalar(n.cond, s);
        Scope st = s, se = s;
        st.guard = and_guard(s.guard, c);
        se.guard = and_guard(s.guard, Unary::make(UnaryOp::Not, c));
        Val a = flat(n.then_value, st), b = flat(n.else_value, se);
        return combine(c, a, b, s, e, /*bracket=*/false);
      }
      case NodeKind::Iverson: {
        auto& n = *e.as<Iverson>();
        Expr p = scalar(n.pred, s);
        Scope s2 = s;
        s2.guard = and_guard(s.guard, p);
        return combine(p, flat(n.body, s2), Val{}, s, e, /*bracket=*/true);
      }
      case NodeKind::Access: {
        auto& n = *e.as<Access>();
        Val t = flat(n.tensor, s);
        std::vector<Expr> idx;
        for (auto i : n.indices) idx.push_back(scalar(i, s));
        return index(t, idx, e);
      }
      case NodeKind::Gen: {
        auto& n = *e.as<Gen>();
        if (n.dom.is_stored()) unsupported(e, "gen over stored entries");
        Scope s2 = s;
        // Under binders the gen is lifted into a gen over theirs, evaluated even where an
        // enclosing sum is empty: its own bound is clamped there as theirs are (decision 185).
        for (std::size_t k = 0; k < n.dom.vars.size(); ++k) {
          s2.vars.push_back(n.dom.vars[k]);
          s2.hull.push_back(s.vars.empty() ? n.dom.bounds[k] : extent_of_bound(n.dom.bounds[k]));
        }
        Val body = flat(n.body, s2);
        return lift(body, s, s2, "g", e);
      }
      case NodeKind::Reduce:
        return reduce(*e.as<Reduce>(), s, e);
      case NodeKind::Scan:
        return scan(*e.as<Scan>(), s, e);
      case NodeKind::Loop:
        return fold(*e.as<Loop>(), s, e);
      case NodeKind::Let: {
        // A let's name ends with its body: names are interned, so a later binder of the same
        // name (`{ let j = n + 7; ... }` then `sum[j < n]`) is the same Var and read the let's
        // value (an error on a valid program, found by a reviewing helper; decision 219).
        auto& n = *e.as<Let>();
        std::vector<std::pair<Expr, std::optional<Val>>> outer;
        for (auto v : n.vars) {
          auto it = env_.find(v);
          outer.emplace_back(v, it == env_.end() ? std::nullopt : std::optional<Val>(it->second));
        }
        bind(n.vars, flat(n.value, s), n.value, s);
        Val body = flat(n.body, s);
        for (auto& [v, before] : outer) {
          if (before)
            env_[v] = *before;
          else
            env_.erase(v);
        }
        return body;
      }
      case NodeKind::Tuple: {
        Val v;
        for (auto x : e.as<Tuple>()->elems) v.fields.push_back(flat(x, s));
        return v;
      }
      case NodeKind::Proj: {
        auto& n = *e.as<Proj>();
        Val t = flat(n.tuple, s);
        if (!t.is_tuple()) unsupported(e, "this projection");
        return t.fields[static_cast<std::size_t>(n.index)];
      }
      case NodeKind::Call:
        return call(*e.as<Call>(), s, e);
      case NodeKind::Scatter:
        unsupported(e, "scatter in the input program (paper 002 section 3.2.1: Permute)");
      case NodeKind::Exists:
        unsupported(e, "exists");
      case NodeKind::Nz:
        unsupported(e, "nz (sparse inputs)");
    }
    unsupported(e, "this construct");
  }

  Val index(const Val& t, const std::vector<Expr>& idx, Expr origin) {
    if (t.is_tuple()) {
      Val v;
      for (const auto& f : t.fields) v.fields.push_back(index(f, idx, origin));
      return v;
    }
    if (!t.base.defined()) unsupported(origin, "indexing a scalar");
    std::vector<Expr> p = t.prefix;
    p.insert(p.end(), idx.begin(), idx.end());
    if (p.size() == t.base->type.rank()) return Val{{}, {}, {}, Access::make(t.base, p)};
    return Val{{}, t.base, p, {}};
  }

  // select(c, a, b) (bracket: [c] * a) of two values of scope s, element by element.
  Val combine(Expr c, const Val& a, const Val& b, const Scope& s, Expr origin, bool bracket) {
    if (a.is_tuple()) {
      Val v;
      for (std::size_t k = 0; k < a.fields.size(); ++k)
        v.fields.push_back(
            combine(c, a.fields[k], bracket ? Val{} : b.fields[k], s, origin, bracket));
      return v;
    }
    if (a.scalar.defined() || (!a.base.defined())) {
      Expr x = a.scalar.defined() ? a.scalar : scalar_of(a, origin);
      if (bracket) return Val{{}, {}, {}, Iverson::make(c, x)};
      return Val{{}, {}, {}, Select::make(c, x, scalar_of(b, origin))};
    }
    // tensors: one kernel over s plus the tensor's dimensions
    Type t = a.base->type.drop_dims(a.prefix.size());
    if (t.rank() == 0) {
      Expr x = scalar_of(a, origin);
      if (bracket) return Val{{}, {}, {}, Iverson::make(c, x)};
      return Val{{}, {}, {}, Select::make(c, x, scalar_of(b, origin))};
    }
    Scope s2 = s;
    std::vector<Expr> ia = a.prefix, ib = b.prefix;
    for (auto d : t.dims) {
      Expr j = Var::make(names_.fresh("j"), Type::scalar(ElemType::I64));
      s2.vars.push_back(j);
      s2.hull.push_back(d);
      ia.push_back(j);
      ib.push_back(j);
    }
    Expr x = Access::make(a.base, ia);
    Expr body = bracket ? Iverson::make(c, x) : Select::make(c, x, Access::make(b.base, ib));
    Expr k = hoist(body, s2, bracket ? "br" : "sel", origin);
    return Val{{}, k.as<Access>()->tensor, s.vars, {}};
  }

  Expr scalar_of(const Val& v, Expr origin) {
    if (v.scalar.defined()) return v.scalar;
    if (v.base.defined() && v.prefix.size() == v.base->type.rank())
      return access_or_self(v.base, v.prefix);
    unsupported(origin, "a non-scalar value here");
  }

  // The value of a binder body of scope inner, as an array over the outer scope.
  Val lift(const Val& body, const Scope& outer, const Scope& inner, const std::string& hint,
           Expr origin) {
    if (body.is_tuple()) {
      Val v;
      for (const auto& f : body.fields) v.fields.push_back(lift(f, outer, inner, hint, origin));
      return v;
    }
    Val m = body;
    if (body.scalar.defined()) {
      // reuse a kernel whose element at exactly these indices is the body, when it spans exactly
      // this scope: `gen[o < n, a < n] w[o, a]` of a w over [n, 2n] is a slice, not w (reusing
      // w gave the result w's shape; decision 180)
      if (auto* a = body.scalar.as<Access>();
          a && a->indices == inner.vars && kernel_spans(a->tensor, inner))
        return Val{{}, a->tensor, outer.vars, {}};
      Expr k = hoist(body.scalar, inner, hint, origin);
      return Val{{}, k.as<Access>()->tensor, outer.vars, {}};
    }
    m = materialize(body, inner, hint, origin);
    return Val{{}, m.base, outer.vars, {}};
  }

  // v is a kernel whose array is indexed by exactly `s`'s hull, under s's guard
  bool kernel_spans(Expr v, const Scope& s) const {
    for (const auto& k : kernels_)
      if (k.var == v) return v->type.dims == s.hull && k.guard == s.guard;
    return false;
  }

  Scope inner_scope(const Scope& s, const Domain& d, Expr origin) {
    Scope s2 = s;
    for (std::size_t k = 0; k < d.vars.size(); ++k) {
      auto h = hull_bound(d.bounds[k], s2.vars, s2.hull);
      if (!h) unsupported(origin, "a bound that is not affine in the enclosing indices");
      // the hull is evaluated before any kernel runs: a bound that can fail (`n / m`) inside
      // another range or under a condition was evaluated only where those held (a reviewing
      // helper: `sum[i < n] [0 < m] * sum[j < n / m] ...` at m = 0; decision 201)
      if ((!s.vars.empty() || s.guard.defined()) && !logic::never_fails(d.bounds[k]))
        unsupported(origin, "a bound that can fail (`" + expr_str(d.bounds[k]) +
                                "`) inside another range or a condition");
      // the hull becomes the shape of a kernel's gen, and shapes are size expressions
      for (auto v : free_vars(*h))
        if (!sizes_.count(v))
          unsupported(origin, "a bound that is not a size expression (`" + expr_str(v) +
                                  "` is data or a `let`, and a kernel's shape must be sizes)");
      s2.vars.push_back(d.vars[k]);
      s2.hull.push_back(*h);
      if (!hull_is_exact(*h, d.bounds[k]))
        s2.guard = and_guard(s2.guard, Binary::make(BinaryOp::Lt, d.vars[k], d.bounds[k]));
    }
    return s2;
  }

  Val reduce(const Reduce& n, const Scope& s, Expr e) {
    if (n.dom.is_stored()) unsupported(e, "a reduction over stored entries (sparse)");
    Scope s2 = inner_scope(s, n.dom, e);
    Expr body = scalar(n.body, s2);
    Kernel k;
    k.vars = s.vars;
    k.bounds = s.hull;
    k.guard = s.guard;
    k.kind = KernelKind::Reduce;
    k.op = n.op;
    k.ivars = n.dom.vars;
    k.ibounds = n.dom.bounds;
    if (n.op != ReduceOp::Sum) {
      // max/min: the body values are stored, the reduction reads them (paper 002 fold1 rule)
      if (n.dom.vars.size() != 1 || !hull_is_exact(s2.hull.back(), n.dom.bounds[0]))
        unsupported(e, "max/min over several or non-rectangular indices");
      k.ibounds = {s2.hull.back()};  // a bound that may be negative is clamped (its saved gens)
      Expr el = hoist(body, s2, "e", e);
      body = el;
    }
    k.body = body;
    return Val{{}, {}, {}, access_or_self(new_kernel(k, "r", e), s.vars)};
  }

  Val scan(const Scan& n, const Scope& s, Expr e) {
    Scope s2 = inner_scope(s, n.dom, e);
    Kernel k;
    k.vars = s.vars;
    k.bounds = s.hull;
    k.guard = s.guard;
    k.kind = KernelKind::Scan;
    k.op = n.op;
    k.ivars = n.dom.vars;
    k.ibounds = n.dom.bounds;
    k.body = scalar(n.body, s2);
    return Val{{}, new_kernel(k, "sc", e), s.vars, {}};
  }

  Val fold(const Loop& n, const Scope& s, Expr e) {
    if (n.state.size() != 1) unsupported(e, "a loop with several state variables");
    Expr st = n.state[0];
    if (!st->type.is_scalar())
      unsupported(
          e,
          "a loop whose state is a tensor (no incrementally filled store: paper 002 section 6.1)");
    Expr init = scalar(n.init[0], s);
    Scope s2 = inner_scope(s, n.dom, e);
    if (!hull_is_exact(s2.hull.back(), n.dom.bounds[0]))
      unsupported(e, "a loop with a bound that depends on an index");
    s2.in_loop = true;
    env_[st] = Val{{}, {}, {}, st};
    state_vars_.push_back(st);
    Expr body = scalar(n.body, s2);
    state_vars_.pop_back();
    Kernel k;
    k.vars = s.vars;
    k.bounds = s.hull;
    k.guard = s.guard;
    k.kind = KernelKind::Fold;
    k.ivars = n.dom.vars;
    k.ibounds = {s2.hull.back()};  // a bound that may be negative is clamped (its saved gens)
    k.state = st;
    k.init = init;
    k.body = body;
    return Val{{}, {}, {}, access_or_self(new_kernel(k, "fold", e), s.vars)};
  }

  Val call(const Call& c, const Scope& s, Expr e) {
    const Function& f = *c.callee;
    SubstMap sizes = call_size_bindings(c);
    for (auto sz : f.sizes)
      if (!sizes.count(sz)) unsupported(e, "a call whose sizes the arguments do not bind");
    CalleeRenamer r(sizes, names_);
    std::vector<Val> args;
    for (auto a : c.args) args.push_back(flat(a, s));
    for (std::size_t k = 0; k < f.params.size(); ++k) env_[r.mutate(f.params[k])] = args[k];
    Expr body = r.mutate(f.body_expr());
    return flat(body, s);
  }
};

}  // namespace

FlatProgram flatten(const Function& f, bool store, FreshNames& names) {
  return Flattener(store, names).run(f);
}

}  // namespace adlab::ad::scatter
