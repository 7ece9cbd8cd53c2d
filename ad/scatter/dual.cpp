// The dual phase of paper 002 section 4.6 on kernels (Table 2 and the fold rule).
#include "ad/scatter/dual.h"

#include "ad/scatter/hull.h"
#include "ad/strategy.h"
#include "ir/affine.h"
#include "ir/context.h"
#include "ir/mutator.h"
#include "ir/substitute.h"

namespace adlab::ad::scatter {

using namespace ir;

namespace {
Expr ilit(std::int64_t v) {
  return Literal::make(static_cast<double>(v), ElemType::I64);
}
Expr iadd(Expr a, Expr b) {
  return Binary::make(BinaryOp::Add, a, b);
}
Expr isub(Expr a, Expr b) {
  return Binary::make(BinaryOp::Sub, a, b);
}
Expr cmp(BinaryOp op, Expr a, Expr b) {
  return Binary::make(op, a, b);
}
// Whether the running max (min) `prev` stays the extremum past x: not when x beats or ties it
// (ties go to the later element, paper 002 section 4.6), and yes when either is NaN, where the
// interpreter's `prev < x ? x : prev` keeps prev (an audit finding: `prev > x` sent the
// derivative to a NaN element the primal skipped; decision 195).
Expr prev_stays(ReduceOp op, Expr prev, Expr x) {
  return Unary::make(UnaryOp::Not, op == ReduceOp::Max ? Binary::make(BinaryOp::Le, prev, x)
                                                       : Binary::make(BinaryOp::Le, x, prev));
}
Expr index_var(FreshNames& n, const std::string& base) {
  return Var::make(n.fresh(base), Type::scalar(ElemType::I64));
}
std::vector<Expr> plus(std::vector<Expr> v, Expr x) {
  v.push_back(x);
  return v;
}
// floor(a / b) written (a - a % b) / b: a scatter target's dimensions must divide exactly at run
// time (docs/ir.md section 3), while the primal's bounds use floor division.
class ExactDivision : public Mutator {
 public:
  Expr mutate_node(const Binary& b, Expr self) override {
    Expr x = mutate(b.a), y = mutate(b.b);
    if (b.op == BinaryOp::Div && self->type.elem == ElemType::I64)
      return Binary::make(BinaryOp::Div,
                          Binary::make(BinaryOp::Sub, x, Binary::make(BinaryOp::Mod, x, y)), y);
    return Binary::make(b.op, x, y);
  }
};
Type target_type(const Type& t) {
  ExactDivision m;
  return Type::tensor(t.elem, m.mutate_type(t).dims);
}
// op(s, x) for a monoid reduction operator.
Expr apply_op(ReduceOp op, Expr s, Expr x) {
  switch (op) {
    case ReduceOp::Sum:
      return Binary::make(BinaryOp::Add, s, x);
    case ReduceOp::Prod:
      return Binary::make(BinaryOp::Mul, s, x);
    case ReduceOp::Max:
      return Prim::make(PrimOp::Max, {s, x});
    case ReduceOp::Min:
      return Prim::make(PrimOp::Min, {s, x});
  }
  return s;
}
}  // namespace

Dual::Dual(const FlatProgram& p, const std::vector<Expr>& wrt, FreshNames& names)
    : p_(p), wrt_(wrt), names_(names) {
  for (auto w : wrt) active_.insert(w);
  for (const auto& k : p.kernels) {
    if (!is_float(k.var->type.elem)) continue;
    bool act = false;
    for (Expr e : {k.body, k.init})
      if (e.defined())
        for (auto v : free_vars(e)) act = act || active_.count(v);
    if (act) active_.insert(k.var);
  }
}

void Dual::seed(Expr var, Expr adjoint) {
  if (is_active(var)) contrib_[var].push_back(adjoint);
}

Expr Dual::emit(const std::string& hint, Expr value) {
  Expr v = Var::make(names_.fresh(hint), value->type);
  out_->push_back(Stmt{{v}, value});
  return v;
}

// EltwiseElsum (paper 002 section 4.6): the adjoint is the sum of the contributions.
Expr Dual::collect(Expr var, const std::string& hint) {
  auto it = contrib_.find(var);
  if (it == contrib_.end() || it->second.empty()) return Expr();
  const auto& cs = it->second;
  if (cs.size() == 1) return emit(hint, cs[0]);
  std::vector<Expr> parts;
  for (auto c : cs) parts.push_back(c.as<Var>() ? c : emit(hint + "_c", c));
  const Type& t = var->type;
  std::vector<Expr> idx, bounds;
  for (auto d : t.dims) {
    idx.push_back(index_var(names_, "k"));
    bounds.push_back(d);
  }
  Expr s = access_or_self(parts[0], idx);
  for (std::size_t k = 1; k < parts.size(); ++k)
    s = Binary::make(BinaryOp::Add, s, access_or_self(parts[k], idx));
  return emit(hint, gen_or_self(idx, bounds, s));
}

// IA (paper 002 section 4.6): each read becomes a contribution to its array over the domain:
// a direct gen when the read is at the domain's own indices (Map/ZipWith), a sum for a scalar,
// and otherwise one scatter-add per index site (Permute (+)).
void Dual::assemble(const std::vector<Contribution>& cs, const std::vector<Expr>& vars,
                    const std::vector<Expr>& hull, Expr guard) {
  Domain dom;
  dom.vars = vars;
  dom.bounds = hull;
  for (const auto& c : cs) {
    if (!is_active(c.target)) continue;
    Expr g = and_guard(guard, c.guard);
    Expr v = g.defined() ? Iverson::make(g, c.value) : c.value;
    const Type& t = c.target->type;
    Expr out;
    if (t.rank() == 0) {
      out = vars.empty() ? v : Reduce::make(ReduceOp::Sum, dom, v);
    } else {
      bool direct = c.at == vars && t.rank() == vars.size();
      for (std::size_t k = 0; direct && k < vars.size(); ++k)
        direct = provably_equal(t.dims[k], hull[k]);
      Type rt = target_type(t);
      if (direct) {
        out = Gen::make(dom, v);
      } else if (vars.empty()) {
        Domain one;
        one.vars = {index_var(names_, "u")};
        one.bounds = {ilit(1)};
        out = Scatter::make(one, rt, c.at, v);
      } else {
        out = Scatter::make(dom, rt, c.at, v);
      }
    }
    contrib_[c.target].push_back(out);
  }
}

std::vector<Expr> Dual::run(std::vector<Stmt>& out) {
  out_ = &out;
  for (auto it = p_.kernels.rbegin(); it != p_.kernels.rend(); ++it) {
    if (!is_active(it->var)) continue;
    Expr dk = collect(it->var, "d_" + var_name(it->var));
    if (dk.defined()) dual_kernel(*it, dk);
  }
  std::vector<Expr> grads;
  for (auto w : wrt_) {
    Expr d = collect(w, "d_" + var_name(w));
    if (!d.defined()) {
      const Type& t = w->type;
      std::vector<Expr> idx, bounds;
      for (auto dim : t.dims) {
        idx.push_back(index_var(names_, "k"));
        bounds.push_back(dim);
      }
      d = emit("d_" + var_name(w), gen_or_self(idx, bounds, zero_of(t.elem)));
    }
    grads.push_back(d);
  }
  return grads;
}

void Dual::dual_kernel(const Kernel& k, Expr dk) {
  Expr g = access_or_self(dk, k.vars);
  switch (k.kind) {
    case KernelKind::Map: {  // Map/ZipWith/Generate: D(fun) at every point
      std::vector<Contribution> cs;
      scalar_adjoint(
          k.body, g, Expr(), [&](Expr v) { return is_active(v); }, cs,
          access_or_self(k.var, k.vars));
      assemble(cs, k.vars, k.bounds, k.guard);
      return;
    }
    case KernelKind::Reduce:
      if (k.op == ReduceOp::Sum) return dual_reduce(k, g);
      return dual_maxmin(k, g);
    case KernelKind::Fold:
      return dual_fold(k, g);
    case KernelKind::Scan:
      return dual_scan(k, dk);
  }
}

// paper 002 section 4.6, rule for Sum: the adjoint is broadcast over the summed indices.
void Dual::dual_reduce(const Kernel& k, Expr g) {
  std::vector<Expr> vars = k.vars, hull = k.bounds;
  Expr guard = k.guard;
  for (std::size_t i = 0; i < k.ivars.size(); ++i) {
    auto h = hull_bound(k.ibounds[i], vars, hull);
    if (!h) throw Unsupported(k.pos, "scatter: a sum bound that is not affine");
    if (!hull_is_exact(*h, k.ibounds[i]))
      guard = and_guard(guard, cmp(BinaryOp::Lt, k.ivars[i], k.ibounds[i]));
    vars.push_back(k.ivars[i]);
    hull.push_back(*h);
  }
  std::vector<Contribution> cs;
  scalar_adjoint(
      k.body, g, Expr(), [&](Expr v) { return is_active(v); }, cs);
  assemble(cs, vars, hull, guard);
}

// paper 002 section 4.6, fold1 rule for max/min: with the running maximum P (a scan), the
// adjoint reaches element q iff it is a new running maximum (D2) that no later element
// displaces (the suffix product of D1, a reversed scan (*)); ties go to the later element.
void Dual::dual_maxmin(const Kernel& k, Expr g) {
  Expr q = k.ivars[0], n = k.ibounds[0];
  ElemType t = k.var->type.elem;
  Kernel pk{Expr(), k.vars, k.bounds, k.guard, KernelKind::Scan, k.op,
            {q},    {n},    {},       {},      k.body,           k.pos};
  Expr P = emit("run", pk.value());
  Expr keep =
      Select::make(cmp(BinaryOp::Gt, q, ilit(0)),
                   prev_stays(k.op, Access::make(P, plus(k.vars, isub(q, ilit(1)))), k.body),
                   Literal::make(0, ElemType::Bool));
  Expr suffix =
      suffix_products(k, q, n, Select::make(keep, one_of(t), zero_of(t)), "keep", t).second;
  Expr lam = mul(g, mul(Select::make(keep, zero_of(t), one_of(t)), suffix));
  std::vector<Contribution> cs;
  scalar_adjoint(
      k.body, lam, Expr(), [&](Expr v) { return is_active(v); }, cs);
  assemble(cs, plus(k.vars, q), plus(k.bounds, n), k.guard);
}

std::pair<Expr, Expr> Dual::suffix_products(const Kernel& k, Expr q, Expr n, Expr partial,
                                            const std::string& hint, ElemType t) {
  Kernel pk{Expr(),
            plus(k.vars, q),
            plus(k.bounds, n),
            k.guard,
            KernelKind::Map,
            ReduceOp::Sum,
            {},
            {},
            {},
            {},
            partial,
            k.pos};
  Expr P = emit(hint, pk.value());
  Expr u = index_var(names_, "u");
  Kernel sk{Expr(),
            k.vars,
            k.bounds,
            k.guard,
            KernelKind::Scan,
            ReduceOp::Prod,
            {u},
            {n},
            {},
            {},
            Access::make(P, plus(k.vars, isub(isub(n, ilit(1)), u))),
            k.pos};
  Expr S = emit("sfx", sk.value());
  Expr suffix = Select::make(cmp(BinaryOp::Lt, iadd(q, ilit(1)), n),
                             Access::make(S, plus(k.vars, isub(isub(n, ilit(2)), q))), one_of(t));
  return {S, suffix};
}

// paper 002 section 4.6, rule for Foldl: with sc_t the state before step t,
//   d a_t = d2 f(sc_t, a_t) * prod_{j > t} d1 f(sc_j, a_j)   (a reversed scan (*)),
// and the initial state gets prod_j d1 f(sc_j, a_j). sc is an exclusive scan for a monoid step
// (p op e); for any other step it is the state history of the loop (see
// docs/strategies/scatter.md).
void Dual::dual_fold(const Kernel& k, Expr g) {
  Expr t = k.ivars[0], n = k.ibounds[0], p = k.state;
  ElemType et = p->type.elem;
  // monoid step p op e with e free of p
  std::optional<std::pair<ReduceOp, Expr>> monoid;
  auto other = [&](Expr a, Expr b) -> Expr {
    if (a == p && !is_free_in(p, b)) return b;
    if (b == p && !is_free_in(p, a)) return a;
    return Expr();
  };
  if (auto* b = k.body.as<Binary>(); b && (b->op == BinaryOp::Add || b->op == BinaryOp::Mul)) {
    if (Expr e = other(b->a, b->b); e.defined())
      monoid = std::make_pair(b->op == BinaryOp::Add ? ReduceOp::Sum : ReduceOp::Prod, e);
  } else if (auto* pr = k.body.as<Prim>(); pr && (pr->op == PrimOp::Max || pr->op == PrimOp::Min)) {
    if (Expr e = other(pr->args[0], pr->args[1]); e.defined())
      monoid = std::make_pair(pr->op == PrimOp::Max ? ReduceOp::Max : ReduceOp::Min, e);
  }
  Expr SC;
  if (monoid) {
    Kernel pk{Expr(), k.vars, k.bounds, k.guard, KernelKind::Scan, monoid->first,
              {t},    {n},    {},       {},      monoid->second,   k.pos};
    Expr P = emit("pre", pk.value());
    Expr sc = Select::make(
        cmp(BinaryOp::Gt, t, ilit(0)),
        apply_op(monoid->first, k.init, Access::make(P, plus(k.vars, isub(t, ilit(1))))), k.init);
    Kernel sck{Expr(),
               plus(k.vars, t),
               plus(k.bounds, n),
               k.guard,
               KernelKind::Map,
               ReduceOp::Sum,
               {},
               {},
               {},
               {},
               sc,
               k.pos};
    SC = emit("st", sck.value());
  } else {
    // the state history: a loop that also carries the array of states (O(n) copy per step)
    Expr j = index_var(names_, "k");
    Type ht = Type::tensor(et, {n});
    Expr h = Var::make(names_.fresh("hist"), ht);
    Domain hd;
    hd.vars = {j};
    hd.bounds = {n};
    Expr zeros = Gen::make(hd, zero_of(et));
    Expr upd = Gen::make(hd, Select::make(cmp(BinaryOp::Eq, j, t), p, Access::make(h, {j})));
    Domain ld;
    ld.vars = {t};
    ld.bounds = {n};
    Expr loop = Loop::make(ld, {p, h}, {k.init, zeros}, Tuple::make({k.body, upd}));
    Kernel hk{Expr(), k.vars, k.bounds, k.guard, KernelKind::Map,     ReduceOp::Sum,
              {},     {},     {},       {},      Proj::make(loop, 1), k.pos};
    SC = emit("hist", hk.value());
  }
  Expr sct = Access::make(SC, plus(k.vars, t));
  // d1 f: the adjoint f passes to its state, at sc_t
  std::vector<Contribution> ps;
  scalar_adjoint(
      k.body, one_of(et), Expr(), [&](Expr v) { return v == p; }, ps);
  Expr d1 = zero_of(et);
  bool first = true;
  for (const auto& c : ps) {
    Expr v = c.guard.defined() ? Iverson::make(c.guard, c.value) : c.value;
    d1 = first ? v : Binary::make(BinaryOp::Add, d1, v);
    first = false;
  }
  d1 = substitute(d1, p, sct);
  auto [S, suffix] = suffix_products(k, t, n, d1, "dstate", et);
  std::vector<Contribution> cs;
  scalar_adjoint(
      substitute(k.body, p, sct), mul(g, suffix), Expr(), [&](Expr v) { return is_active(v); }, cs);
  assemble(cs, plus(k.vars, t), plus(k.bounds, n), k.guard);
  Expr total = Select::make(cmp(BinaryOp::Gt, n, ilit(0)),
                            Access::make(S, plus(k.vars, isub(n, ilit(1)))), one_of(et));
  std::vector<Contribution> zs;
  scalar_adjoint(
      k.init, mul(g, total), Expr(), [&](Expr v) { return is_active(v); }, zs);
  assemble(zs, k.vars, k.bounds, k.guard);
}

// Scans (paper 002 lists Scanl as output-only; adlab's input language has them): for (+) the
// adjoint is a reversed scan (+); for (*), max and min the reverse recurrence
// r_t = d_t + d1_{t+1} r_{t+1} runs as a loop carrying its history.
void Dual::dual_scan(const Kernel& k, Expr dk) {
  Expr t = k.ivars[0], n = k.ibounds[0];
  ElemType et = k.var->type.elem;
  Expr u = index_var(names_, "u");
  Expr seed;
  if (k.op == ReduceOp::Sum) {
    Kernel rk{Expr(),
              k.vars,
              k.bounds,
              k.guard,
              KernelKind::Scan,
              ReduceOp::Sum,
              {u},
              {n},
              {},
              {},
              Access::make(dk, plus(k.vars, isub(isub(n, ilit(1)), u))),
              k.pos};
    Expr R = emit("rsum", rk.value());
    seed = Access::make(R, plus(k.vars, isub(isub(n, ilit(1)), t)));
  } else {
    Expr prev = Access::make(k.var, plus(k.vars, isub(t, ilit(1))));
    Expr d1, d2;
    if (k.op == ReduceOp::Prod) {
      d1 = k.body;
      d2 = prev;
    } else {
      Expr c = prev_stays(k.op, prev, k.body);
      d1 = Select::make(c, one_of(et), zero_of(et));
      d2 = Select::make(c, zero_of(et), one_of(et));
    }
    Expr gt0 = cmp(BinaryOp::Gt, t, ilit(0));
    Kernel d1k{Expr(),
               plus(k.vars, t),
               plus(k.bounds, n),
               k.guard,
               KernelKind::Map,
               ReduceOp::Sum,
               {},
               {},
               {},
               {},
               Select::make(gt0, d1, zero_of(et)),
               k.pos};
    Expr D1 = emit("dstate", d1k.value());
    Expr r = Var::make(names_.fresh("r"), Type::scalar(et));
    Expr h = Var::make(names_.fresh("hist"), Type::tensor(et, {n}));
    Expr j = index_var(names_, "k");
    Domain hd;
    hd.vars = {j};
    hd.bounds = {n};
    Expr tt = isub(isub(n, ilit(1)), u);
    Expr rn =
        Binary::make(BinaryOp::Add, Access::make(dk, plus(k.vars, tt)),
                     Select::make(cmp(BinaryOp::Gt, u, ilit(0)),
                                  mul(Access::make(D1, plus(k.vars, isub(n, u))), r), zero_of(et)));
    Expr upd = Gen::make(hd, Select::make(cmp(BinaryOp::Eq, j, tt), rn, Access::make(h, {j})));
    Domain ld;
    ld.vars = {u};
    ld.bounds = {n};
    Expr loop =
        Loop::make(ld, {r, h}, {zero_of(et), Gen::make(hd, zero_of(et))}, Tuple::make({rn, upd}));
    Kernel hk{Expr(), k.vars, k.bounds, k.guard, KernelKind::Map,     ReduceOp::Sum,
              {},     {},     {},       {},      Proj::make(loop, 1), k.pos};
    Expr R = emit("radj", hk.value());
    seed = mul(Access::make(R, plus(k.vars, t)), Select::make(gt0, d2, one_of(et)));
  }
  std::vector<Contribution> cs;
  scalar_adjoint(
      k.body, seed, Expr(), [&](Expr v) { return is_active(v); }, cs);
  assemble(cs, plus(k.vars, t), plus(k.bounds, n), k.guard);
}

}  // namespace adlab::ad::scatter
