// Summation elimination (paper 000 errata 10, SE with its range guard).
#include "ad/iverson/sum_elimination.h"

#include <algorithm>
#include <optional>

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
      t.depths.resize(t.atoms.size(), t.binders.size());
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
  struct Atom {
    Expr e;
    std::size_t depth;  // binders around it (SumTerm::depths)
  };
  std::vector<Atom> atoms;
  for (std::size_t k = 0; k < t.atoms.size(); ++k) {
    std::vector<Expr> parts;
    split_atoms(t.atoms[k], parts);
    for (auto c : parts) atoms.push_back({c, k < t.depths.size() ? t.depths[k] : t.binders.size()});
  }
  bool progress = true;
  while (progress) {
    progress = false;
    for (std::size_t bi = 0; bi < t.binders.size() && !progress; ++bi) {
      Expr i = t.binders[bi].var;
      for (std::size_t ai = 0; ai < atoms.size() && !progress; ++ai) {
        auto sol = logic.solve_for(atoms[ai].e, i);
        if (!sol) continue;
        Expr a = *sol;
        // A value that can fail (`i % m`) was evaluated only inside a non-empty sum and after
        // the conjuncts before its equation (`0 < m && j == i % m`): it keeps that place, behind
        // `0 < n`, and is solved only where nothing before it reads i (decision 184).
        const bool may_fail = !logic::never_fails(a);
        bool earlier_reads_i = false;
        for (std::size_t o = 0; o < ai; ++o) earlier_reads_i |= is_free_in(i, atoms[o].e);
        if (may_fail && earlier_reads_i) continue;
        // The bound was evaluated after the conjuncts outside the binder (`[0 < m] * sum[j < n /
        // m]`): the range guard goes after them (decision 189); the equation is inside.
        std::size_t after_outside = 0;
        for (std::size_t o = 0; o < atoms.size(); ++o)
          if (o != ai && atoms[o].depth <= bi) after_outside = o < ai ? o + 1 : o;
        const std::size_t at = may_fail ? ai : after_outside;
        if (at < after_outside) continue;
        Expr bound = t.binders[bi].bound;
        atoms.erase(atoms.begin() + static_cast<std::ptrdiff_t>(ai));
        t.binders.erase(t.binders.begin() + static_cast<std::ptrdiff_t>(bi));
        // an atom stays inside every binder it mentions once a names them
        auto inside = [&](Expr e, std::size_t depth) {
          for (std::size_t b = 0; b < t.binders.size(); ++b)
            if (is_free_in(t.binders[b].var, e)) depth = std::max(depth, b + 1);
          return depth;
        };
        for (auto& x : atoms) {
          x.e = substitute(x.e, i, a);
          x.depth = inside(x.e, x.depth > bi ? x.depth - 1 : x.depth);
        }
        for (auto& b : t.binders) b.bound = substitute(b.bound, i, a);
        t.factor = substitute(t.factor, i, a);
        // the range guard of the eliminated index (errata 7) before the atoms that read at a:
        // `&&` evaluates left to right
        const std::size_t d = inside(a, bi);
        std::vector<Atom> guard = {{Binary::make(BinaryOp::Le, int_lit(0), a), d},
                                   {Binary::make(BinaryOp::Lt, a, bound), d}};
        if (may_fail)
          guard.insert(guard.begin(), {Binary::make(BinaryOp::Lt, int_lit(0), bound), d});
        atoms.insert(atoms.begin() + static_cast<std::ptrdiff_t>(at), guard.begin(), guard.end());
        progress = true;
      }
    }
  }
  // Brackets decided by constants or by the context.
  std::vector<Expr> context = facts;
  for (auto f : range_facts(t.binders)) context.push_back(f);
  std::vector<Atom> kept;
  auto is_kept = [&](Expr a) {
    return std::any_of(kept.begin(), kept.end(), [&](const Atom& k) { return k.e == a; });
  };
  for (auto [a, depth] : atoms) {
    a = without_repeated_disjuncts(a);
    if (is_kept(a)) continue;
    if (auto c = decide_constant(a)) {
      if (!*c) return zero_like(t.factor);
      continue;
    }
    if (logic.implies(context, a) == logic::Answer::Yes) continue;
    kept.push_back({a, depth});
  }
  std::vector<Expr> kept_exprs;
  for (const auto& k : kept) kept_exprs.push_back(k.e);
  if (!kept.empty() && logic.is_empty(conj(kept_exprs), context) == logic::Answer::Yes)
    return zero_like(t.factor);
  // Indices nothing mentions: sum[i < n] c = [0 < n] * (n * c). The bracket keeps an empty sum 0
  // where n may be 0 or negative (a bound `n - 1`) or c is not finite (0 * NaN is NaN).
  std::vector<Binder> used;
  std::vector<bool> is_used(t.binders.size(), false);
  for (std::size_t bi = 0; bi < t.binders.size(); ++bi) {
    const auto& b = t.binders[bi];
    bool needed = is_free_in(b.var, t.factor);
    for (auto a : kept_exprs) needed = needed || is_free_in(b.var, a);
    for (const auto& o : t.binders)
      needed = needed || is_free_in(b.var, o.bound) || is_free_in(o.var, b.bound);
    is_used[bi] = needed;
    if (needed) used.push_back(b);
  }
  auto nonempty = [&](std::size_t bi) -> std::optional<Expr> {
    Expr positive = Binary::make(BinaryOp::Lt, int_lit(0), t.binders[bi].bound);
    if (logic.implies(facts, positive) == logic::Answer::Yes) return std::nullopt;
    return positive;
  };
  // A bracket no remaining index mentions leaves the sum (a false one costs nothing). One that
  // can fail was evaluated only where the binders around it are non-empty and the conjuncts
  // before it held: it leaves only behind `0 < n` of those binders and after every earlier
  // conjunct that left (decision 189).
  std::vector<Expr> outer, inner;
  std::vector<bool> guarded(t.binders.size(), false);
  bool an_earlier_one_stayed = false;
  for (std::size_t k = 0; k < kept.size(); ++k) {
    const Atom& a = kept[k];
    if (mentions_any(a.e, used)) {
      inner.push_back(a.e);
      an_earlier_one_stayed = true;
      continue;
    }
    if (logic::never_fails(a.e)) {
      outer.push_back(a.e);
      continue;
    }
    bool leaves = !an_earlier_one_stayed;
    std::vector<Expr> guards;
    for (std::size_t bi = 0; leaves && bi < std::min(a.depth, t.binders.size()); ++bi) {
      if (guarded[bi]) continue;
      auto positive = nonempty(bi);
      if (!positive) continue;
      Expr bound = t.binders[bi].bound;
      leaves = !mentions_any(bound, t.binders);
      // a bound that can fail was evaluated after the conjuncts outside its binder
      for (std::size_t l = k + 1; leaves && l < kept.size(); ++l)
        leaves = logic::never_fails(bound) || kept[l].depth > bi;
      guards.push_back(*positive);
    }
    if (!leaves) {
      inner.push_back(a.e);
      an_earlier_one_stayed = true;
      continue;
    }
    for (std::size_t bi = 0; bi < std::min(a.depth, t.binders.size()); ++bi) guarded[bi] = true;
    outer.insert(outer.end(), guards.begin(), guards.end());
    outer.push_back(a.e);
  }
  Expr count;
  for (std::size_t bi = 0; bi < t.binders.size(); ++bi) {
    if (is_used[bi]) continue;
    Expr bound = t.binders[bi].bound;
    if (auto* l = bound.as<Literal>(); l && l->value == 1) continue;
    count = count.defined() ? Binary::make(BinaryOp::Mul, count, bound) : bound;
    if (auto positive = nonempty(bi); positive && !guarded[bi]) outer.push_back(*positive);
  }
  Expr body = sum_over(used, guard(inner, t.factor));
  if (count.defined()) {
    body = mul(dsl::to_float(count, t.factor->type.elem), body);
  }
  return guard(outer, body);
}

}  // namespace adlab::ad::iverson
