// One-hot sum elimination (paper 001 e4 with its bounds condition; paper 000 errata 10 SE).
#include "ad/fwdvec/one_hot_sum.h"

#include <algorithm>

#include "ad/fwdvec/lane_algebra.h"
#include "ir/affine.h"
#include "ir/logic/predicates.h"
#include "ir/substitute.h"

namespace adlab::ad::fwdvec {

using namespace ir;

namespace {

void conjuncts(Expr p, std::vector<Expr>& out) {
  if (auto* b = p.as<Binary>(); b && b->op == BinaryOp::And) {
    conjuncts(b->a, out);
    conjuncts(b->b, out);
  } else {
    out.push_back(p);
  }
}

bool mentions_any(Expr e, const std::vector<Expr>& vars) {
  for (auto v : vars)
    if (is_free_in(v, e)) return true;
  return false;
}

}  // namespace

Expr one_hot_sum(const Domain& dom, Expr body, Expr known_var, Expr known_bound) {
  auto* br = body.as<Iverson>();
  if (dom.is_stored() || !br || !body->type.is_scalar())
    return Reduce::make(ReduceOp::Sum, dom, body);
  std::vector<Expr> cs;
  conjuncts(br->pred, cs);
  for (std::size_t c = 0; c < cs.size(); ++c) {
    auto* eq = cs[c].as<Binary>();
    if (!eq || eq->op != BinaryOp::Eq) continue;
    for (int side = 0; side < 2; ++side) {
      Expr v = side == 0 ? eq->a : eq->b, a = side == 0 ? eq->b : eq->a;
      auto it = std::find(dom.vars.begin(), dom.vars.end(), v);
      if (it == dom.vars.end() || mentions_any(a, dom.vars)) continue;
      std::size_t k = static_cast<std::size_t>(it - dom.vars.begin());
      // A later bound that reads v (`l < j`) would get a in its place: only an affine a keeps
      // it a valid bound (`l < dir / m` is not; found by a fuzzing helper).
      bool bound_reads_v = false;
      for (std::size_t j = 0; j < dom.vars.size(); ++j)
        bound_reads_v |= j != k && is_free_in(v, dom.bounds[j]);
      if (bound_reads_v && !to_affine(a)) continue;
      Expr bound = dom.bounds[k];
      // A value that can fail (`i % m`) was evaluated only inside a non-empty sum, after the
      // conjuncts before its equation: solved only where none of those reads v, behind `0 < n`,
      // and only where no other binder's range could have been empty (decisions 184, 194).
      const bool may_fail = !logic::never_fails(a);
      bool earlier_reads_v = false;
      for (std::size_t o = 0; o < c; ++o) earlier_reads_v |= is_free_in(v, cs[o]);
      if (may_fail && (earlier_reads_v || dom.vars.size() > 1)) continue;
      // [0 <= a && a < n]: the bounds condition of e4 (digest 001 section 4.5). `&&`
      // short-circuits: it goes first, before the conjuncts that now read at a (`c[v] > 0`
      // becomes `c[a] > 0`; decision 194); a value that can fail goes in the place of its
      // equation, behind `0 < n` and the conjuncts that guarded it (`0 < m` before `% m`).
      const bool guarded = !(known_var.defined() && a == known_var && bound == known_bound);
      const Expr in_range =
          guarded ? t_and(Binary::make(BinaryOp::Le, Literal::make(0, ElemType::I64), a),
                          Binary::make(BinaryOp::Lt, a, bound))
                  : Expr();
      Expr pred;
      if (may_fail && guarded)
        pred = Binary::make(BinaryOp::Lt, Literal::make(0, ElemType::I64), bound);
      if (!may_fail) pred = t_and(pred, in_range);
      for (std::size_t o = 0; o < c; ++o) pred = t_and(pred, substitute(cs[o], v, a));
      if (may_fail) pred = t_and(pred, in_range);
      for (std::size_t o = c + 1; o < cs.size(); ++o) pred = t_and(pred, substitute(cs[o], v, a));
      Expr body2 = substitute(br->body, v, a);
      Expr rest = pred.defined() ? Iverson::make(pred, body2) : body2;
      Domain d2;
      for (std::size_t j = 0; j < dom.vars.size(); ++j) {
        if (j == k) continue;
        d2.vars.push_back(dom.vars[j]);
        d2.bounds.push_back(substitute(dom.bounds[j], v, a));
      }
      if (d2.vars.empty()) return rest;
      return one_hot_sum(d2, rest, known_var, known_bound);
    }
  }
  return Reduce::make(ReduceOp::Sum, dom, body);
}

}  // namespace adlab::ad::fwdvec
