// Iverson algebra: paper 000 section 11 (P11) and Gen-pushout (5.22)-(5.24). A bracket is a
// strong zero: its body is not evaluated where the predicate is false, so these rules hold even
// for bodies that could fail there (partial).
#include "ir/rewrite/tables/tables.h"

namespace adlab::ir::rewrite {

const RuleTable& iverson_table() {
  using D = RuleDomain;
  static const RuleTable t = make_table(
      "iverson", "Iverson brackets as strong zeros (paper 000 P11, Gen-pushout)",
      {
          // name                   left                          right
          {.name = "bracket-merge",
           .lhs = "[?p] * ([?q] * ?t)",
           .rhs = "[?p && ?q] * ?t",
           .when = "partial(?t)",
           .domain = D::Ieee,
           .cite = "000 (5.24), P11"},
          {.name = "bracket-true",
           .lhs = "[true] * ?t",
           .rhs = "?t",
           .when = "partial(?t)",
           .domain = D::Ieee,
           .cite = "000 P11"},
          {.name = "bracket-false",
           .lhs = "[false] * ?e",
           .rhs = "0",
           .when = "partial(?e)",
           .domain = D::Ieee,
           .cite = "000 P11 ([false]·e = 0)"},
          {.name = "bracket-gen",
           .lhs = "[?p] * gen[?i < ?n] ?t",
           .rhs = "gen[?i < ?n] [?p] * ?t",
           .when = "not_free(?i, ?p)",
           .domain = D::Ieee,
           .cite = "000 (5.23), P11"},
          {.name = "bracket-index",
           .lhs = "([?p] * ?X)[?a]",
           .rhs = "[?p] * ?X[?a]",
           .when = "in_range(?a, ?n); partial(?X)",
           .domain = D::Ieee,
           .cite = "000 (5.22), P11",
           .vars = "?X: f64[?n]",
           .note = "without in_range the left fails where a is out of range and p is false, the "
                   "right gives 0"},
          {.name = "bracket-mul-left",
           .lhs = "([?p] * ?e1) * ?e2",
           .rhs = "[?p] * (?e1 * ?e2)",
           .domain = D::Real,
           .cite = "000 (4.30)",
           .note = "real only: 0 * inf is NaN in IEEE, a strong zero is 0"},
          {.name = "bracket-mul-right",
           .lhs = "?e1 * ([?p] * ?e2)",
           .rhs = "[?p] * (?e1 * ?e2)",
           .domain = D::Real,
           .cite = "000 (4.30)",
           .note = "real only: inf * 0 is NaN in IEEE, a strong zero is 0"},
          {.name = "bracket-exp-positive",
           .lhs = "[0 < exp(?e)] * ?t",
           .rhs = "?t",
           .when = "-700 < ?e",
           .domain = D::Real,
           .cite = "000 (4.30) with a fact about exp",
           .assume = "?e <= -700 || 0 < exp(?e)",
           .note = "exp is uninterpreted: its positivity above -700 is an assumption, printed "
                   "with the proof (in double exp underflows to 0 below about -745: decision "
                   "152); stated for ?e > -700 only, so the proof needs the guard (decision 231)"},
          {.name = "and-true",
           .lhs = "?p && true",
           .rhs = "?p",
           .domain = D::Ieee,
           .cite = "boolean algebra"},
          {.name = "true-and",
           .lhs = "true && ?p",
           .rhs = "?p",
           .domain = D::Ieee,
           .cite = "boolean algebra"},
          {.name = "and-false",
           .lhs = "?p && false",
           .rhs = "false",
           .domain = D::Ieee,
           .cite = "boolean algebra"},
          {.name = "false-and",
           .lhs = "false && ?p",
           .rhs = "false",
           .when = "partial(?p)",
           .domain = D::Ieee,
           .cite = "boolean algebra (short-circuit)"},
          {.name = "eq-self",
           .lhs = "?a == ?a",
           .rhs = "true",
           .domain = D::Ieee,
           .cite = "integer arithmetic"},
      });
  return t;
}

const RuleTable& iverson_laws_table() {
  using D = RuleDomain;
  static const RuleTable t = make_table(
      "iverson-laws",
      "identities of the cost model, proved but not oriented (the engine does not apply them)",
      {
          {.name = "bracket-split-add",
           .lhs = "[?p] * ?e1 + [?q] * ?e2",
           .rhs = "[?p && !?q] * ?e1 + [?q && !?p] * ?e2 + [?p && ?q] * (?e1 + ?e2)",
           .domain = D::Real,
           .cite = "000 P11, (4.24)",
           .note = "explains why a guarded addition costs 1 only where both guards hold"},
          {.name = "bracket-or",
           .lhs = "[?p] * ?e + [?q && !?p] * ?e",
           .rhs = "[?p || ?q] * ?e",
           .domain = D::Real,
           .cite = "000 (6.25) predicate join"},
      });
  return t;
}

}  // namespace adlab::ir::rewrite
