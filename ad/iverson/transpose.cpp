// Reverse mode by transposition, paper 000 rules 6.14-6.29 (with 6.28 and 6.29 corrected:
// the range guards of errata 7) and summation elimination.
#include "ad/iverson/transpose.h"

#include <unordered_map>
#include <unordered_set>

#include "ad/iverson/local_adjoint.h"
#include "ad/iverson/sum_elimination.h"
#include "ad/strategy.h"
#include "ir/context.h"
#include "ir/substitute.h"
#include "ir/syntax/printer.h"

namespace adlab::ad::iverson {

using namespace ir;

namespace {

// One occurrence of a read of `target` in a statement: its adjoint receives
// sum[binders] [atoms && index == K] * factor (paper 000 (6.28) before SE).
struct Contribution {
  std::vector<Expr> index;
  std::vector<Binder> binders;
  std::vector<Expr> atoms;
  Expr factor;
  std::vector<std::size_t> depths;  // binders around each atom (SumTerm::depths)
};

class Transposer {
 public:
  Transposer(const SsaProgram& p, const std::vector<Expr>& wrt, FreshNames& names,
             logic::PredicateService& logic, bool naive)
      : p_(p), names_(names), logic_(logic), naive_(naive) {
    for (auto w : wrt) active_.insert(w);
    for (const auto& st : p.stmts)
      for (auto v : free_vars(st.value))
        if (active_.count(v)) {
          active_.insert(st.vars[0]);
          break;
        }
  }

  Adjoints run(const std::vector<Expr>& wrt, const std::vector<Seed>& seeds) {
    for (const auto& s : seeds) seed(s);
    for (auto it = p_.stmts.rbegin(); it != p_.stmts.rend(); ++it) {
      Expr v = it->vars[0];
      if (!active_.count(v)) continue;
      Expr dv = adjoint_of(v, false);
      if (!dv.defined()) {
        out_.trace.push_back("6.20 dead: `" + var_name(v) + "` receives nothing");
        continue;
      }
      const Gen* g = it->value.as<Gen>();
      Expr body = g ? g->body : it->value;
      self_ = body;
      while (auto* iv = self_.as<Iverson>()) self_ = iv->body;
      self_read_ = read(v, g ? g->dom.vars : std::vector<Expr>{});
      if (g) {
        std::vector<Binder> bs;
        for (std::size_t k = 0; k < g->dom.vars.size(); ++k)
          bs.push_back(Binder{g->dom.vars[k], g->dom.bounds[k]});
        // the support of d_v (paper 000 section 6.2): reads of d_v outside it are zero, so the
        // contributions carry it as a bracket and summation elimination can use it
        std::vector<Expr> atoms;
        std::vector<std::size_t> depths;
        if (auto sp = support_.find(v); sp != support_.end()) {
          SubstMap m;
          for (std::size_t k = 0; k < sp->second.first.size(); ++k)
            m[sp->second.first[k]] = g->dom.vars[k];
          for (auto c : logic::conjuncts(substitute(sp->second.second, m))) atoms.push_back(c);
        }
        depths.resize(atoms.size(), bs.size());
        walk(body, bs, atoms, depths, read(dv, g->dom.vars));
      } else {
        walk(body, {}, {}, {}, dv);
      }
    }
    for (auto w : wrt) {
      Expr dw = adjoint_of(w, true);
      out_.gradients.push_back(dw);
    }
    return std::move(out_);
  }

 private:
  const SsaProgram& p_;
  FreshNames& names_;
  logic::PredicateService& logic_;
  bool naive_;
  std::unordered_set<Expr, ExprHash> active_;
  std::unordered_map<Expr, std::vector<Contribution>, ExprHash> contributions_;
  // adjoint variable -> (its gen indices, the predicate outside which it is zero)
  std::unordered_map<Expr, std::pair<std::vector<Expr>, Expr>, ExprHash> support_;
  Expr self_, self_read_;  // the statement body being transposed and its stored value
  LocalAdjoint local_;     // the local rules, applied by the rewrite engine
  Adjoints out_;

  bool active(Expr e) const {
    for (auto v : free_vars(e))
      if (active_.count(v)) return true;
    return false;
  }

  void seed(const Seed& s) {
    if (!s.result.as<Var>() || !active_.count(s.result)) return;
    Contribution c;
    for (auto d : s.result->type.dims) c.binders.push_back(Binder{index_var(names_.fresh("s")), d});
    c.index = vars_of(c.binders);
    c.factor = read(s.cotangent, c.index);
    contributions_[s.result].push_back(c);
  }

  // The adjoint of `v` from its contributions, summed (6.20-6.24: a fan-out adds its adjoints,
  // dead code receives nothing); a statement unless it is a leaf. Undefined when v receives
  // nothing and !zero_if_none.
  Expr adjoint_of(Expr v, bool zero_if_none) {
    const auto& cs = contributions_[v];
    const Type& t = v->type;
    std::vector<Binder> k;
    for (auto d : t.dims) k.push_back(Binder{index_var(names_.fresh("k")), d});
    std::vector<Expr> facts = p_.facts;
    for (auto f : range_facts(k)) facts.push_back(f);
    Expr total = Literal::make(0, t.elem);
    Expr support;
    bool bracketed = true;
    for (const auto& c : cs) {
      SumTerm term{c.binders, c.atoms, c.factor, c.depths};
      ADLAB_CHECK(c.index.size() == k.size()) << "a partial read of " << var_name(v);
      for (std::size_t d = 0; d < k.size(); ++d) {
        term.atoms.push_back(Binary::make(BinaryOp::Eq, c.index[d], k[d].var));
        term.depths.push_back(c.binders.size());
      }
      Expr e = eliminate_sums(term, facts, logic_);  // paper 000 (6.28)/(6.29), then SE
      out_.trace.push_back(std::string(k.empty() ? "6.27" : "6.28") + " + SE: d_" + var_name(v) +
                           " += " + expr_str(e));
      if (naive_ && !k.empty() && cs.size() > 1) {  // a dense contribution, then `+=`
        Expr dense = Var::make(names_.fresh("c_" + var_name(v)), gen_over(k, e)->type);
        out_.stmts.push_back(Stmt{{dense}, gen_over(k, e)});
        e = read(dense, vars_of(k));
      }
      if (is_zero(e)) continue;
      if (auto* iv = e.as<Iverson>()) {
        bool known = false;  // [p || p] is [p]
        for (Expr d = support; d.defined();) {
          auto* o = d.as<Binary>();
          if (o && o->op == BinaryOp::Or) {
            known = known || o->b == iv->pred;
            d = o->a;
          } else {
            known = known || d == iv->pred;
            d = Expr();
          }
        }
        if (!known)
          support = support.defined() ? Binary::make(BinaryOp::Or, support, iv->pred) : iv->pred;
      } else
        bracketed = false;
      total = add(total, e);
    }
    if (cs.empty() && !zero_if_none) return Expr();
    Expr value = gen_over(k, total);
    if (value.as<Literal>() || value.as<Var>()) return value;
    Expr dv = Var::make(names_.fresh("d_" + var_name(v)), value->type);
    out_.stmts.push_back(Stmt{{dv}, value});
    if (!k.empty() && bracketed && support.defined() && !naive_) {
      support_[v] = {vars_of(k), support};
      out_.trace.push_back("support of " + var_name(dv) + ": [" + expr_str(support) + "]");
    }
    return dv;
  }

  static bool is_trivial(Expr g) {
    if (g.as<Literal>() || g.as<Var>()) return true;
    if (auto* u = g.as<Unary>()) return is_trivial(u->a);
    if (auto* a = g.as<Access>()) {
      for (auto i : a->indices)
        if (!i.as<Var>() && !i.as<Literal>()) return false;
      return a->tensor.as<Var>() != nullptr;
    }
    return false;
  }

  // A fan-out of an adjoint: both operands receive g, so g is computed once, as its own statement
  // over the binders in scope (the let of paper 000 (6.20)-(6.24); without it a product tree of k
  // factors has an O(k^2) adjoint, TC20).
  Expr share(Expr g, const std::vector<Binder>& bs, const std::vector<Expr>& atoms) {
    if (is_trivial(g)) return g;
    Expr value = gen_over(bs, guard(atoms, g));
    Expr a = Var::make(names_.fresh("a"), value->type);
    out_.stmts.push_back(Stmt{{a}, value});
    out_.trace.push_back("6.22 fan-out: " + var_name(a) + " = " + expr_str(value));
    return read(a, vars_of(bs));
  }

  // The transposition of one statement body with output adjoint g (rules 6.14-6.27): reads are
  // recorded for (6.27)-(6.29); every other node's local step is the engine's (local_adjoint.cpp).
  void walk(Expr e, const std::vector<Binder>& bs, const std::vector<Expr>& atoms,
            const std::vector<std::size_t>& depths, Expr g) {
    if (is_zero(g) || !active(e)) return;
    switch (e->kind) {
      case NodeKind::Var:  // (6.14) a variable receives the adjoint
        contributions_[e].push_back(Contribution{{}, bs, atoms, g, depths});
        return;
      case NodeKind::Access: {  // (6.28)/(6.29) a read at affine indices: a gather later
        auto* a = e.as<Access>();
        ADLAB_CHECK(a->tensor.as<Var>()) << "Tensor SSA reads stored tensors only";
        contributions_[a->tensor].push_back(Contribution{a->indices, bs, atoms, g, depths});
        return;
      }
      case NodeKind::Binary:
        if (auto* b = e.as<Binary>(); active(b->a) && active(b->b)) g = share(g, bs, atoms);
        break;
      default:
        break;
    }
    std::size_t seen = local_.trace().size();
    // a stored primitive value is read, not recomputed
    auto parts = local_(e, g, e == self_ ? self_read_ : e, [this](Expr x) { return active(x); });
    for (std::size_t k = seen; k < local_.trace().size(); ++k) {
      const auto& s = local_.trace()[k];
      out_.trace.push_back(s.rule + " [" + s.cite + "]: " + expr_str(e));
    }
    for (auto& p : parts) {
      std::vector<Binder> b2 = bs;
      b2.insert(b2.end(), p.binders.begin(), p.binders.end());
      std::vector<Expr> a2 = atoms;
      a2.insert(a2.end(), p.atoms.begin(), p.atoms.end());
      std::vector<std::size_t> d2 = depths;
      for (std::size_t k = 0; k < p.atoms.size(); ++k)
        d2.push_back(k < p.depths.size() ? bs.size() + p.depths[k] : b2.size());
      walk(p.operand, b2, a2, d2, p.adjoint);
    }
  }
};

}  // namespace

Adjoints transpose(const SsaProgram& p, const std::vector<Expr>& wrt,
                   const std::vector<Seed>& seeds, FreshNames& names,
                   logic::PredicateService& logic, bool naive) {
  return Transposer(p, wrt, names, logic, naive).run(wrt, seeds);
}

}  // namespace adlab::ad::iverson
