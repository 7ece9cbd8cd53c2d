// Rewrite rules as data (DESIGN 2.5): a name, left and right patterns in `.adl` syntax with
// pattern variables, a side condition, a claim, a domain and the paper rule it comes from. The
// rewrite engine applies these objects and the SMT checker proves the same objects.
#pragma once

#include <string>
#include <vector>

#include "ir/expr.h"

namespace adlab::ir::rewrite {

// The sort of a pattern variable, from the first letter of its name (or its declaration):
//   ?e scalar expression   ?t value of any type   ?i ?j ?k ?g ?s index variable (a binder)
//   ?a ?b index expression   ?p ?q ?r predicate   ?n ?m size   ?x ?y ?z let-bound variable
// A variable declared with a type (`?X: f64[?n]`) is a tensor of that type.
enum class Sort { Scalar, Value, IndexVar, IndexExpr, Pred, Size, LetVar, Tensor };
const char* sort_name(Sort s);

// equiv: both sides are defined on the same inputs and equal there (⊥ is a value);
// refines: where the left is defined, the right is defined and equal.
enum class Claim { Equiv, Refines };
// real: holds over the reals; ieee: must also hold in IEEE-754 double.
enum class RuleDomain { Real, Ieee };

// The closed vocabulary of side conditions (DESIGN 2.5), plus IR predicates over pattern
// variables (`Fact`), which the engine proves from the context and the prover assumes.
// forces(?p, ?i, ?a): p implies i == a; the engine solves p for i (ir/logic) and binds ?a.
// never_fails(?a): evaluating the index expression a cannot fail (ir::logic::never_fails), so a
// rule may evaluate it where the left side did not (the prover's integers are total).
enum class CondKind {
  NotFree,
  Fresh,
  IsScalar,
  SameType,
  InRange,
  Partial,
  Forces,
  NeverFails,
  Fact
};

struct Condition {
  CondKind kind;
  std::vector<Expr> args;  // pattern variables (InRange: index expression, size)
  Expr fact;               // CondKind::Fact
  std::string text;
};

struct PatternVar {
  Expr var;  // a Var node named "?..."
  Sort sort;
};

// What a rule is written as: the table entry, read like the paper's figure.
struct RuleSpec {
  std::string name;
  std::string lhs, rhs;
  std::string when;  // side conditions separated by `;`, e.g. "not_free(?i, ?a); in_range(?a, ?n)"
  RuleDomain domain = RuleDomain::Real;
  std::string cite;  // paper and rule number, e.g. "000 (5.24)"
  Claim claim = Claim::Equiv;
  std::string vars;    // declarations of tensor pattern variables: "?X: f64[?n]; ?c: f64[?m]"
  std::string assume;  // algebraic facts the rule relies on, `;`-separated IR predicates
  std::string note;    // why the rule is written this way (errata: what is wrong)
};

struct Rule {
  RuleSpec spec;
  Expr lhs, rhs;
  std::vector<PatternVar> vars;
  std::vector<Condition> conditions;
  std::vector<Expr> assumptions;

  const std::string& name() const { return spec.name; }
  const PatternVar* find_var(Expr v) const;
  // Whether pattern variable `v` is declared not to depend on binder `binder`.
  bool not_free(Expr binder, Expr v) const;
  bool partial(Expr v) const;
};

// Parses and type-checks a rule: patterns, declarations, side conditions and assumptions. Throws
// adlab::Error naming the rule for an ill-typed pattern or a condition naming an unknown variable.
Rule make_rule(RuleSpec spec);

// A rule table: the rules of one pass, in the order the engine tries them.
struct RuleTable {
  std::string name;
  std::string description;
  std::vector<Rule> rules;
  bool errata = false;  // the papers' wrong rules: each must be refuted
};

RuleTable make_table(std::string name, std::string description, std::vector<RuleSpec> specs,
                     bool errata = false);

bool is_pattern_var(Expr e);
Sort sort_of(Expr pattern_var, const Rule& r);

}  // namespace adlab::ir::rewrite
