#include "ir/logic/predicates.h"

#include "ir/affine.h"
#include "ir/builder.h"
#include "ir/logic/smt_encoding.h"
#include "ir/substitute.h"
#include "ir/visitor.h"

namespace adlab::ir::logic {

const char* answer_name(Answer a) {
  switch (a) {
    case Answer::Yes:
      return "yes";
    case Answer::No:
      return "no";
    case Answer::Unknown:
      return "unknown";
  }
  return "?";
}

std::vector<Expr> conjuncts(Expr p) {
  std::vector<Expr> out, stack{p};
  while (!stack.empty()) {
    Expr e = stack.back();
    stack.pop_back();
    auto* b = e.as<Binary>();
    if (b && b->op == BinaryOp::And) {
      stack.push_back(b->b);
      stack.push_back(b->a);
    } else {
      out.push_back(e);
    }
  }
  return out;
}

namespace {

// An integer comparison as `form >= 0` (strict: `form > 0` becomes `form - 1 >= 0`) or
// `form == 0`; nullopt for anything else.
struct Linear {
  Affine form;
  bool equality = false;
};

Affine minus(Affine a, const Affine& b) {
  for (const auto& [atom, c] : b.coeffs) {
    a.coeffs[atom] -= c;
    if (a.coeffs[atom] == 0) a.coeffs.erase(atom);
  }
  a.constant -= b.constant;
  return a;
}

std::optional<Linear> linear(Expr p) {
  auto* b = p.as<Binary>();
  if (!b || !is_comparison(b->op) || b->a->type.elem != ElemType::I64) return std::nullopt;
  auto x = to_affine(b->a, true), y = to_affine(b->b, true);
  if (!x || !y) return std::nullopt;
  switch (b->op) {
    case BinaryOp::Ge:
      return Linear{minus(*x, *y), false};
    case BinaryOp::Gt: {
      Linear l{minus(*x, *y), false};
      l.form.constant -= 1;
      return l;
    }
    case BinaryOp::Le:
      return Linear{minus(*y, *x), false};
    case BinaryOp::Lt: {
      Linear l{minus(*y, *x), false};
      l.form.constant -= 1;
      return l;
    }
    case BinaryOp::Eq:
      return Linear{minus(*x, *y), true};
    default:
      return std::nullopt;
  }
}

Answer check(PredicateStats& stats, z3::solver& s) {
  switch (s.check()) {
    case z3::unsat:
      ++stats.solver;
      return Answer::Yes;
    case z3::sat:
      ++stats.solver;
      return Answer::No;
    default:
      ++stats.unknown;
      return Answer::Unknown;
  }
}

}  // namespace

std::optional<bool> PredicateService::implies_fast(const std::vector<Expr>& facts,
                                                   Expr goal) const {
  if (is_literal(goal, 1)) return true;
  for (const auto& f : facts)
    if (f == goal) return true;
  auto* gb = goal.as<Binary>();
  if (gb && gb->op == BinaryOp::And) {
    for (const auto& c : conjuncts(goal)) {
      auto r = implies_fast(facts, c);
      if (!r || !*r) return std::nullopt;
    }
    return true;
  }
  auto g = linear(goal);
  if (!g) return std::nullopt;
  if (g->form.is_constant()) return g->equality ? g->form.constant == 0 : g->form.constant >= 0;
  if (g->equality) return std::nullopt;
  // goal - fact (or goal - fact1 - fact2) a non-negative constant, facts as `form >= 0`.
  std::vector<Affine> lower;
  for (const auto& f : facts)
    for (const auto& c : conjuncts(f)) {
      auto l = linear(c);
      if (!l) continue;
      lower.push_back(l->form);
      if (l->equality) {  // form == 0 gives form >= 0 and -form >= 0
        Affine neg;
        neg = minus(neg, l->form);
        lower.push_back(neg);
      }
    }
  for (std::size_t a = 0; a < lower.size(); ++a) {
    Affine d = minus(g->form, lower[a]);
    if (d.is_constant() && d.constant >= 0) return true;
    for (std::size_t b = a; b < lower.size(); ++b) {
      Affine d2 = minus(d, lower[b]);
      if (d2.is_constant() && d2.constant >= 0) return true;
    }
  }
  return std::nullopt;
}

namespace {
// True when some subterm has a floating type. The solver works over the reals, which float
// arithmetic is not: `x + 1 == x` holds for x = 1e16 in double and for no real, so such a fact
// would make the facts contradictory and every goal "implied" (decision 152).
bool mentions_float(Expr e) {
  std::vector<Expr> stack{e};
  while (!stack.empty()) {
    Expr t = stack.back();
    stack.pop_back();
    if (is_float(t->type.elem)) return true;
    for (Expr c : children(t)) stack.push_back(c);
  }
  return false;
}
}  // namespace

Answer PredicateService::implies_by_solver(const std::vector<Expr>& facts, Expr goal) {
  // A goal about floats has no real-number proof that holds in double: not decided here.
  if (mentions_float(goal)) {
    ++stats_.unknown;
    return Answer::Unknown;
  }
  z3::context z;
  Encoder enc(z, Arith::Real);
  enc.symbols_for_free_vars();
  z3::solver s(z);
  z3::params params(z);
  params.set("timeout", timeout_ms_);
  s.set(params);
  try {
    for (const auto& f : facts) {
      if (mentions_float(f)) continue;  // dropping a fact only weakens what is implied
      SymValue v = enc.encode(f);
      s.add(v.defined() && v.value());
    }
    SymValue g = enc.encode(goal);
    for (const auto& a : enc.assumptions) s.add(a);
    s.add(!(g.defined() && g.value()));
  } catch (const Unencodable&) {
    ++stats_.unknown;
    return Answer::Unknown;
  }
  return check(stats_, s);
}

Answer PredicateService::implies(const std::vector<Expr>& facts, Expr goal) {
  if (auto r = implies_fast(facts, goal); r && *r) {
    ++stats_.fast;
    return Answer::Yes;
  }
  return implies_by_solver(facts, goal);
}

Answer PredicateService::equivalent(Expr p, Expr q, const std::vector<Expr>& facts) {
  if (p == q) {
    ++stats_.fast;
    return Answer::Yes;
  }
  auto lp = linear(p), lq = linear(q);
  if (lp && lq && lp->equality == lq->equality && lp->form == lq->form) {
    ++stats_.fast;
    return Answer::Yes;
  }
  auto with = [&](Expr extra) {
    auto f = facts;
    f.push_back(extra);
    return f;
  };
  Answer a = implies(with(p), q);
  if (a != Answer::Yes) return a;
  return implies(with(q), p);
}

Answer PredicateService::is_empty(Expr p, const std::vector<Expr>& facts) {
  if (is_literal(p, 0)) {
    ++stats_.fast;
    return Answer::Yes;
  }
  auto f = facts;
  f.push_back(p);
  return implies(f, Literal::make(0, ElemType::Bool));  // facts && p imply false
}

std::optional<Expr> PredicateService::solve_for(Expr p, Expr i) {
  for (const auto& c : conjuncts(p)) {
    auto* b = c.as<Binary>();
    if (!b || b->op != BinaryOp::Eq || b->a->type.elem != ElemType::I64) continue;
    if (b->a == i && !is_free_in(i, b->b)) return b->b;
    if (b->b == i && !is_free_in(i, b->a)) return b->a;
    // c0 + k*i + rest == 0 with k = +-1: i = -(c0 + rest) / k.
    auto l = linear(c);
    if (!l) continue;
    auto it = l->form.coeffs.find(i);
    if (it == l->form.coeffs.end() || (it->second != 1 && it->second != -1)) continue;
    std::int64_t k = it->second;
    Affine rest = l->form;
    rest.coeffs.erase(i);
    bool opaque_mentions_i = false;
    for (const auto& [atom, coeff] : rest.coeffs)
      if (is_free_in(i, atom)) opaque_mentions_i = true;
    if (opaque_mentions_i) continue;
    // i = -rest / k = -k * rest (k = +-1).
    Affine sol;
    sol.constant = -k * rest.constant;
    for (const auto& [atom, coeff] : rest.coeffs) sol.coeffs[atom] = -k * coeff;
    return from_affine(sol);
  }
  return std::nullopt;
}

namespace {

// exists[i < n] p for p a conjunction of atoms without i and of inequalities with coefficient
// +-1 on i: every lower bound below every upper bound (Fourier-Motzkin, exact on integers for
// unit coefficients). nullopt for any other p.
std::optional<Expr> project_by_bounds(Expr i, Expr n, Expr p) {
  std::vector<Affine> lower{Affine{}}, upper;  // L <= i, i < U
  if (auto un = to_affine(n, true))
    upper.push_back(*un);
  else
    return std::nullopt;
  Expr rest;
  for (const auto& c : conjuncts(p)) {
    if (!is_free_in(i, c)) {
      rest = rest.defined() ? Binary::make(BinaryOp::And, rest, c) : c;
      continue;
    }
    auto l = linear(c);
    if (!l || l->equality) return std::nullopt;
    auto it = l->form.coeffs.find(i);
    if (it == l->form.coeffs.end() || (it->second != 1 && it->second != -1)) return std::nullopt;
    std::int64_t k = it->second;
    Affine r = l->form;  // k * i + r >= 0
    r.coeffs.erase(i);
    for (const auto& [atom, coeff] : r.coeffs)
      if (is_free_in(i, atom)) return std::nullopt;
    if (k == 1) {
      lower.push_back(minus(Affine{}, r));  // i >= -r
    } else {
      r.constant += 1;  // i <= r, i.e. i < r + 1
      upper.push_back(r);
    }
  }
  Expr out = rest;
  for (const auto& l : lower)
    for (const auto& u : upper) {
      Expr atom = Binary::make(BinaryOp::Lt, from_affine(l), from_affine(u));
      out = out.defined() ? Binary::make(BinaryOp::And, out, atom) : atom;
    }
  return out;
}

}  // namespace

Expr PredicateService::project_exists(Expr exists_node) {
  auto* ex = exists_node.as<Exists>();
  if (!ex || ex->dom.is_stored() || ex->dom.vars.size() != 1) return exists_node;
  Expr i = ex->dom.vars[0];
  auto a = solve_for(ex->pred, i);
  if (a && !never_fails(*a)) return exists_node;  // evaluated first below (decision 184)
  if (!a) {
    auto q = project_by_bounds(i, ex->dom.bounds[0], ex->pred);
    if (!q) return exists_node;
    ++stats_.fast;
    return *q;
  }
  ++stats_.fast;
  using namespace dsl;
  Expr out = le(ilit(0), *a) && lt(*a, ex->dom.bounds[0]);
  for (const auto& c : conjuncts(ex->pred)) {
    Expr ci = substitute(c, i, *a);
    if (auto l = linear(ci); l && l->form.is_constant() && l->equality && l->form.constant == 0)
      continue;  // the solved equation itself, now a == a
    out = out && ci;
  }
  return out;
}

bool never_fails(Expr a) {
  // a read or a scatter's `at` may be out of range; a call may fail anywhere
  if (a.as<Access>() || a.as<Call>() || a.as<Scatter>()) return false;
  if (auto* r = a.as<Reduce>(); r && r->op != ReduceOp::Sum) return false;  // max over nothing
  if (auto* p = a.as<Prim>(); p && p->op == PrimOp::ToI64 && is_float(p->args[0]->type.elem))
    return false;  // i64(...) of a value that is not a representable integer
  // integer `/` and `%` by a non-positive value fail; a float `/` is IEEE (decision 197)
  if (auto* b = a.as<Binary>();
      b && (b->op == BinaryOp::Div || b->op == BinaryOp::Mod) && !is_float(b->type.elem)) {
    auto* lit = b->b.as<Literal>();
    if (!lit || !(lit->value >= 1)) return false;
  }
  // a gen or scan with a negative bound is an error (a sum over it is 0)
  const Domain* dom = a.as<Gen>() ? &a.as<Gen>()->dom : a.as<Scan>() ? &a.as<Scan>()->dom : nullptr;
  if (dom)
    for (auto b : dom->bounds)
      if (extent_of_bound(b) != b) return false;
  for (auto c : children(a))
    if (!never_fails(c)) return false;
  return true;
}

}  // namespace adlab::ir::logic
