#include "ir/rewrite/engine.h"

#include <sstream>

#include "ir/affine.h"
#include "ir/builder.h"
#include "ir/context.h"
#include "ir/mutator.h"
#include "ir/substitute.h"
#include "ir/syntax/printer.h"

namespace adlab::ir::rewrite {

// Normalises bottom-up, carrying the facts of the context (binder bounds, brackets, branches).
class Normaliser : public Mutator {
 public:
  Normaliser(Engine& eng, std::vector<Expr>& facts, SourcePos near)
      : eng_(eng), facts_(facts), near_(std::move(near)) {}

  Expr mutate(Expr e) override {
    SourcePos saved = near_;
    if (SourcePos p = pos_of(e); p.valid()) near_ = p;
    Expr r = e;
    switch (e->kind) {
#define ADLAB_NODE(N)                              \
  case NodeKind::N:                                \
    r = mutate_node(static_cast<const N&>(*e), e); \
    break;
#include "ir/node_kinds.def"
    }
    if (r != e && near_.valid() && !pos_of(r).valid()) at_pos(r, near_);
    while (auto out = eng_.apply_rules(r, facts_, near_)) {
      r = renormalise(*out);
    }
    near_ = saved;
    return r;
  }

 protected:
  using Mutator::mutate_node;
  Expr mutate_node(const Gen& n, Expr self) override {
    Domain d = mutate_domain(n.dom);
    Expr body = under(d, [&] { return mutate(n.body); });
    return same_domain(d, n.dom) && body == n.body ? self : Gen::make(d, body);
  }
  Expr mutate_node(const Reduce& n, Expr self) override {
    Domain d = mutate_domain(n.dom);
    Expr body = under(d, [&] { return mutate(n.body); });
    if (same_domain(d, n.dom) && body == n.body) return self;
    return Reduce::make(n.op, d, body);
  }
  Expr mutate_node(const Exists& n, Expr self) override {
    Domain d = mutate_domain(n.dom);
    Expr body = under(d, [&] { return mutate(n.pred); });
    if (same_domain(d, n.dom) && body == n.pred) return self;
    return Exists::make(d, body);
  }
  // Binders without range facts: a fact about an outer variable of the same name is about
  // another variable inside (rules such as let-mul-left can nest a sibling's binder).
  Expr mutate_node(const Let& n, Expr self) override {
    return forgetting(n.vars, [&] { return Mutator::mutate_node(n, self); });
  }
  Expr mutate_node(const Loop& n, Expr self) override {
    std::vector<Expr> bound = n.dom.vars;
    bound.insert(bound.end(), n.state.begin(), n.state.end());
    return forgetting(bound, [&] { return Mutator::mutate_node(n, self); });
  }
  Expr mutate_node(const Scan& n, Expr self) override {
    return forgetting(n.dom.vars, [&] { return Mutator::mutate_node(n, self); });
  }
  Expr mutate_node(const Scatter& n, Expr self) override {
    return forgetting(n.dom.vars, [&] { return Mutator::mutate_node(n, self); });
  }
  Expr mutate_node(const Iverson& n, Expr self) override {
    Expr p = mutate(n.pred);
    std::size_t mark = facts_.size();
    facts_.push_back(p);
    Expr body = mutate(n.body);
    facts_.resize(mark);
    return p == n.pred && body == n.body ? self : Iverson::make(p, body);
  }
  Expr mutate_node(const Select& n, Expr self) override {
    Expr c = mutate(n.cond);
    std::size_t mark = facts_.size();
    facts_.push_back(c);
    Expr a = mutate(n.then_value);
    facts_.back() = dsl::operator!(c);
    Expr b = mutate(n.else_value);
    facts_.resize(mark);
    return c == n.cond && a == n.then_value && b == n.else_value ? self : Select::make(c, a, b);
  }

 private:
  // Runs body() without the facts that mention `vars` (bound again by the node being entered),
  // then with every fact restored; `extra` facts hold inside.
  template <class F>
  Expr forgetting(const std::vector<Expr>& vars, F&& body, std::vector<Expr> extra = {}) {
    std::vector<Expr> saved = facts_;
    std::erase_if(facts_, [&](Expr f) {
      for (const auto& v : vars)
        if (is_free_in(v, f)) return true;
      return false;
    });
    facts_.insert(facts_.end(), extra.begin(), extra.end());
    Expr r = body();
    facts_ = std::move(saved);
    return r;
  }
  // Facts about a variable this domain binds again are about another variable in its body.
  template <class F>
  Expr under(const Domain& d, F&& body) {
    std::vector<Expr> ranges;
    if (!d.is_stored())
      for (std::size_t k = 0; k < d.vars.size(); ++k) {
        ranges.push_back(dsl::le(dsl::ilit(0), d.vars[k]));
        ranges.push_back(dsl::lt(d.vars[k], d.bounds[k]));
      }
    return forgetting(d.vars, std::forward<F>(body), std::move(ranges));
  }
  Expr renormalise(Expr e) {
    // The right side is built from normal pieces, but new redexes can appear inside it.
    Normaliser inner(eng_, facts_, near_);
    switch (e->kind) {
#define ADLAB_NODE(N) \
  case NodeKind::N:   \
    return inner.mutate_node(static_cast<const N&>(*e), e);
#include "ir/node_kinds.def"
    }
    return e;
  }

  Engine& eng_;
  std::vector<Expr>& facts_;
  SourcePos near_;
};

Engine::Engine(std::vector<const RuleTable*> tables, EngineOptions options)
    : tables_(std::move(tables)), options_(options) {}

// The prover encodes a tensor pattern variable as an input that depends on no binder
// (checker/smt/rule_prover.cpp), so a rule is applied only where its binding mentions none of
// the binders the match bound: `adj-gen` with ?Y = gen[j] y[k] would otherwise move ?Y out of
// the sum over k, and a user's rule could relate different points of a binder-dependent tensor.
static bool tensor_bindings_closed(const Rule& r, const Bindings& b) {
  for (const auto& tv : r.vars) {
    if (tv.sort != Sort::Tensor) continue;
    auto t = b.find(tv.var);
    if (t == b.end()) continue;
    for (const auto& bv : r.vars) {
      if (bv.sort != Sort::IndexVar && bv.sort != Sort::LetVar) continue;
      auto v = b.find(bv.var);
      if (v != b.end() && v->second.as<Var>() && is_free_in(v->second, t->second)) return false;
    }
  }
  return true;
}

bool Engine::conditions_hold(const Rule& r, Bindings& b, const std::vector<Expr>& facts) {
  if (!tensor_bindings_closed(r, b)) return false;
  auto get = [&](Expr v) -> Expr {
    auto it = b.find(v);
    return it == b.end() ? Expr() : it->second;
  };
  for (const auto& c : r.conditions) {
    switch (c.kind) {
      case CondKind::NotFree: {
        Expr i = get(c.args[0]), e = get(c.args[1]);
        if (i.defined() && e.defined() && is_free_in(i, e)) return false;
        break;
      }
      case CondKind::Fresh:
      case CondKind::Partial:
        break;
      case CondKind::IsScalar:
        if (Expr e = get(c.args[0]); e.defined() && !e->type.is_scalar()) return false;
        break;
      case CondKind::SameType: {
        Expr x = get(c.args[0]), y = get(c.args[1]);
        if (x.defined() && y.defined() && !same_shape(x->type, y->type)) return false;
        break;
      }
      case CondKind::InRange: {
        Expr a = get(c.args[0]), n = get(c.args[1]);
        if (!a.defined() || !n.defined()) return false;
        Expr goal = dsl::operator&&(dsl::le(dsl::ilit(0), a), dsl::lt(a, n));
        if (logic_.implies(facts, goal) != logic::Answer::Yes) return false;
        break;
      }
      case CondKind::Forces: {
        Expr p = get(c.args[0]), i = get(c.args[1]), a = get(c.args[2]);
        if (!p.defined() || !i.defined()) return false;
        if (!a.defined()) {
          auto solved = logic_.solve_for(p, i);
          if (!solved) return false;
          b[c.args[2]] = *solved;
        } else if (logic_.implies({p}, dsl::eq(i, a)) != logic::Answer::Yes) {
          return false;
        }
        break;
      }
      case CondKind::NeverFails:
        if (Expr a = get(c.args[0]); !a.defined() || !logic::never_fails(a)) return false;
        break;
      case CondKind::Fact: {
        Bindings copy = b;
        Expr goal = instantiate(r, c.fact, copy);
        if (logic_.implies(facts, goal) != logic::Answer::Yes) return false;
        break;
      }
    }
  }
  // The prover took the assumptions as given: the engine must establish them at the match
  // (S7's "A stores no key" is a fact about the data, true for zero[D] only).
  for (const auto& a : r.assumptions) {
    Bindings copy = b;
    Expr goal;
    try {
      goal = instantiate(r, a, copy);
    } catch (const Error&) {
      return false;  // it binds variables of its own (S7's exists): not stated at the match
    }
    if (logic_.implies(facts, goal) != logic::Answer::Yes) return false;
  }
  return true;
}

std::optional<Expr> Engine::apply_rules(Expr e, const std::vector<Expr>& facts,
                                        const SourcePos& near) {
  for (const RuleTable* t : tables_)
    for (const Rule& r : t->rules) {
      Bindings b;
      if (!match(r, r.lhs, e, b) || !conditions_hold(r, b, facts)) continue;
      Expr out = instantiate(r, r.rhs, b);
      // A rule proved at one type applies where it keeps the type (a literal in a right side
      // is f64: `[false] * e -> 0` must not turn an f32 expression into an f64 one).
      if (!(out->type == e->type)) continue;
      if (++steps_ > options_.max_steps) {
        std::string last;
        for (std::size_t k = trace_.size() > 5 ? trace_.size() - 5 : 0; k < trace_.size(); ++k)
          last += (last.empty() ? "" : ", ") + trace_[k].rule;
        throw Error(near, "rewriting did not terminate within " +
                              std::to_string(options_.max_steps) +
                              " steps (the last rules applied: " + last + ")");
      }
      if (options_.record_trace)
        trace_.push_back(TraceStep{r.name(), r.spec.cite, near, expr_str(e), expr_str(out)});
      if (near.valid() && !pos_of(out).valid()) at_pos(out, near);
      return out;
    }
  return std::nullopt;
}

Expr Engine::rewrite(Expr e, std::vector<Expr> facts) {
  Normaliser n(*this, facts, pos_of(e));
  return n.mutate(e);
}

std::optional<Expr> Engine::step(Expr e, const std::vector<Expr>& facts, SourcePos near) {
  return apply_rules(e, facts, near.valid() ? near : pos_of(e));
}

FunctionPtr Engine::rewrite(const Function& f) {
  auto g = std::make_shared<Function>(f);
  std::vector<Expr> facts;
  for (const auto& s : f.sizes) facts.push_back(dsl::le(dsl::ilit(0), s));
  // Rules that float binders (let-mul-left) can nest two binders of one name: renamed, so that
  // the printed program parses again.
  for (auto& s : g->stmts) s.value = unshadow(rewrite(s.value, facts));
  for (auto& r : g->results) r = unshadow(rewrite(r, facts));
  return g;
}

std::string format_trace(const std::vector<TraceStep>& trace) {
  std::ostringstream os;
  for (const auto& s : trace) {
    if (s.pos.valid()) os << s.pos.str() << ": ";
    os << s.rule;
    if (!s.cite.empty()) os << " [" << s.cite << "]";
    os << ": " << s.before << "  ->  " << s.after << "\n";
  }
  return os.str();
}

}  // namespace adlab::ir::rewrite
