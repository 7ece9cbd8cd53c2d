// The local adjoint step by rewriting: `g * tangent(e)` under the iverson-adjoint table.
#include "ad/iverson/local_adjoint.h"

#include <limits>
#include <unordered_map>

#include "ad/iverson/scalar_partials.h"
#include "ad/strategy.h"
#include "ir/context.h"
#include "ir/logic/predicates.h"
#include "ir/rewrite/tables/tables.h"
#include "ir/substitute.h"
#include "ir/syntax/printer.h"

namespace adlab::ad::iverson {

using namespace ir;

namespace {

// A placeholder of the local term: an f64 scalar (the rules are proved over the reals; the
// operands' own types come back when the coefficients are rebuilt).
Expr placeholder(const std::string& name) {
  return Var::make(name, Type::scalar(ElemType::F64));
}

// The local term's placeholders and what they stand for.
struct Local {
  std::unordered_map<Expr, Expr, ExprHash> value;           // coefficient placeholder -> its term
  std::unordered_map<Expr, Expr, ExprHash> tangent;         // tangent placeholder -> its operand
  std::unordered_map<Expr, std::size_t, ExprHash> partial;  // black-box partial -> argument
  Expr prim, stored;                                        // for the partials
};

bool mentions(const Local& l, Expr t) {
  for (auto v : free_vars(t))
    if (l.value.count(v) || l.partial.count(v)) return true;
  return false;
}

// A coefficient of the rewritten term with its placeholders replaced, folding 0 and 1 where the
// rule built the product (a `1 * b` would cost a multiplication); `c * f'` of a black box is
// scalar_partial's cheapest form of it (g / a for log).
Expr rebuild(const Local& l, Expr t) {
  if (auto it = l.value.find(t); it != l.value.end()) return it->second;
  if (!mentions(l, t)) return t;
  if (auto* u = t.as<Unary>(); u && u->op == UnaryOp::Neg) return neg(rebuild(l, u->a));
  if (auto* b = t.as<Binary>()) {
    if (auto it = l.partial.find(b->b); b->op == BinaryOp::Mul && it != l.partial.end())
      return scalar_partial(l.prim, it->second, rebuild(l, b->a), l.stored);
    Expr x = rebuild(l, b->a), y = rebuild(l, b->b);
    if (Expr r = fold_arith(b->op, x, y); r.defined()) return r;
  }
  throw InternalError("iverson: a coefficient the adjoint rules built has an unexpected form: " +
                      expr_str(t));
}

// The tangent placeholder a summand ends in: `c * d` or `c * D[j]`.
Expr tangent_of(const Local& l, Expr t) {
  if (auto* a = t.as<Access>()) t = a->tensor;
  return l.tangent.count(t) ? t : Expr();
}

// Rewrites the local term one root step at a time until every summand is `c * tangent`, moving
// the brackets and sums the rules put outside a summand into its context.
void split(rewrite::Engine& engine, const Local& l, Expr t, const SourcePos& at, OperandAdjoint ctx,
           std::vector<OperandAdjoint>& out) {
  if (auto* b = t.as<Binary>()) {
    if (b->op == BinaryOp::Add) {
      split(engine, l, b->a, at, ctx, out);
      split(engine, l, b->b, at, ctx, out);
      return;
    }
    if (Expr d = tangent_of(l, b->b); b->op == BinaryOp::Mul && d.defined()) {
      ctx.operand = l.tangent.at(d);
      ctx.adjoint = rebuild(l, b->a);
      out.push_back(std::move(ctx));
      return;
    }
  }
  if (auto* iv = t.as<Iverson>()) {  // a bracket (6.25) put outside: the summand's context
    for (auto c : logic::conjuncts(iv->pred)) {
      ctx.atoms.push_back(c);
      ctx.depths.push_back(ctx.binders.size());
    }
    split(engine, l, iv->body, at, std::move(ctx), out);
    return;
  }
  if (auto* r = t.as<Reduce>(); r && r->op == ReduceOp::Sum && !r->dom.is_stored()) {
    for (std::size_t k = 0; k < r->dom.vars.size(); ++k)  // a sum (6.26) put outside
      ctx.binders.push_back(Binder{r->dom.vars[k], r->dom.bounds[k]});
    split(engine, l, r->body, at, std::move(ctx), out);
    return;
  }
  auto next = engine.step(t, {}, at);
  if (!next)
    throw InternalError("iverson: no rule of `iverson-adjoint` applies to the local term " +
                        expr_str(t));
  split(engine, l, *next, at, std::move(ctx), out);
}

}  // namespace

LocalAdjoint::LocalAdjoint()
    : engine_({&rewrite::iverson_adjoint_table()},
              rewrite::EngineOptions{.max_steps = std::numeric_limits<std::size_t>::max(),
                                     .record_trace = true}) {}

std::vector<OperandAdjoint> LocalAdjoint::operator()(Expr e, Expr g, Expr stored,
                                                     const std::function<bool(Expr)>& active) {
  Local l;
  l.prim = e;
  l.stored = stored;
  Expr gp = placeholder("γ");
  l.value[gp] = g;
  auto value = [&](const std::string& name, Expr term) {
    Expr p = placeholder(name);
    l.value[p] = term;
    return p;
  };
  auto tangent = [&](const std::string& name, Expr operand) {
    Expr p = placeholder(name);
    l.tangent[p] = operand;
    return p;
  };
  std::size_t fwd_seen = tangent_.trace().size(), adj_seen = engine_.trace().size();
  auto record = [&] {  // the forward step first, then the adjoint steps
    for (std::size_t k = fwd_seen; k < tangent_.trace().size(); ++k)
      trace_.push_back(tangent_.trace()[k]);
    for (std::size_t k = adj_seen; k < engine_.trace().size(); ++k)
      trace_.push_back(engine_.trace()[k]);
    fwd_seen = tangent_.trace().size();
    adj_seen = engine_.trace().size();
  };
  // The node's tangent with a placeholder per operand tangent and per operand value: the forward
  // rules (6.3)-(6.5), (6.10) at one level, from the iverson-forward table.
  Expr redex;
  SourcePos at = pos_of(e);
  auto collect = [&](Expr term) {
    std::vector<OperandAdjoint> out;
    split(engine_, l, term, at, OperandAdjoint{}, out);
    record();
    return out;
  };
  switch (e->kind) {
    case NodeKind::Unary:
      if (auto* u = e.as<Unary>(); u->op == UnaryOp::Neg)
        redex = tangent_(Unary::make(UnaryOp::Neg, value("α", u->a)), tangent("δa", u->a), Expr());
      break;
    case NodeKind::Binary: {
      auto* b = e.as<Binary>();
      if (b->op != BinaryOp::Add && b->op != BinaryOp::Sub && b->op != BinaryOp::Mul &&
          b->op != BinaryOp::Div)
        break;
      Expr local = Binary::make(b->op, value("α", b->a), value("β", b->b));
      redex = tangent_(local, tangent("δa", b->a), tangent("δb", b->b));
      break;
    }
    case NodeKind::Prim: {  // (6.8) d f(a) = f'(a) da, f' a placeholder, one argument at a time
      // (fwd-blackbox states (6.8) for exp only; the partial itself is scalar_partial's)
      auto* p = e.as<Prim>();
      std::vector<OperandAdjoint> out;
      for (std::size_t k = 0; k < p->args.size(); ++k) {
        if (!active(p->args[k])) continue;
        Expr fk = placeholder("φ" + std::to_string(k));
        l.partial[fk] = k;
        Expr dk = tangent("δ" + std::to_string(k), p->args[k]);
        Expr r = Binary::make(BinaryOp::Mul, gp, Binary::make(BinaryOp::Mul, fk, dk));
        for (auto& o : collect(r)) out.push_back(std::move(o));
      }
      return out;
    }
    case NodeKind::Iverson: {  // (6.10) d([p] e) = [p] de
      auto* iv = e.as<Iverson>();
      redex =
          tangent_(Iverson::make(iv->pred, value("α", iv->body)), tangent("δa", iv->body), Expr());
      break;
    }
    case NodeKind::Reduce: {  // (6.11) d(sum[j] e) = sum[j] de, one index at a time
      auto* r = e.as<Reduce>();
      if (r->op != ReduceOp::Sum || r->dom.is_stored()) break;
      // g itself goes into the term (when it has the rule's type), so the engine checks
      // not_free(j, g) on it, not on a placeholder
      Expr gs = g->type.elem == ElemType::F64 ? g : gp;
      OperandAdjoint whole{r->body, {}, {}, g};
      for (std::size_t k = 0; k < r->dom.vars.size(); ++k) {
        Expr j = r->dom.vars[k], n = r->dom.bounds[k];
        Expr dj = Var::make("Δ" + std::to_string(k), Type::tensor(ElemType::F64, {n}));
        l.tangent[dj] = r->body;
        Domain one;
        one.vars = {j};
        one.bounds = {n};
        Expr term = Binary::make(BinaryOp::Mul, gs,
                                 Reduce::make(ReduceOp::Sum, one, Access::make(dj, {j})));
        auto parts = collect(term);
        ADLAB_CHECK(parts.size() == 1 && parts[0].binders.size() == 1 && parts[0].atoms.empty() &&
                    parts[0].adjoint == g)
            << "adj-sum must broadcast g over " << var_name(j);
        whole.binders.push_back(parts[0].binders[0]);
      }
      return {whole};
    }
    default:
      break;
  }
  if (!redex.defined())
    throw Unsupported(
        at, std::string("iverson: no adjoint rule for `") + kind_name(e->kind) + "` in Tensor SSA");
  return collect(Binary::make(BinaryOp::Mul, gp, redex));
}

}  // namespace adlab::ad::iverson
