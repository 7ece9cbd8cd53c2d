#include "checker/smt/rule_prover.h"

#include <chrono>
#include <map>
#include <sstream>

#include "checker/smt/counterexample_replay.h"
#include "checker/smt/z3_format.h"
#include "ir/logic/smt_encoding.h"
#include "ir/syntax/printer.h"

namespace adlab::checker::smt {

using ir::Expr;
using ir::logic::Arith;
using ir::logic::Encoder;
using ir::logic::SymValue;
using ir::rewrite::CondKind;
using ir::rewrite::Rule;
using ir::rewrite::Sort;

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::Proved:
      return "PROVED";
    case Verdict::ProvedUpToN:
      return "PROVED-UP-TO-N";
    case Verdict::Refuted:
      return "REFUTED";
    case Verdict::Unknown:
      return "UNKNOWN";
  }
  return "?";
}

bool is_pass(Verdict v) {
  return v == Verdict::Proved || v == Verdict::ProvedUpToN;
}

namespace {

struct Outcome {
  Verdict verdict = Verdict::Unknown;
  int bound = 0;
  std::string counterexample, detail;
  Replay replay;
  bool vacuous = false;  // the hypotheses alone are unsatisfiable: a proof says nothing
};

// One query: the rule at one size assignment (empty: symbolic sizes) in one theory.
class RuleQuery {
 public:
  RuleQuery(const Rule& r, Arith arith, const std::map<Expr, std::int64_t>& sizes,
            const ProofOptions& o)
      : r_(r), z_(), enc_(z_, arith), sizes_(sizes), o_(o) {
    enc_.use_sum_lemmas = o.use_lemmas;
    enc_.unroll_limit = 4096;
    enc_.on_free_var = [this](Expr v) { return symbol(v); };
  }

  // Throws SymbolicBound when a construct needs concrete sizes.
  Outcome run() {
    z3::solver s(z_);
    z3::params p(z_);
    p.set("timeout", o_.timeout_ms);
    s.set(p);
    for (const auto& c : r_.conditions) {
      if (c.kind == CondKind::InRange) {
        SymValue a = enc_.encode(c.args[0]), n = enc_.encode(c.args[1]);
        s.add(a.defined() && n.defined() && a.value() >= 0 && a.value() < n.value());
      } else if (c.kind == CondKind::Forces) {  // for all i: p(i) implies i == a
        z3::expr k = enc_.fresh_int("forces");
        enc_.bind(c.args[1], SymValue::scalar(k, z_.bool_val(true)));
        SymValue pv = enc_.encode(c.args[0]);
        enc_.unbind(c.args[1]);
        SymValue av = enc_.encode(c.args[2]);
        s.add(z3::forall(k, z3::implies(pv.defined() && pv.value(), k == av.value())));
      } else if (c.kind == CondKind::Fact) {
        SymValue f = enc_.encode(c.fact);
        s.add(f.defined() && f.value());
      }
    }
    for (const auto& a : r_.assumptions) {
      SymValue f = enc_.encode(a);
      s.add(f.defined() && f.value());
    }
    SymValue lhs = enc_.encode(r_.lhs), rhs = enc_.encode(r_.rhs);
    bool refines = r_.spec.claim == ir::rewrite::Claim::Refines;
    z3::expr goal = ir::logic::values_agree(enc_, lhs, rhs, refines);
    for (const auto& a : enc_.assumptions) s.add(a);
    const z3::expr_vector hypotheses = s.assertions();
    s.add(!goal);
    Outcome out;
    switch (s.check()) {
      case z3::unsat:
        out.verdict = Verdict::Proved;
        out.vacuous = unsatisfiable(hypotheses);
        for (const auto& l : enc_.lemmas_used)
          if (out.detail.find(l) == std::string::npos)
            out.detail += (out.detail.empty() ? "lemma: " : ", ") + l;
        break;
      case z3::sat:
        out.verdict = Verdict::Refuted;
        out.counterexample = counterexample(s.get_model(), lhs, rhs);
        out.replay = replay_counterexample(r_, s.get_model(), sizes_,
                                           [this](Expr v) { return dependency_binders(v); });
        break;
      default:
        out.verdict = Verdict::Unknown;
        out.detail =
            "Z3: " + s.reason_unknown() + " (timeout " + std::to_string(o_.timeout_ms) + " ms)";
        break;
    }
    return out;
  }

 private:
  // The hypotheses alone (conditions, assumptions, the encoding's facts) must hold somewhere:
  // contradictory ones prove any rule (an assumption `?e < ?e` proved ?e + 0 = 2 ?e; an audit
  // helper, decision 231). A solver of its own: a second check() on the proof's solver runs
  // incrementally, without the nonlinear tactics (div-one and the derivative rules of division
  // then timed out). A timeout here says nothing either way.
  bool unsatisfiable(const z3::expr_vector& hypotheses) {
    z3::solver h(z_);
    z3::params p(z_);
    p.set("timeout", o_.timeout_ms);
    h.set(p);
    for (const auto& e : hypotheses) h.add(e);
    return h.check() == z3::unsat;
  }

  // The binders a pattern variable may depend on, at their current values (outer symbols when
  // the variable is used outside their scope).
  std::vector<Expr> dependency_binders(Expr v) const {
    std::vector<Expr> out;
    for (const auto& pv : r_.vars) {
      if (pv.sort != Sort::IndexVar && pv.sort != Sort::LetVar) continue;
      if (pv.var == v || r_.not_free(pv.var, v)) continue;
      out.push_back(pv.var);
    }
    return out;
  }

  std::vector<z3::expr> dependencies(Expr v) {
    std::vector<z3::expr> deps;
    for (const auto& binder : dependency_binders(v)) {
      ir::rewrite::PatternVar pv{binder, ir::rewrite::sort_of(binder, r_)};
      if (const SymValue* b = enc_.lookup(pv.var)) {
        if (!b->is_scalar())
          throw ir::logic::Unencodable("`" + ir::var_name(pv.var) +
                                       "` is bound to a non-scalar, which a pattern variable "
                                       "cannot depend on in this encoding");
        deps.push_back(b->value());
      } else {
        deps.push_back(outer(pv.var).value());
      }
    }
    return deps;
  }

  SymValue outer(Expr binder) {
    Sort s = ir::rewrite::sort_of(binder, r_);
    std::string name = ir::var_name(binder) + "@outer";
    z3::expr c = s == Sort::IndexVar ? z_.int_const(name.c_str())
                                     : z_.constant(name.c_str(), enc_.scalar_sort());
    return SymValue::scalar(c, z_.bool_val(true));
  }

  z3::expr apply(const std::string& name, const std::vector<z3::expr>& deps, z3::sort range) {
    if (deps.empty()) return z_.constant(name.c_str(), range);
    z3::sort_vector dom(z_);
    z3::expr_vector xs(z_);
    for (const auto& d : deps) {
      dom.push_back(d.get_sort());
      xs.push_back(d);
    }
    return z_.function(name.c_str(), dom, range)(xs);
  }

  SymValue symbol(Expr v) {
    if (!ir::rewrite::is_pattern_var(v))
      throw ir::logic::Unencodable("free variable `" + ir::var_name(v) + "` in a rule");
    const std::string& name = ir::var_name(v);
    Sort s = ir::rewrite::sort_of(v, r_);
    z3::expr yes = z_.bool_val(true);
    switch (s) {
      case Sort::Size: {
        auto it = sizes_.find(v);
        if (it != sizes_.end()) return SymValue::scalar(z_.int_val(it->second), yes);
        z3::expr c = z_.int_const(name.c_str());
        enc_.assumptions.push_back(c >= 0);
        return SymValue::scalar(c, yes);
      }
      case Sort::IndexVar:
      case Sort::LetVar:
        return outer(v);
      case Sort::Tensor: {  // a tensor pattern variable is an input: it depends on no binder
        SymValue t = enc_.symbol(name, v->type);
        // partial(?X): the whole tensor may fail (a gen with an out-of-range element), as a
        // scalar's definedness is a symbol (decision 234)
        if (r_.partial(v) && t.tensor) {
          auto d = std::make_shared<ir::logic::SymTensor>(*t.tensor);
          d->defined = d->defined && z_.bool_const(("defined" + name).c_str());
          t.tensor = d;
        }
        return t;
      }
      default:
        break;
    }
    auto deps = dependencies(v);
    z3::sort range = s == Sort::IndexExpr ? z_.int_sort()
                     : s == Sort::Pred    ? z_.bool_sort()
                                          : enc_.scalar_sort();
    z3::expr def = r_.partial(v) ? apply("defined" + name, deps, z_.bool_sort()) : yes;
    return SymValue::scalar(apply(name, deps, range), def);
  }

  std::string counterexample(const z3::model& m, const SymValue& lhs, const SymValue& rhs) {
    std::ostringstream os;
    for (const auto& [v, n] : sizes_) os << ir::var_name(v) << " = " << n << "; ";
    os << describe_model(m);
    os << "left = " << describe_value(m, lhs) << "; right = " << describe_value(m, rhs);
    // Tensors: the elements at the index where they differ.
    if (lhs.tensor && rhs.tensor && !enc_.last_compare_index.empty() &&
        m.eval(lhs.tensor->defined, true).is_true() &&
        m.eval(rhs.tensor->defined, true).is_true()) {
      std::vector<z3::expr> at;
      std::string idx;
      for (const auto& i : enc_.last_compare_index) {
        at.push_back(m.eval(i, true));
        idx += (idx.empty() ? "" : ", ") + describe_expr(m, i);
      }
      os << "; left[" << idx << "] = " << describe_value(m, lhs.tensor->at(at)) << "; right[" << idx
         << "] = " << describe_value(m, rhs.tensor->at(at));
    }
    return os.str();
  }

  const Rule& r_;
  z3::context z_;
  Encoder enc_;
  std::map<Expr, std::int64_t> sizes_;
  const ProofOptions& o_;
};

// Every assignment of the rule's size variables to 0..bound, smallest first.
std::vector<std::map<Expr, std::int64_t>> size_assignments(const Rule& r, int bound) {
  std::vector<Expr> sizes;
  for (const auto& pv : r.vars)
    if (pv.sort == Sort::Size) sizes.push_back(pv.var);
  std::vector<std::map<Expr, std::int64_t>> out{{}};
  for (const auto& s : sizes) {
    std::vector<std::map<Expr, std::int64_t>> next;
    for (const auto& a : out)
      for (int n = 0; n <= bound; ++n) {
        auto b = a;
        b[s] = n;
        next.push_back(b);
      }
    out = next;
  }
  return out;
}

Outcome prove_in(const Rule& r, Arith arith, const ProofOptions& o) {
  const Outcome vacuous{Verdict::Unknown,
                        0,
                        "",
                        "the rule's conditions and assumptions cannot all hold: a proof would be "
                        "vacuous",
                        {}};
  try {
    RuleQuery q(r, arith, {}, o);
    Outcome out = q.run();
    return out.verdict == Verdict::Proved && out.vacuous ? vacuous : out;
  } catch (const ir::logic::SymbolicBound& sb) {
    // Bounded: every size up to the bound; the hypotheses must hold at one of them at least
    // (an in_range(?a, ?n) cannot at n = 0).
    bool somewhere = false;
    for (const auto& a : size_assignments(r, o.bound)) {
      try {
        RuleQuery q(r, arith, a, o);
        Outcome out = q.run();
        if (out.verdict != Verdict::Proved) return out;
        somewhere = somewhere || !out.vacuous;
      } catch (const ir::logic::Unencodable& e) {
        return Outcome{Verdict::Unknown, 0, "", std::string("no encoding: ") + e.what(), {}};
      }
    }
    if (!somewhere) return vacuous;
    (void)sb;
    return Outcome{Verdict::ProvedUpToN,
                   o.bound,
                   "",
                   "every size up to " + std::to_string(o.bound) +
                       " (a bound is symbolic and no lemma applies)",
                   {}};
  } catch (const ir::logic::Unencodable& e) {
    return Outcome{Verdict::Unknown, 0, "", std::string("no encoding: ") + e.what(), {}};
  } catch (const z3::exception& e) {
    return Outcome{Verdict::Unknown, 0, "", std::string("Z3 error: ") + e.msg(), {}};
  }
}

}  // namespace

RuleProof prove_rule(const Rule& r, const ProofOptions& o) {
  auto t0 = std::chrono::steady_clock::now();
  RuleProof p;
  p.rule = r.name();
  p.cite = r.spec.cite;
  p.domain = r.spec.domain == ir::rewrite::RuleDomain::Ieee ? "ieee" : "real";
  p.claim = r.spec.claim == ir::rewrite::Claim::Refines ? "refines" : "equiv";
  for (const auto& a : r.assumptions) p.assumptions.push_back(ir::expr_str(a));
  Outcome real = prove_in(r, Arith::Real, o);
  p.real_verdict = verdict_name(real.verdict);
  Outcome final = real;
  p.theory = "real";
  if (r.spec.domain == ir::rewrite::RuleDomain::Ieee && is_pass(real.verdict)) {
    Outcome ieee = prove_in(r, Arith::Ieee, o);
    p.ieee_verdict = verdict_name(ieee.verdict);
    if (!is_pass(ieee.verdict)) {
      final = ieee;
      p.theory = "ieee";
      if (ieee.verdict == Verdict::Refuted)
        final.detail = "holds over the reals, fails in IEEE-754 double";
    } else if (ieee.verdict == Verdict::ProvedUpToN && real.verdict == Verdict::Proved) {
      final = ieee;  // the weaker of the two
      p.theory = "ieee";
    }
  }
  p.verdict = final.verdict;
  p.bound = final.bound;
  p.counterexample = final.counterexample;
  p.replay = final.replay;
  p.detail = final.detail;
  p.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return p;
}

std::vector<RuleProof> prove_table(const ir::rewrite::RuleTable& t, const ProofOptions& o) {
  std::vector<RuleProof> out;
  for (const auto& r : t.rules) {
    out.push_back(prove_rule(r, o));
    out.back().table = t.name;
    out.back().errata = t.errata;
  }
  return out;
}

}  // namespace adlab::checker::smt
