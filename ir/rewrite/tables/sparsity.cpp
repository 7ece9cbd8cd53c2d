// Sparsity propagation and multiplication normalisation: paper 004 Fig. 9 (S1-S7, N1 corrected,
// N2), written over adlab's tensors: zero[D] is a Gen of 0, a dictionary iterated over its keys is
// a sparse tensor iterated over its stored entries (digest 004 sections 4.2 and 9.2).
#include "ir/rewrite/tables/tables.h"

namespace adlab::ir::rewrite {

const RuleTable& sparsity_table() {
  using D = RuleDomain;
  static const RuleTable t = make_table(
      "sparsity", "sparsity propagation and normalisation (paper 004 Fig. 9), real domain",
      {
          {.name = "S1-zero-mul",
           .lhs = "gen[?i < ?n, ?j < ?m] (gen[?k < ?n] 0)[?i] * ?X[?j]",
           .rhs = "gen[?i < ?n, ?j < ?m] 0",
           .domain = D::Real,
           .cite = "004 Fig. 9 (S1)",
           .vars = "?X: f64[?m]",
           .note = "zero[D1] * e2 = zero[D1 (x) D2]; IEEE: 0 * inf is NaN (errata 004-S1-ieee)"},
          {.name = "S2-mul-zero",
           .lhs = "gen[?i < ?n, ?j < ?m] ?X[?i] * (gen[?k < ?m] 0)[?j]",
           .rhs = "gen[?i < ?n, ?j < ?m] 0",
           .domain = D::Real,
           .cite = "004 Fig. 9 (S2)",
           .vars = "?X: f64[?n]",
           .note = "e1 * zero[D2] = zero[D1 (x) D2]; IEEE: NaN * 0 is NaN"},
          {.name = "S3-add-zero",
           .lhs = "gen[?i < ?n] ?X[?i] + (gen[?k < ?n] 0)[?i]",
           .rhs = "gen[?i < ?n] ?X[?i]",
           .domain = D::Real,
           .cite = "004 Fig. 9 (S3)",
           .vars = "?X: f64[?n]",
           .note = "the zero has e1's type (a typing precondition); IEEE: -0 + 0 is +0"},
          {.name = "S4-zero-add",
           .lhs = "gen[?i < ?n] (gen[?k < ?n] 0)[?i] + ?X[?i]",
           .rhs = "gen[?i < ?n] ?X[?i]",
           .domain = D::Real,
           .cite = "004 Fig. 9 (S4)",
           .vars = "?X: f64[?n]",
           .note = "IEEE: 0 + -0 is +0"},
          {.name = "S5-lookup-zero",
           .lhs = "(gen[?i < ?n, ?j < ?m] 0)[?a, ?b]",
           .rhs = "0",
           .when = "in_range(?a, ?n); in_range(?b, ?m)",
           .domain = D::Ieee,
           .cite = "004 Fig. 9 (S5)",
           .note = "a lookup of a dense zero needs the key in range (a dictionary's absent key "
                   "reads 0; adlab's out-of-range read is an error)"},
          {.name = "S6-let-zero",
           .lhs = "{ let ?x = gen[?i < ?n] 0; ?x[?a] * ?e }",
           .rhs = "(gen[?i < ?n] 0)[?a] * ?e",
           .when = "not_free(?x, ?e); not_free(?x, ?a)",
           .domain = D::Ieee,
           .cite = "004 Fig. 9 (S6)",
           .note = "let x = zero in e2 is e2 with zero substituted (shown on a use of x); the "
                   "index must not read x either (decision 231)"},
          {.name = "S7-sum-over-zero",
           .lhs = "sum[(?k) in ?A] ?e",
           .rhs = "0",
           .domain = D::Real,
           .cite = "004 Fig. 9 (S7)",
           .vars = "?A: f64[?n] @coo",
           .assume = "!(exists[?j < ?n] nz(?A, ?j))",
           .note = "zero[D] stores no key, so the sum over its stored entries is empty"},
          {.name = "N1-normalise-left",
           .lhs = "gen[?i < ?n] ?A[?i] * ?e",
           .rhs = "gen[?i < ?n] sum[(?k) in ?A] [?k == ?i] * (?A[?k] * ?e)",
           .when = "not_free(?i, ?e); not_free(?k, ?e)",
           .domain = D::Real,
           .cite = "004 Fig. 9 (N1), corrected: body v * e2",
           .vars = "?A: f64[?n] @coo",
           .note = "iterates the stored keys of e1 only; IEEE: an absent key with e2 = inf gives "
                   "NaN on the left, 0 on the right (errata 004-N1-ieee)"},
          {.name = "N2-normalise-right",
           .lhs = "gen[?i < ?n] ?e * ?A[?i]",
           .rhs = "gen[?i < ?n] sum[(?k) in ?A] [?k == ?i] * (?e * ?A[?k])",
           .when = "not_free(?i, ?e); not_free(?k, ?e)",
           .domain = D::Real,
           .cite = "004 Fig. 9 (N2)",
           .vars = "?A: f64[?n] @coo",
           .note = "e1 real, e2 a sparse tensor; IEEE as N1"},
      });
  return t;
}

}  // namespace adlab::ir::rewrite
