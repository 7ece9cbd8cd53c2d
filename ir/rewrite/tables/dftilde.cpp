// The rest of paper 001's Fig. 8 (digest 001 section 4): fusion (8c), conditionals (8d), the
// peel rule of loop normalisation (8e e2), tuples (8f), fission (8g), let-swap (8a a6) and LICM
// (section 4.8), each with the side condition the digest makes explicit; and their wrong
// versions, which must be REFUTED. (a1-a5, a7 are in `let`, 8b in `ring`, e1/e3/e4 in `loop`.)
#include "ir/rewrite/tables/tables.h"

namespace adlab::ir::rewrite {

const RuleTable& dftilde_table() {
  using D = RuleDomain;
  static const RuleTable t = make_table(
      "dftilde", "paper 001 Fig. 8: fusion, conditionals, tuples, fission, peeling, LICM",
      {
          // 8c: pull-array fusion; without the range the left is undefined: a refinement
          {.name = "build-get",
           .lhs = "(gen[?i < ?n] ?e)[?a]",
           .rhs = "{ let ?i = ?a; ?e }",
           .domain = D::Ieee,
           .cite = "001 (c1)",
           .claim = Claim::Refines},
          // 8d: conditionals
          {.name = "if-true",
           .lhs = "select(true, ?e1, ?e2)",
           .rhs = "?e1",
           .domain = D::Ieee,
           .cite = "001 (d1)"},
          {.name = "if-false",
           .lhs = "select(false, ?e1, ?e2)",
           .rhs = "?e2",
           .domain = D::Ieee,
           .cite = "001 (d2)"},
          {.name = "if-same",
           .lhs = "select(?p, ?e1, ?e1)",
           .rhs = "?e1",
           .domain = D::Ieee,
           .cite = "001 (d3)"},
          {.name = "if-push-add",
           .lhs = "?e0 + select(?p, ?e1, ?e2)",
           .rhs = "select(?p, ?e0 + ?e1, ?e0 + ?e2)",
           .domain = D::Real,
           .cite = "001 (d5), f = (e0 + .)",
           .note = "valid in IEEE too, but Z3's fp64 check times out: proved over the reals"},
          {.name = "if-push-mul",
           .lhs = "?e0 * select(?p, ?e1, ?e2)",
           .rhs = "select(?p, ?e0 * ?e1, ?e0 * ?e2)",
           .domain = D::Real,
           .cite = "001 (d5), f = (e0 * .)",
           .note = "valid in IEEE too, but Z3's fp64 check times out: proved over the reals"},
          // 8f: tuples
          {.name = "fst-pair",
           .lhs = "(?e0, ?e1).0",
           .rhs = "?e0",
           .domain = D::Ieee,
           .cite = "001 (8f) fst"},
          {.name = "snd-pair",
           .lhs = "(?e0, ?e1).1",
           .rhs = "?e1",
           .domain = D::Ieee,
           .cite = "001 (8f) snd"},
          // 8a a6: the building block of code motion
          {.name = "let-swap",
           .lhs = "{ let ?x = ?e0; { let ?y = ?e1; ?e2 } }",
           .rhs = "{ let ?y = ?e1; { let ?x = ?e0; ?e2 } }",
           .when = "not_free(?x, ?e1); not_free(?y, ?e0)",
           .domain = D::Ieee,
           .cite = "001 (a6)"},
          // 8g: fission, each state component depends only on itself
          {.name = "fission",
           .lhs = "loop[?k < ?n] (?x = ?e0, ?y = ?e1) { next (?e2, ?e3) }",
           .rhs = "(loop[?k < ?n] (?x = ?e0) { next ?e2 }, loop[?k < ?n] (?y = ?e1) { next ?e3 })",
           .when = "not_free(?y, ?e2); not_free(?x, ?e3)",
           .domain = D::Ieee,
           .cite = "001 (g)"},
          // 8e e2: peel the first iteration, only when there is one
          {.name = "peel-first",
           .lhs = "loop[?k < ?n] (?x = ?e0) { next ?e1 }",
           .rhs = "loop[?k < ?n - 1] (?x = { let ?x = ?e0; ?e1 }) { next ?e1 }",
           .when = "not_free(?k, ?e1); 1 <= ?n",
           .domain = D::Ieee,
           .cite = "001 (e2) with n >= 1 (digest 001 section 4.5)",
           .note = "a step that does not read the index (the IR has no substitution in patterns)"},
          // section 4.8: LICM out of a gen; sound only when the gen is not empty
          {.name = "licm-gen",
           .lhs = "gen[?i < ?n] { let ?x = ?e0; ?e1 }",
           .rhs = "{ let ?x = ?e0; gen[?i < ?n] ?e1 }",
           .when = "not_free(?i, ?e0); partial(?e0); 1 <= ?n",
           .domain = D::Ieee,
           .cite = "001 section 4.8 LICM, with the empty-loop condition"},
      });
  return t;
}

// Row-major index arithmetic: a Jacobian read out of flat directions (fwdvec) unflattens them.
const RuleTable& flat_index_table() {
  using D = RuleDomain;
  static const RuleTable t = make_table(
      "flat-index", "row-major flat index arithmetic (fwdvec's Jacobian read-out)",
      {
          {.name = "flat-div",
           .lhs = "(?a * ?n + ?b) / ?n",
           .rhs = "?a",
           .when = "in_range(?b, ?n)",
           .domain = D::Ieee,
           .cite = "floor division, 0 <= b < n"},
          {.name = "flat-mod",
           .lhs = "(?a * ?n + ?b) % ?n",
           .rhs = "?b",
           .when = "in_range(?b, ?n)",
           .domain = D::Ieee,
           .cite = "floor modulo, 0 <= b < n",
           .assume = "(?a * ?n + ?b) / ?n == ?a",
           .note =
               "Z3 times out on the nonlinear modulo alone: flat-div, proved above, is assumed"},
      });
  return t;
}

const RuleTable& dftilde_errata_table() {
  using D = RuleDomain;
  static const RuleTable t = make_table(
      "dftilde-errata", "paper 001 Fig. 8 rules without their side conditions (must be REFUTED)",
      {
          {.name = "001-a6-capture",
           .lhs = "{ let ?x = ?e0; { let ?y = ?e1; ?e2 } }",
           .rhs = "{ let ?y = ?e1; { let ?x = ?e0; ?e2 } }",
           .when = "not_free(?y, ?e0)",
           .domain = D::Real,
           .cite = "001 (a6), digest 001 test 11",
           .note = "x free in e1: swapping reads an outer x"},
          {.name = "001-g-cross",
           .lhs = "(loop[?k < ?n] (?x = ?e0, ?y = ?e1) { next (?e2, ?e3) }).0",
           .rhs = "loop[?k < ?n] (?x = ?e0) { next ?e2 }",
           .domain = D::Real,
           .cite = "001 (g), digest 001 test 11",
           .note = "the first component reads the second's state (snd a)"},
          {.name = "001-e2-empty",
           .lhs = "loop[?k < ?n] (?x = ?e0) { next ?e1 }",
           .rhs = "loop[?k < ?n - 1] (?x = { let ?x = ?e0; ?e1 }) { next ?e1 }",
           .when = "not_free(?k, ?e1)",
           .domain = D::Real,
           .cite = "001 (e2), digest 001 test 11",
           .note = "n = 0: the left is e0, the right runs the body once"},
          {.name = "001-licm-empty",
           .lhs = "gen[?i < ?n] { let ?x = ?e0; ?e1 }",
           .rhs = "{ let ?x = ?e0; gen[?i < ?n] ?e1 }",
           .when = "not_free(?i, ?e0); partial(?e0)",
           .domain = D::Real,
           .cite = "001 section 4.8 LICM, digest 001 test 11",
           .note = "n = 0 and e0 undefined: the empty gen is defined, the hoisted let is not"},
      },
      /*errata=*/true);
  return t;
}

}  // namespace adlab::ir::rewrite
