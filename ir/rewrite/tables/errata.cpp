// The papers' wrong rules, as printed (the digests' errata sections). Each must come out
// REFUTED with a counterexample: the proof that the checker can fail (DESIGN 4.1).
#include "ir/rewrite/tables/tables.h"

namespace adlab::ir::rewrite {

const RuleTable& errata_table() {
  using D = RuleDomain;
  static const RuleTable t = make_table(
      "errata", "the papers' rules as printed, each wrong (must be REFUTED)",
      {
          {.name = "000-5.10-as-printed",
           .lhs = "{ let ?x = { let ?y = ?t0; ?t1 }; ?t2 }",
           .rhs = "{ let ?x = ?t1; { let ?y = ?t0; ?t2 } }",
           .domain = D::Real,
           .cite = "000 (5.10), errata 1",
           .note = "y escapes its scope: ?t1 reads an outer y"},
          {.name = "000-5.29-as-printed",
           .lhs = "gen[?i < ?n] [?p] * ?e",
           .rhs = "gen[?i < ?n] ?e",
           .when = "not_free(?i, ?e)",
           .domain = D::Real,
           .cite = "000 (5.29), errata 3",
           .note = "drops the predicate: Gen[i<n] [i=0]*3 becomes all 3s"},
          {.name = "000-6.29-dY[i]",
           .lhs = "sum[?g < ?n] ?dY[?g] * sum[?i < ?m] [?p] * ?dX[?i]",
           .rhs = "sum[?i < ?m] ?dX[?i] * sum[?g < ?n] [?p] * ?dY[?i]",
           .domain = D::Real,
           .cite = "000 (6.29), errata 5",
           .vars = "?dY: f64[?n]; ?dX: f64[?m]",
           .note = "dY is indexed by the input index instead of the output index"},
          {.name = "000-5.21-unguarded",
           .lhs = "(gen[?i < ?n] ?e)[?a]",
           .rhs = "{ let ?i = ?a; ?e }",
           .domain = D::Real,
           .cite = "000 (5.21), errata 7",
           .note = "no range guard: the left fails for a >= n, the right does not"},
          {.name = "000-E6-correlation-unguarded",
           .lhs = "sum[?i < ?n] ?dy[?i] * sum[?j < ?m] ?dx[?i - ?j + ?m - 1] * ?c[?j]",
           .rhs = "sum[?k < ?n + ?m - 1] ?dx[?k] * sum[?j < ?m] ?dy[?k - ?m + 1 + ?j] * ?c[?j]",
           .domain = D::Real,
           .cite = "000 E6, errata 7",
           .vars = "?dy: f64[?n]; ?dx: f64[?n + ?m - 1]; ?c: f64[?m]",
           .note = "the correlation without [0 <= k+j < n] reads dy out of bounds"},
          {.name = "001-e4-unguarded",
           .lhs = "loop[?k < ?n] (?x = ?e0) { next select(?k == ?a, ?e1, ?x) }",
           .rhs = "{ let ?x = ?e0; { let ?k = ?a; ?e1 } }",
           .when = "not_free(?k, ?a); not_free(?x, ?a)",
           .domain = D::Real,
           .cite = "001 (e4), digest 001 section 4.5",
           .note = "without 0 <= a < n the loop never hits and returns the initial state"},
          {.name = "001-b3-ieee",
           .lhs = "?e * 0",
           .rhs = "0",
           .domain = D::Ieee,
           .cite = "001 (b3) under IEEE",
           .note = "inf * 0 is NaN"},
          {.name = "001-b4-ieee",
           .lhs = "?e - ?e",
           .rhs = "0",
           .domain = D::Ieee,
           .cite = "001 (b4) under IEEE",
           .note = "inf - inf is NaN"},
          {.name = "004-N1-as-printed",
           .lhs = "gen[?i < ?n] ?A[?i] * ?e",
           .rhs = "gen[?i < ?n] sum[(?k) in ?A] [?k == ?i] * (?A[?k] * ?A[?k])",
           .when = "not_free(?i, ?e)",
           .domain = D::Real,
           .cite = "004 Fig. 9 (N1), errata",
           .vars = "?A: f64[?n] @coo",
           .note = "the body is printed v * e1 (the iterated tensor's entry) instead of v * e2"},
      },
      /*errata=*/true);
  return t;
}

}  // namespace adlab::ir::rewrite
