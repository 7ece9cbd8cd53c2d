// Paper 000's adjoint rules (6.14)-(6.28) as the inner-product identities that make them correct:
// <g, forward(dx)> = <transposed(g), dx> (000 section 6.3). The local rules (6.15)-(6.18),
// (6.25), (6.26) are applied: ad/iverson/local_adjoint.cpp rewrites `g * tangent` with them, one
// step at a time, so their order matters (a rule before the more general ones it refines). The
// structural rules (6.20)-(6.24), (6.27), (6.28) are proved here and applied by transpose.cpp;
// (6.29) and E6 are in `adjoint-identities`.
#include "ir/rewrite/tables/tables.h"

namespace adlab::ir::rewrite {

const RuleTable& iverson_adjoint_table() {
  using D = RuleDomain;
  static const RuleTable t = make_table(
      "iverson-adjoint",
      "paper 000 adjoint rules (6.14)-(6.28) as inner-product identities; (6.15)-(6.18), (6.25), "
      "(6.26) applied by the iverson strategy",
      {
          {.name = "adj-neg",
           .lhs = "?e * -?e1",
           .rhs = "-?e * ?e1",
           .domain = D::Real,
           .cite = "000 (6.15): adjoint of -a is -g"},
          {.name = "adj-mul",
           .lhs = "?e * (?e3 * ?e2 + ?e1 * ?e4)",
           .rhs = "(?e * ?e2) * ?e3 + (?e * ?e1) * ?e4",
           .domain = D::Real,
           .cite = "000 (6.17): adjoint of a * b is (g b, g a)"},
          {.name = "adj-div",
           .lhs = "?e * (?e3 / ?e2 - (?e1 * ?e4) / ?e2)",
           .rhs = "(?e / ?e2) * ?e3 + -((?e * ?e1) / ?e2) * ?e4",
           .domain = D::Real,
           .cite = "000 (6.17) for a / b: adjoint (g / b, -(g (a / b)) / b)",
           .note = "before adj-sub, whose pattern also matches"},
          {.name = "adj-add",
           .lhs = "?e * (?e1 + ?e2)",
           .rhs = "?e * ?e1 + ?e * ?e2",
           .domain = D::Real,
           .cite = "000 (6.16): adjoint of a + b is (g, g)"},
          {.name = "adj-sub",
           .lhs = "?e * (?e1 - ?e2)",
           .rhs = "?e * ?e1 + -?e * ?e2",
           .domain = D::Real,
           .cite = "000 (6.15), (6.16): adjoint of a - b is (g, -g)"},
          {.name = "adj-blackbox",
           .lhs = "?e * (?e1 * ?e2)",
           .rhs = "(?e * ?e1) * ?e2",
           .domain = D::Real,
           .cite = "000 (6.18): adjoint of f(a) is g f'(a), f' a black box",
           .note = "the partials themselves are ad/iverson/scalar_partials.cpp: Z3 cannot "
                   "differentiate exp or log; what is proved is the adjoint step"},
          {.name = "adj-bracket",
           .lhs = "?e * ([?p] * ?e1)",
           .rhs = "[?p] * (?e * ?e1)",
           .domain = D::Real,
           .cite = "000 (6.25): adjoint of [p] e is [p] g"},
          {.name = "adj-sum",
           .lhs = "?e * sum[?i < ?n] ?X[?i]",
           .rhs = "sum[?i < ?n] ?e * ?X[?i]",
           .when = "not_free(?i, ?e)",
           .domain = D::Real,
           .cite = "000 (6.26): adjoint of sum[i] e is g broadcast over i",
           .vars = "?X: f64[?n]"},
          {.name = "adj-select",
           .lhs = "?e * select(?p, ?e1, ?e2)",
           .rhs = "select(?p, ?e * ?e1, 0) + select(?p, 0, ?e * ?e2)",
           .domain = D::Real,
           .cite = "adlab extension of 000 (6.25): the adjoint of select goes to the taken branch"},
          {.name = "adj-fanout",
           .lhs = "?e * ?e1 + ?e * ?e2",
           .rhs = "?e * (?e1 + ?e2)",
           .domain = D::Real,
           .cite = "000 (6.20)-(6.24): a name read twice receives the sum of its adjoints"},
          {.name = "adj-gen",
           .lhs = "sum[?k < ?n] ?Y[?k] * ((gen[?i < ?n] ?X[?i] * ?W[?i])[?k])",
           .rhs = "sum[?i < ?n] ?X[?i] * (?Y[?i] * ?W[?i])",
           .domain = D::Real,
           .cite = "000 (6.27): adjoint of gen[i] e at the output adjoint dY[i]",
           .vars = "?Y: f64[?n]; ?X: f64[?n]; ?W: f64[?n]"},
          {.name = "adj-read-guarded",
           .lhs = "sum[?k < ?n] ?Y[?k] * ([?k + 1 < ?m] * ?X[?k + 1])",
           .rhs = "sum[?i < ?m] ?X[?i] * ([0 <= ?i - 1 && ?i - 1 < ?n] * ?Y[?i - 1])",
           .when = "never_fails(?X)",  // read where the left's sum over k is empty (234)
           .domain = D::Real,
           .cite = "000 (6.28) corrected (errata 7): the adjoint of a shifted read keeps its "
                   "range guard (shift 1; the general shift is `correlation`)",
           .vars = "?Y: f64[?n]; ?X: f64[?m]"},
      });
  return t;
}

}  // namespace adlab::ir::rewrite
