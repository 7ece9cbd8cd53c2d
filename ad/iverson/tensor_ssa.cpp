// Conversion to Tensor SSA (paper 000 (5.25)-(5.34), digest 000 section 4.5), on a program the
// earlier passes left without calls, nested lets, tuples and reads of computed tensors (checked
// on entry): every statement is lowered into `gen[I] body`, every sum that is an operand gets its
// own statement, with summation elimination on every sum.
#include "ad/iverson/tensor_ssa.h"

#include <algorithm>
#include <unordered_map>

#include "ad/iverson/normal_form.h"
#include "ad/iverson/pass_util.h"
#include "ad/iverson/sum_elimination.h"
#include "ad/strategy.h"
#include "ir/affine.h"
#include "ir/context.h"
#include "ir/mutator.h"
#include "ir/substitute.h"
#include "ir/typecheck.h"
#include "ir/visitor.h"

namespace adlab::ad::iverson {

using namespace ir;

namespace {

// The position of the innermost expression being lowered that has one: a node made by a
// substitution has none of its own.
thread_local SourcePos g_near;

void note_position(Expr e) {
  if (!e.defined()) return;
  SourcePos p = pos_of(e);
  if (p.valid()) g_near = p;
}

[[noreturn]] void unsupported(Expr at, const std::string& what) {
  SourcePos p = at.defined() ? pos_of(at) : SourcePos{};
  throw Unsupported(p.valid() ? p : g_near,
                    "iverson: " + what + " is outside paper 000's language");
}

// Where an expression is: the enclosing binders and brackets.
struct Scope {
  std::vector<Binder> binders;
  std::vector<Expr> guards;
  Scope with_binders(const std::vector<Binder>& bs) const {
    Scope s = *this;
    s.binders.insert(s.binders.end(), bs.begin(), bs.end());
    return s;
  }
  Scope with_guard(Expr p) const {
    Scope s = *this;
    s.guards.push_back(p);
    return s;
  }
};

// What a source variable stands for: base[prefix..., ...] (a stored tensor and the indices of
// the enclosing binders it was lifted over), or a scalar expression (prefix empty).
struct Ref {
  Expr base;
  std::vector<Expr> prefix;
};

Expr read_ref(const Ref& r, const std::vector<Expr>& idx) {
  std::vector<Expr> all = r.prefix;
  all.insert(all.end(), idx.begin(), idx.end());
  if (all.empty()) return r.base;
  if (auto* a = r.base.as<Access>()) {
    std::vector<Expr> full = a->indices;
    full.insert(full.end(), all.begin(), all.end());
    return Access::make(a->tensor, full);
  }
  return Access::make(r.base, all);
}

// `M[1][j]` as `M[1, j]`: a read of a partial read, which a substituted lifted `let row = M[1]`
// leaves and Tensor SSA's normal form does not take (a reviewing helper found the internal
// error; decision 217).
class FlattenReads : public Mutator {
 public:
  Expr mutate_node(const Access& a, Expr self) override {
    Expr r = Mutator::mutate_node(a, self);  // the inner read is flat already
    auto* outer = r.as<Access>();
    if (!outer || !outer->tensor.as<Access>()) return r;
    return read_ref(Ref{outer->tensor, {}}, outer->indices);
  }
};
Expr flatten_reads(Expr e) {
  return FlattenReads().mutate(e);
}

// Index expressions and predicates: affine or opaque integer terms of indices and sizes; reads of
// integer tensors (data-dependent indices) and sparse patterns are outside the language.
class IndexCheck : public Visitor {
 public:
  void visit_node(const Access& a, Expr self) override {
    (void)a;
    unsupported(self, "a data-dependent index (`" + kind_name_of(self) + "`)");
  }
  void visit_node(const Nz& n, Expr self) override {
    (void)n;
    unsupported(self, "a sparse pattern predicate `nz`");
  }
  static std::string kind_name_of(Expr e) {
    auto* a = e.as<Access>();
    return a && a->tensor.as<Var>() ? var_name(a->tensor) + "[...]" : "access";
  }
};

class Lowerer {
 public:
  Lowerer(FreshNames& names, logic::PredicateService& logic, std::vector<Expr> facts)
      : names_(names), logic_(logic), facts_(std::move(facts)) {}

  SsaProgram run(const Function& f) {
    g_near = f.pos;
    Scope top;
    for (const auto& st : f.stmts) bind_let(st.vars[0], st.value, top);
    std::vector<Expr> results;
    for (auto r : f.results) results.push_back(result(r));
    SsaProgram p;
    p.stmts = std::move(stmts_);
    p.results = std::move(results);
    p.facts = facts_;
    return p;
  }

 private:
  FreshNames& names_;
  logic::PredicateService& logic_;
  std::vector<Expr> facts_;
  std::vector<Stmt> stmts_;
  std::unordered_map<Expr, Ref, ExprHash> env_;

  std::vector<Expr> facts_of(const Scope& s) const {
    std::vector<Expr> f = facts_;
    for (auto r : range_facts(s.binders)) f.push_back(r);
    for (auto g : s.guards) f.push_back(g);
    return f;
  }

  Expr result(Expr r) {
    if (r->type.rank() > 0) {
      Ref ref = materialize(r, Scope{}, "r");
      if (ref.prefix.empty()) return ref.base;
      // a partial read (A[0] of a matrix) is lifted element by element, like any tensor value
      std::vector<Binder> inner;
      for (auto d : r->type.dims) inner.push_back(Binder{index_var(names_.fresh("i")), d});
      Expr lifted = lift(read_ref(ref, vars_of(inner)), Scope{}, "r", inner);
      if (auto* a = lifted.as<Access>(); a && a->indices.empty()) return a->tensor;
      return lifted;
    }
    Expr e = lower(r, Scope{}, true);
    if (e.as<Var>() || e.as<Literal>()) return e;
    return lift(e, Scope{}, "r");
  }

  // A statement `name = gen[binders the value needs..., inner...] [guards] * value`; returns its
  // read at the enclosing binders (paper 000 (5.6)-(5.9): let-lifting with the guard duplicated).
  Expr lift(Expr value, const Scope& s, const std::string& hint,
            const std::vector<Binder>& inner = {}) {
    // brackets in scope: a lifted value stays under those that concern it
    const std::vector<Expr>& items = s.guards;
    std::vector<bool> used(s.binders.size(), false);
    std::vector<bool> item_used(items.size(), false);
    auto mark = [&](Expr e) {
      for (std::size_t k = 0; k < s.binders.size(); ++k)
        if (!used[k] && is_free_in(s.binders[k].var, e)) used[k] = true;
    };
    mark(value);
    // an item goes with the lifted value when it reads one of its binders (or none at all)
    for (bool changed = true; changed;) {
      changed = false;
      for (std::size_t g = 0; g < items.size(); ++g) {
        if (item_used[g]) continue;
        bool touches = false, closed = true;
        for (std::size_t k = 0; k < s.binders.size(); ++k)
          if (is_free_in(s.binders[k].var, items[g])) {
            closed = false;
            touches = touches || used[k];
          }
        if (touches || closed) {
          item_used[g] = true;
          mark(items[g]);
          changed = true;
        }
      }
    }
    std::vector<Binder> dom;
    std::vector<Expr> prefix, guards;
    for (std::size_t k = 0; k < s.binders.size(); ++k)
      if (used[k]) {
        // a sum's range may be negative (empty); the gen over it may not (decision 185, 241)
        dom.push_back(Binder{s.binders[k].var, extent_of_bound(s.binders[k].bound)});
        prefix.push_back(s.binders[k].var);
      }
    for (std::size_t g = 0; g < items.size(); ++g)
      if (item_used[g]) guards.push_back(items[g]);
    if (Expr reached = reached_guard(s, used, item_used, dom); reached.defined())
      guards.push_back(reached);
    dom.insert(dom.end(), inner.begin(), inner.end());
    Expr body = gen_over(dom, guard(guards, value));
    Expr v = Var::make(names_.fresh(hint), body->type);
    stmts_.push_back(Stmt{{v}, body});
    return read_ref(Ref{v, {}}, prefix);
  }

  // The value was lowered under every binder in scope, and SE used their ranges and guards
  // (`sum[j < n] [0 < n] * x[0]` is `n * x[0]` inside `gen[r < n]`): lifted out of binders it
  // does not read, it keeps the condition that their body runs at all (at n = 0 it read x[0]).
  // Undefined when the kept binders' facts decide it.
  Expr reached_guard(const Scope& s, const std::vector<bool>& used,
                     const std::vector<bool>& item_used, const std::vector<Binder>& kept) {
    std::vector<Binder> dropped;
    for (std::size_t k = 0; k < s.binders.size(); ++k)
      if (!used[k]) dropped.push_back(s.binders[k]);
    std::vector<Expr> unkept;
    for (std::size_t g = 0; g < s.guards.size(); ++g)
      if (!item_used[g]) unkept.push_back(s.guards[g]);
    Expr reached = reached_condition(dropped, unkept);
    if (!reached.defined()) return reached;
    if (reached.as<Exists>()) reached = logic_.project_exists(reached);
    std::vector<Expr> facts = facts_;
    for (auto r : range_facts(kept)) facts.push_back(r);
    if (logic_.implies(facts, reached) == logic::Answer::Yes) return Expr();
    return reached;
  }

  // A tensor-valued expression as a stored tensor (a statement unless it already is one).
  Ref materialize(Expr value, const Scope& s, const std::string& hint) {
    note_position(value);
    switch (value->kind) {
      case NodeKind::Var: {
        if (auto it = env_.find(value); it != env_.end()) return it->second;
        return Ref{value, {}};
      }
      case NodeKind::Access: {
        auto* a = value.as<Access>();
        Ref r = materialize(a->tensor, s, hint);
        for (auto i : a->indices) r.prefix.push_back(lower_index(i));
        return r;
      }
      default:
        break;
    }
    std::vector<Binder> inner;
    for (auto d : value->type.dims) {
      for (const auto& b : s.binders)
        if (is_free_in(b.var, d)) unsupported(value, "a tensor whose shape depends on an index");
      inner.push_back(Binder{index_var(names_.fresh("i")), d});
    }
    Expr elem = lower_access(value, vars_of(inner), s.with_binders(inner), true);
    Expr r = lift(elem, s, hint, inner);
    // lift returns the read at the outer binders; strip the inner ones
    Ref ref;
    if (auto* a = r.as<Access>()) {
      ref.base = a->tensor;
      ref.prefix = a->indices;
    } else {
      ref.base = r;
    }
    return ref;
  }

  void bind_let(Expr v, Expr value, const Scope& s) {
    const Type& t = v->type;
    if (t.rank() > 0) {
      env_[v] = materialize(value, s, var_name(v));
      return;
    }
    Expr e = lower(value, s, true);
    bool leaf =
        e.as<Var>() || e.as<Literal>() || (e.as<Access>() && e.as<Access>()->tensor.as<Var>());
    env_[v] = leaf ? Ref{e, {}} : Ref{lift(e, s, var_name(v)), {}};
  }

  Expr lower_index(Expr e) {
    IndexCheck check;
    check.visit(e);
    for (auto v : free_vars(e))
      if (env_.count(v)) unsupported(e, "an index computed by a `let`");
    return e;
  }

  // The integer operand of f64(...) or f32(...) is a number, a constant of the derivative, not
  // an index: a `let` in it reads the statement the let became (at the binders where it was
  // lifted), and integer data may be read (`f64(q)` after `let q = n - 1` was declined as "an
  // index computed by a let"; decision 217). Variables are interned by name and type, so a
  // binder in scope can be the very Var of a lifted `let` of its name: it stays the binder
  // (a reviewing helper: `sum[j < n] ... f64(j)` read a block's `let j = n + 7`).
  Expr lower_int_number(Expr e, const Scope& s) {
    SubstMap m;
    for (auto v : free_vars(e))
      if (auto it = env_.find(v); it != env_.end() && !binds(s, v)) m[v] = read_ref(it->second, {});
    return m.empty() ? e : flatten_reads(substitute(e, m));
  }

  // A comparison of numbers only: it reads a scalar `let` and no index in scope (`i == q` with q
  // a let stays an index predicate, for the rules that solve it, and is declined as before).
  bool reads_scalar_let(Expr e, const Scope& s) const {
    bool reads = false;
    for (auto v : free_vars(e)) {
      if (binds(s, v)) return false;
      reads = reads || (env_.count(v) && v->type.rank() == 0);
    }
    return reads;
  }

  static bool binds(const Scope& s, Expr v) {
    return std::any_of(s.binders.begin(), s.binders.end(),
                       [&](const Binder& b) { return b.var == v; });
  }

  Expr lower_pred(Expr p) {
    if (auto* ex = p.as<Exists>()) {
      (void)ex;
      Expr q = logic_.project_exists(p);  // E-exists (errata 10)
      if (q != p) return lower_pred(q);
      IndexCheck check;
      check.visit(p);
      return p;
    }
    if (auto* b = p.as<Binary>(); b && (b->op == BinaryOp::And || b->op == BinaryOp::Or))
      return Binary::make(b->op, lower_pred(b->a), lower_pred(b->b));
    if (auto* u = p.as<Unary>(); u && u->op == UnaryOp::Not)
      return Unary::make(UnaryOp::Not, lower_pred(u->a));
    return lower_index(p);
  }

  // A select condition: index predicates, and comparisons of numbers.
  Expr lower_cond(Expr c, const Scope& s) {
    if (auto* b = c.as<Binary>()) {
      if (b->op == BinaryOp::And || b->op == BinaryOp::Or)
        return Binary::make(b->op, lower_cond(b->a, s), lower_cond(b->b, s));
      if (is_comparison(b->op) && is_float(b->a->type.elem))
        return Binary::make(b->op, lower(b->a, s, false), lower(b->b, s, false));
      // a comparison reading a scalar integer `let` compares numbers, not indices (the flag
      // `taken == 1` of iverson's own gradient program, differentiated again for hvp)
      if (is_comparison(b->op) && reads_scalar_let(c, s))
        return Binary::make(b->op, lower_int_number(b->a, s), lower_int_number(b->b, s));
    }
    if (auto* u = c.as<Unary>(); u && u->op == UnaryOp::Not)
      return Unary::make(UnaryOp::Not, lower_cond(u->a, s));
    return lower_pred(c);
  }

  // Extension `select` (docs/strategies/iverson.md): select(c, a, b) is [c] * a + [!c] * b, both
  // lazy strong zeros. A condition on numbers is evaluated once, into a stored i64 flag
  // `taken = gen[...] select(c, 1, 0)`, and the brackets read it: the derivative then tests the
  // flag (free index arithmetic) instead of comparing numbers again at every adjoint entry.
  Expr taken_predicate(Expr cond, const Scope& s) {
    Expr c = lower_cond(cond, s);
    struct NumberCompare : Visitor {
      bool found = false;
      void visit_node(const Binary& b, Expr self) override {
        if (is_comparison(b.op) && is_float(b.a->type.elem)) found = true;
        Visitor::visit_node(b, self);
      }
    } v;
    v.visit(c);
    if (!v.found) return c;
    Expr flag = lift(Select::make(c, int_lit(1), int_lit(0)), s, "taken");
    return Binary::make(BinaryOp::Eq, flag, int_lit(1));
  }

  // [c] a + [!c] b, exactly one bracket taken, as -(-([c] a) - [!c] b): the untaken bracket is
  // +0, and -0 + +0 is +0, so the sum lost a taken branch's -0 (`1 / select(x > y, x * y, ...)`
  // at y = -0 was +inf, -inf in the interpreter; decision 198). x - (+0) is x for every x.
  static Expr one_of_two(Expr taken_a, Expr taken_b) {
    if (is_zero(taken_a) || is_zero(taken_b)) return add(taken_a, taken_b);
    return neg(sub(neg(taken_a), taken_b));
  }

  // A scalar expression in Tensor SSA form; `top`: at the top of a statement's body, where a
  // sum may stay (under brackets and sums).
  Expr lower(Expr e, const Scope& s, bool top) {
    note_position(e);
    switch (e->kind) {
      case NodeKind::Literal:
        return e;
      case NodeKind::Var: {
        if (auto it = env_.find(e); it != env_.end()) return read_ref(it->second, {});
        return e;
      }
      case NodeKind::Unary: {
        auto* u = e.as<Unary>();
        if (!is_float(e->type.elem)) return lower_pred(e);
        return Unary::make(u->op, lower(u->a, s, false));
      }
      case NodeKind::Binary: {
        auto* b = e.as<Binary>();
        if (!is_float(e->type.elem)) return lower_pred(e);
        Expr l = lower(b->a, s, false), r = lower(b->b, s, false);
        if (b->op == BinaryOp::Mul || b->op == BinaryOp::Div) {
          // Tensor SSA (5.25-5.34): an operand the other's partial derivative reads is named, so
          // the adjoint reads it instead of recomputing it (a product tree, TC20)
          if (!is_leaf(l)) l = lift(l, s, "p");
          if (!is_leaf(r)) r = lift(r, s, "p");
        }
        return Binary::make(b->op, l, r);
      }
      case NodeKind::Prim: {
        auto* p = e.as<Prim>();
        if (!is_float(e->type.elem)) return lower_index(e);
        std::vector<Expr> args;
        const bool conversion = p->op == PrimOp::ToF64 || p->op == PrimOp::ToF32;
        for (auto a : p->args)
          args.push_back(is_float(a->type.elem) ? lower(a, s, false)
                         : conversion           ? lower_int_number(a, s)
                                                : lower_index(a));
        Expr out = Prim::make(p->op, args);
        // a primitive whose derivative reads its own value is named (Tensor SSA), so the
        // adjoint reads the stored value instead of calling it again
        bool reads_self = p->op == PrimOp::Exp || p->op == PrimOp::Tan || p->op == PrimOp::Tanh ||
                          p->op == PrimOp::Sigmoid || p->op == PrimOp::Sqrt || p->op == PrimOp::Pow;
        return reads_self && !top ? lift(out, s, "e") : out;
      }
      case NodeKind::Select: {
        auto* sel = e.as<Select>();
        Expr c = taken_predicate(sel->cond, s);
        Expr nc = Unary::make(UnaryOp::Not, c);
        Expr a = lower(sel->then_value, s.with_guard(c), false);
        Expr b = lower(sel->else_value, s.with_guard(nc), false);
        return one_of_two(guard({c}, a), guard({nc}, b));
      }
      case NodeKind::Iverson: {
        auto* iv = e.as<Iverson>();
        Expr p = taken_predicate(iv->pred, s);  // a bracket on data: the select extension
        return Iverson::make(p, lower(iv->body, s.with_guard(p), top));
      }
      case NodeKind::Access: {
        auto* a = e.as<Access>();
        std::vector<Expr> idx;
        for (auto i : a->indices) idx.push_back(lower_index(i));
        return lower_access(a->tensor, idx, s, top);
      }
      case NodeKind::Reduce:
        return lower_sum(*e.as<Reduce>(), e, s, top);
      case NodeKind::Loop:
        unsupported(e, "`loop`");
      case NodeKind::Scan:
        unsupported(e, "`scan`");
      case NodeKind::Scatter:
        unsupported(e, "`scatter`");
      default:
        unsupported(e, std::string("`") + kind_name(e->kind) + "` in a scalar position");
    }
  }

  Expr lower_sum(const Reduce& r, Expr self, const Scope& s, bool top) {
    if (r.op != ReduceOp::Sum)
      unsupported(self, std::string("a `") + op_name(r.op) + "` reduction");
    if (r.dom.is_stored()) unsupported(self, "iteration over stored entries");
    std::vector<Binder> bs;
    for (std::size_t k = 0; k < r.dom.vars.size(); ++k) {
      Scope bound_scope = s.with_binders(bs);  // the enclosing binders and the earlier ones
      const Expr bound = bound_in_env(r.dom.bounds[k], self, bound_scope);
      for (const auto& b : s.binders)
        if (is_free_in(b.var, bound)) unsupported(self, "a triangular sum bound");
      for (std::size_t j = 0; j < k; ++j)
        if (is_free_in(r.dom.vars[j], bound)) unsupported(self, "a triangular sum bound");
      bs.push_back(Binder{r.dom.vars[k], bound});
    }
    Expr body = lower(r.body, s.with_binders(bs), true);
    SumTerm t = as_sum_term(body);
    t.binders.insert(t.binders.begin(), bs.begin(), bs.end());
    for (auto& d : t.depths) d += bs.size();
    Expr e = eliminate_sums(t, facts_of(s), logic_);  // paper 000 errata 10 (SE)
    if (top || !contains_sum(e)) return e;
    return lift(e, s, "s");  // Tensor SSA: a sum that is an operand is its own statement
  }

  // A sum bound naming a `let` (`let k = n - 1` then `sum[i < k]`) reads the statement the let
  // became: its name was left dangling (an error on a valid program). A let that became a read
  // of a lifted tensor at binders is a bound that varies with them.
  Expr bound_in_env(Expr bound, Expr sum, const Scope& s) {
    SubstMap m;
    for (auto v : free_vars(bound))
      if (auto it = env_.find(v); it != env_.end() && !binds(s, v)) {
        if (!it->second.prefix.empty()) unsupported(sum, "a triangular sum bound");
        m[v] = it->second.base;
      }
    return m.empty() ? bound : substitute(bound, m);
  }

  static bool is_leaf(Expr e) {
    switch (e->kind) {
      case NodeKind::Literal:
      case NodeKind::Var:
        return true;
      case NodeKind::Access:
        return e.as<Access>()->tensor.as<Var>() != nullptr;
      case NodeKind::Unary:
        return is_leaf(e.as<Unary>()->a);
      case NodeKind::Iverson:
        return is_leaf(e.as<Iverson>()->body);
      case NodeKind::Prim: {
        auto* p = e.as<Prim>();
        return (p->op == PrimOp::ToF64 || p->op == PrimOp::ToF32) &&
               !is_float(p->args[0]->type.elem);
      }
      default:
        return false;
    }
  }

  static bool contains_sum(Expr e) {
    struct Finder : Visitor {
      bool found = false;
      void visit_node(const Reduce& r, Expr self) override {
        (void)r;
        (void)self;
        found = true;
      }
    } f;
    f.visit(e);
    return f.found;
  }

  // tensor[idx...] as a scalar expression: a statement's value `gen[I] e` read at its fresh
  // binders is `e` (5.21; the range guard is proved by the binders' ranges).
  Expr lower_access(Expr t, const std::vector<Expr>& idx, const Scope& s, bool top) {
    note_position(t);
    switch (t->kind) {
      case NodeKind::Var: {
        if (auto it = env_.find(t); it != env_.end()) return read_ref(it->second, idx);
        return read(t, idx);
      }
      case NodeKind::Access: {
        auto* a = t.as<Access>();
        std::vector<Expr> all;
        for (auto i : a->indices) all.push_back(lower_index(i));
        all.insert(all.end(), idx.begin(), idx.end());
        return lower_access(a->tensor, all, s, top);
      }
      case NodeKind::Gen: {
        auto* g = t.as<Gen>();
        std::size_t k = g->dom.vars.size();
        if (idx.size() < k) unsupported(t, "a partial access into a `gen`");
        SubstMap m;
        std::vector<Expr> atoms;
        auto facts = facts_of(s);
        for (std::size_t d = 0; d < k; ++d) {
          m[g->dom.vars[d]] = idx[d];
          Expr in = Binary::make(BinaryOp::And, Binary::make(BinaryOp::Le, int_lit(0), idx[d]),
                                 Binary::make(BinaryOp::Lt, idx[d], g->dom.bounds[d]));
          if (logic_.implies(facts, in) != logic::Answer::Yes) atoms.push_back(in);
        }
        Expr body = substitute(g->body, m);
        std::vector<Expr> rest(idx.begin() + static_cast<std::ptrdiff_t>(k), idx.end());
        Scope inner = s;
        for (auto a : atoms) inner = inner.with_guard(a);
        return guard(atoms, lower_access(body, rest, inner, top));
      }
      case NodeKind::Iverson: {
        auto* iv = t.as<Iverson>();
        Expr p = taken_predicate(iv->pred, s);  // a bracket on data: the select extension
        return Iverson::make(p, lower_access(iv->body, idx, s.with_guard(p), top));
      }
      case NodeKind::Select: {
        auto* sel = t.as<Select>();
        Expr c = taken_predicate(sel->cond, s);
        Expr nc = Unary::make(UnaryOp::Not, c);
        Expr a = lower_access(sel->then_value, idx, s.with_guard(c), false);
        Expr b = lower_access(sel->else_value, idx, s.with_guard(nc), false);
        return one_of_two(guard({c}, a), guard({nc}, b));
      }
      default:
        if (idx.empty()) return lower(t, s, top);
        unsupported(t, construct_name(t));
    }
  }
};

}  // namespace

SsaProgram to_tensor_ssa(const Function& f, FreshNames& names, logic::PredicateService& logic) {
  if (auto v = is_gen_pushed_out(f); !v.ok)
    throw InternalError("iverson: Tensor SSA conversion needs a Gen-pushed-out program: " +
                        v.reason);
  std::vector<Expr> facts;
  for (auto sz : f.sizes) facts.push_back(Binary::make(BinaryOp::Le, int_lit(0), sz));
  return Lowerer(names, logic, facts).run(f);
}

}  // namespace adlab::ad::iverson
