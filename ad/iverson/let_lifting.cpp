// Let-lifting (paper 000 (5.1)-(5.10), (5.10) corrected).
#include "ad/iverson/let_lifting.h"

#include <unordered_set>

#include "ad/iverson/pass_util.h"
#include "ad/strategy.h"
#include "ir/affine.h"
#include "ir/context.h"
#include "ir/mutator.h"
#include "ir/substitute.h"

namespace adlab::ad::iverson {

using namespace ir;

namespace {

// The position of the innermost expression being lifted that has one: a node made by a
// substitution has none of its own.
thread_local SourcePos g_near;

[[noreturn]] void unsupported(Expr at, const std::string& what) {
  SourcePos p = pos_of(at);
  throw Unsupported(p.valid() ? p : g_near,
                    "iverson: " + what + " is outside paper 000's language");
}

// A bracket or a select branch around the let being lifted.
struct Condition {
  enum class Kind { Bracket, Then, Else } kind;
  Expr pred;
};

class LetLifter : public Mutator {
 public:
  explicit LetLifter(FreshNames& names) : names_(names) {}
  std::vector<Stmt> stmts;

  Expr mutate(Expr e) override {
    if (e.as<Var>())
      if (auto it = env_.find(e); it != env_.end()) return it->second;
    if (SourcePos p = pos_of(e); p.valid()) g_near = p;
    return Mutator::mutate(e);
  }
  void reserve(Expr param) { bound_.insert(var_name(param)); }
  // A binder that stays one (an index, a loop state) keeps its name: a lifted let must not take it,
  // or the binder would rebind the lifted statement's variable (names are interned).
  void reserve_binders(Expr e) {
    for (auto b : bound_vars(e, /*lets=*/false)) binder_names_.insert(var_name(b));
  }
  // A top-level statement: its value's lets go first, then the statement itself.
  void statement(const Stmt& st) {
    Expr value = mutate(substitute(st.value, renamed_));
    std::vector<Expr> vars;
    for (auto v : st.vars) vars.push_back(own_name(v));
    stmts.push_back(Stmt{vars, value});
  }
  Expr result(Expr r) { return mutate(substitute(r, renamed_)); }

 protected:
  Expr mutate_node(const Let& l, Expr self) override {
    Expr value = mutate(l.value);  // (5.10) corrected: the value's own lets are lifted first
    SubstMap m;
    bool leaf = l.vars.size() == 1 && is_leaf(value);
    if (leaf) {
      m[l.vars[0]] = value;  // a binding to a name: substituted
    } else if (binders_.empty() && conds_.empty()) {
      std::vector<Expr> vars;  // (5.1)-(5.5), (5.8): the let moves out of its operand
      for (auto v : l.vars) {
        vars.push_back(Var::make(unbound_name(var_name(v)), v->type));
        m[v] = vars.back();
      }
      stmts.push_back(Stmt{vars, value});
    } else {
      lift(l.vars, value, self, m);
    }
    // The body sees the bindings through env_ while it is mutated (no shadowing in the language:
    // nothing in it can capture them). Substituting the body at each let, then mutating it, was
    // quadratic in a chain of lets (an inlined helper's).
    std::vector<std::pair<Expr, Expr>> outer;  // the entries the bindings hide
    for (const auto& [var, to] : m) {
      auto it = env_.find(var);
      outer.emplace_back(var, it == env_.end() ? Expr() : it->second);
      env_[var] = to;
    }
    Expr body = mutate(l.body);
    for (const auto& [var, to] : outer) {
      if (to.defined())
        env_[var] = to;
      else
        env_.erase(var);
    }
    return body;
  }
  Expr mutate_node(const Gen& g, Expr self) override {
    (void)self;
    const Domain d = bounds_in_env(g.dom);
    return Gen::make(d, under(d, g.body));
  }
  Expr mutate_node(const Reduce& r, Expr self) override {
    if (r.op != ReduceOp::Sum && r.dom.is_stored())
      unsupported(self, std::string("a `") + op_name(r.op) + "` reduction");
    if (r.dom.is_stored()) unsupported(self, "iteration over stored entries");
    const Domain d = bounds_in_env(r.dom);
    return Reduce::make(r.op, d, under(d, r.body));
  }
  Expr mutate_node(const Iverson& iv, Expr self) override {
    (void)self;
    Expr p = mutate(iv.pred);  // a let in the predicate is lifted at this level
    conds_.push_back(Condition{Condition::Kind::Bracket, p});
    Expr body = mutate(iv.body);
    conds_.pop_back();
    return Iverson::make(p, body);
  }
  Expr mutate_node(const Select& s, Expr self) override {
    (void)self;
    Expr c = mutate(s.cond);  // a let in the condition is lifted at this level
    conds_.push_back(Condition{Condition::Kind::Then, c});
    Expr a = mutate(s.then_value);
    conds_.back().kind = Condition::Kind::Else;
    Expr b = mutate(s.else_value);
    conds_.pop_back();
    return Select::make(c, a, b);
  }
  Expr mutate_node(const Loop& n, Expr self) override {
    (void)n;
    unsupported(self, "`loop`");
  }
  Expr mutate_node(const Scan& n, Expr self) override {
    (void)n;
    unsupported(self, "`scan`");
  }
  // as later passes would, but here: a let in its body was lifted past its index, which then
  // read "unknown name `i`" (an audit fuzz, /work/stage/audit39_fuzz r4)
  Expr mutate_node(const Scatter& n, Expr self) override {
    (void)n;
    unsupported(self, "`scatter`");
  }

 private:
  FreshNames& names_;
  std::vector<Binder> binders_;
  std::vector<Condition> conds_;
  SubstMap renamed_;  // top-level names bound twice
  SubstMap env_;      // the lets around the node being mutated: what their names stand for
  std::unordered_set<std::string> bound_, binder_names_;

  // The source name while no statement or binder has it (the paper assumes no name is reused),
  // else fresh.
  std::string unbound_name(const std::string& name) {
    std::string out = bound_.count(name) || binder_names_.count(name) ? names_.fresh(name) : name;
    bound_.insert(out);
    return out;
  }

  Expr own_name(Expr v) {
    if (bound_.insert(var_name(v)).second) return v;
    Expr fresh = Var::make(names_.fresh(var_name(v)), v->type);
    bound_.insert(var_name(fresh));
    renamed_[v] = fresh;
    return fresh;
  }

  // A gen value lifted into a gen over enclosing binders is evaluated even where an enclosing
  // sum ranges over nothing, and a gen's negative bound is an error: its extents are clamped
  // (they are the value's type, so the adjoint's gens follow; decision 185).
  static Expr with_clamped_extents(Expr value) {
    auto* g = value.as<Gen>();
    if (!g || g->dom.is_stored()) return value;
    Domain d = g->dom;
    for (auto& b : d.bounds) b = extent_of_bound(b);
    return Gen::make(d, with_clamped_extents(g->body));
  }

  // A bound may name a let (`let q = k; sum[i < q]`): the environment applies there too (the
  // substitution it replaced did; a reviewing helper, decision 191).
  Domain bounds_in_env(const Domain& dom) {
    Domain d = dom;
    for (auto& b : d.bounds) b = mutate(b);
    return d;
  }

  Expr under(const Domain& dom, Expr body) {
    for (std::size_t k = 0; k < dom.vars.size(); ++k)
      binders_.push_back(Binder{dom.vars[k], dom.bounds[k]});
    Expr out = mutate(body);
    binders_.resize(binders_.size() - dom.vars.size());
    return out;
  }

  static Expr condition_pred(const Condition& c) {
    return c.kind == Condition::Kind::Else ? Unary::make(UnaryOp::Not, c.pred) : c.pred;
  }

  // A name, a literal, or a read of a name at index expressions.
  static bool is_leaf(Expr e) {
    if (e.as<Var>() || e.as<Literal>()) return true;
    auto* a = e.as<Access>();
    return a && a->tensor.as<Var>();
  }

  // (5.6), (5.7), (5.9): `x = gen[binders the value reads] [conditions] * value`, read back at
  // the binders. Conditions that read a lifted binder, or no binder, go with it (the guard is
  // duplicated, 5.9); a binder a kept condition reads is lifted over too.
  void lift(const std::vector<Expr>& vars, Expr value, Expr at, SubstMap& m) {
    std::vector<bool> used(binders_.size(), false), kept(conds_.size(), false);
    auto mark = [&](Expr e) {
      for (std::size_t k = 0; k < binders_.size(); ++k)
        if (!used[k] && is_free_in(binders_[k].var, e)) used[k] = true;
    };
    mark(value);
    for (bool changed = true; changed;) {
      changed = false;
      for (std::size_t c = 0; c < conds_.size(); ++c) {
        if (kept[c]) continue;
        bool touches = false, closed = true;
        for (std::size_t k = 0; k < binders_.size(); ++k)
          if (is_free_in(binders_[k].var, conds_[c].pred)) {
            closed = false;
            touches = touches || used[k];
          }
        if (touches || closed) {
          kept[c] = true;
          mark(conds_[c].pred);
          changed = true;
        }
      }
    }
    std::vector<Binder> dom;
    std::vector<Expr> prefix;
    for (std::size_t k = 0; k < binders_.size(); ++k) {
      if (!used[k]) continue;
      for (const auto& b : binders_)
        if (is_free_in(b.var, binders_[k].bound)) unsupported(at, "a triangular sum bound");
      // a sum's range may be negative (empty); the gen over it may not (decision 185)
      dom.push_back(Binder{binders_[k].var, extent_of_bound(binders_[k].bound)});
      prefix.push_back(binders_[k].var);
    }
    // clamped before any bracket wraps it (the extents are the gen's type)
    Expr body = dom.empty() ? value : with_clamped_extents(value);
    // The binders and conditions left behind: the value runs only where their body runs
    // (a never-true `[i > 5]` protected log(0); the adjoint divided by it, decision 172).
    std::vector<Binder> dropped;
    std::vector<Expr> unkept;
    for (std::size_t k = 0; k < binders_.size(); ++k)
      if (!used[k]) dropped.push_back(binders_[k]);
    for (std::size_t c = 0; c < conds_.size(); ++c)
      if (!kept[c]) unkept.push_back(condition_pred(conds_[c]));
    if (Expr reached = reached_condition(dropped, unkept); reached.defined())
      body = Iverson::make(reached, body);
    for (std::size_t c = conds_.size(); c-- > 0;) {
      if (!kept[c]) continue;
      body = Iverson::make(condition_pred(conds_[c]), body);  // a lazy strong zero, as the
                                                              // select branch was
    }
    body = gen_over(dom, body);
    std::string name;
    for (auto v : vars) name += (name.empty() ? "" : "_") + var_name(v);
    Expr x = Var::make(unbound_name(name), body->type);
    stmts.push_back(Stmt{{x}, body});
    Expr back = read(x, prefix);
    if (vars.size() == 1) {
      m[vars[0]] = back;
      return;
    }
    for (std::size_t k = 0; k < vars.size(); ++k)
      m[vars[k]] = Proj::make(back, static_cast<int>(k));
  }
};

}  // namespace

FunctionPtr lift_lets(const Function& f, FreshNames& names) {
  g_near = f.pos;
  LetLifter lifter(names);
  for (auto p : f.params) lifter.reserve(p);
  for (const auto& st : f.stmts) lifter.reserve_binders(st.value);
  for (auto r : f.results) lifter.reserve_binders(r);
  for (const auto& st : f.stmts) lifter.statement(st);
  std::vector<Expr> results;
  for (auto r : f.results) results.push_back(lifter.result(r));
  return rebuilt(f, f.name, std::move(lifter.stmts), std::move(results));
}

}  // namespace adlab::ad::iverson
