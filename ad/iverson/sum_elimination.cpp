// Summation elimination (paper 000 errata 10, SE with its range guard).
#include "ad/iverson/sum_elimination.h"

#include <algorithm>

#include "ir/affine.h"
#include "ir/builder.h"
#include "ir/substitute.h"

namespace adlab::ad::iverson {

using namespace ir;

namespace {

void split_atoms(Expr p, std::vector<Expr>& out) {
  for (auto c : logic::conjuncts(p))
    if (!(c.as<Literal>() && c.as<Literal>()->value != 0)) out.push_back(c);
}

bool mentions_any(Expr e, const std::vector<Binder>& bs) {
  for (const auto& b : bs)
    if (is_free_in(b.var, e)) return true;
  return false;
}

// A comparison whose two sides have a constant difference, decided (nullopt otherwise).
std::optional<bool> decide_constant(Expr atom) {
  auto* b = atom.as<Binary>();
  if (!b || !is_comparison(b->op) || b->a->type.elem != ElemType::I64) return std::nullopt;
  auto l = to_affine(b->a, true), r = to_affine(b->b, true);
  if (!l || !r) return std::nullopt;
  Affine d = *l;
  for (const auto& [atom2, c] : r->coeffs) {
    d.coeffs[atom2] -= c;
    if (d.coeffs[atom2] == 0) d.coeffs.erase(atom2);
  }
  d.constant -= r->constant;
  if (!d.is_constant()) return std::nullopt;
  std::int64_t v = d.constant;
  switch (b->op) {
    case BinaryOp::Eq:
      return v == 0;
    case BinaryOp::Ne:
      return v != 0;
    case BinaryOp::Lt:
      return v < 0;
    case BinaryOp::Le:
      return v <= 0;
    case BinaryOp::Gt:
      return v > 0;
    case BinaryOp::Ge:
      return v >= 0;
    default:
      return std::nullopt;
  }
}

void disjuncts(Expr p, std::vector<Expr>& out) {
  if (auto* b = p.as<Binary>(); b && b->op == BinaryOp::Or) {
    disjuncts(b->a, out);
    disjuncts(b->b, out);
  } else if (std::find(out.begin(), out.end(), p) == out.end()) {
    out.push_back(p);
  }
}

// [p || p] is [p] (a support substituted at one point repeats its disjuncts).
Expr without_repeated_disjuncts(Expr p) {
  std::vector<Expr> ds;
  disjuncts(p, ds);
  Expr out;
  for (auto d : ds) out = out.defined() ? Binary::make(BinaryOp::Or, out, d) : d;
  return out;
}

}  // namespace

SumTerm as_sum_term(Expr e) {
  SumTerm t;
  for (;;) {
    if (auto* iv = e.as<Iverson>()) {
      split_atoms(iv->pred, t.atoms);
      e = iv->body;
    } else if (auto* r = e.as<Reduce>(); r && r->op == ReduceOp::Sum && !r->dom.is_stored()) {
      for (std::size_t k = 0; k < r->dom.vars.size(); ++k)
        t.binders.push_back(Binder{r->dom.vars[k], r->dom.bounds[k]});
      e = r->body;
    } else {
      break;
    }
  }
  t.factor = e;
  return t;
}

// paper 000 errata 10 (SE): sum[i < n] [i == a && p] * e = [0 <= a < n] * [p{i := a}] * e{i := a}
Expr eliminate_sums(SumTerm t, const std::vector<Expr>& facts, logic::PredicateService& logic) {
  std::vector<Expr> atoms;
  for (auto a : t.atoms) split_atoms(a, atoms);
  bool progress = true;
  while (progress) {
    progress = false;
    for (std::size_t bi = 0; bi < t.binders.size() && !progress; ++bi) {
      Expr i = t.binders[bi].var;
      for (std::size_t ai = 0; ai < atoms.size() && !progress; ++ai) {
        auto sol = logic.solve_for(atoms[ai], i);
        if (!sol) continue;
        Expr a = *sol;
        // A value that can fail (`i % m`) was evaluated only inside a non-empty sum and after
        // the conjuncts before its equation (`0 < m && j == i % m`): it keeps that place, behind
        // `0 < n`, and is solved only where nothing before it reads i (decision 184).
        const bool may_fail = !logic::never_fails(a);
        bool earlier_reads_i = false;
        for (std::size_t o = 0; o < ai; ++o) earlier_reads_i |= is_free_in(i, atoms[o]);
        if (may_fail && earlier_reads_i) continue;
        Expr bound = t.binders[bi].bound;
        atoms.erase(atoms.begin() + static_cast<std::ptrdiff_t>(ai));
        t.binders.erase(t.binders.begin() + static_cast<std::ptrdiff_t>(bi));
        for (auto& x : atoms) x = substitute(x, i, a);
        for (auto& b : t.binders) b.bound = substitute(b.bound, i, a);
        t.factor = substitute(t.factor, i, a);
        // the range guard of the eliminated index (errata 7), first: `&&` evaluates left to
        // right, and a later atom may read a tensor at a
        std::vector<Expr> guard = {Binary::make(BinaryOp::Le, int_lit(0), a),
                                   Binary::make(BinaryOp::Lt, a, bound)};
        if (may_fail) guard.insert(guard.begin(), Binary::make(BinaryOp::Lt, int_lit(0), bound));
        atoms.insert(atoms.begin() + static_cast<std::ptrdiff_t>(may_fail ? ai : 0), guard.begin(),
                     guard.end());
        progress = true;
      }
    }
  }
  // Brackets decided by constants or by the context.
  std::vector<Expr> context = facts;
  for (auto f : range_facts(t.binders)) context.push_back(f);
  std::vector<Expr> kept;
  for (auto a : atoms) {
    a = without_repeated_disjuncts(a);
    if (std::find(kept.begin(), kept.end(), a) != kept.end()) continue;
    if (auto c = decide_constant(a)) {
      if (!*c) return zero_like(t.factor);
      continue;
    }
    if (logic.implies(context, a) == logic::Answer::Yes) continue;
    kept.push_back(a);
  }
  if (!kept.empty() && logic.is_empty(conj(kept), context) == logic::Answer::Yes)
    return zero_like(t.factor);
  // Indices nothing mentions: sum[i < n] c = [0 < n] * (n * c). The bracket keeps an empty sum 0
  // where n may be 0 or negative (a bound `n - 1`) or c is not finite (0 * NaN is NaN).
  std::vector<Binder> used;
  std::vector<Expr> nonempty;
  Expr count;
  for (const auto& b : t.binders) {
    bool needed = is_free_in(b.var, t.factor);
    for (auto a : kept) needed = needed || is_free_in(b.var, a);
    for (const auto& o : t.binders)
      needed = needed || is_free_in(b.var, o.bound) || is_free_in(o.var, b.bound);
    if (needed) {
      used.push_back(b);
      continue;
    }
    if (auto* l = b.bound.as<Literal>(); l && l->value == 1) continue;
    count = count.defined() ? Binary::make(BinaryOp::Mul, count, b.bound) : b.bound;
    Expr positive = Binary::make(BinaryOp::Lt, int_lit(0), b.bound);
    if (logic.implies(facts, positive) != logic::Answer::Yes) nonempty.push_back(positive);
  }
  std::vector<Expr> outer, inner;
  for (auto a : kept) (mentions_any(a, used) ? inner : outer).push_back(a);
  outer.insert(outer.end(), nonempty.begin(), nonempty.end());
  Expr body = sum_over(used, guard(inner, t.factor));
  if (count.defined()) {
    body = mul(dsl::to_float(count, t.factor->type.elem), body);
  }
  return guard(outer, body);
}

}  // namespace adlab::ad::iverson
