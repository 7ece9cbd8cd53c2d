// Sum elimination by an equality predicate: paper 000 errata 10 (SE, E∃), with the range guard
// the paper's examples E4 and E6 drop.
#include "ir/rewrite/tables/tables.h"

namespace adlab::ir::rewrite {

const RuleTable& sum_elim_table() {
  using D = RuleDomain;
  static const RuleTable t =
      make_table("sum-elim", "single-solution sums and exists (paper 000 errata 10)",
                 {
                     {.name = "sum-elim",
                      .lhs = "sum[?i < ?n] [?i == ?a] * ?e",
                      .rhs = "[0 <= ?a && ?a < ?n] * { let ?i = ?a; ?e }",
                      .when = "not_free(?i, ?a); never_fails(?a)",
                      .domain = D::Real,
                      .cite = "000 errata 10 (SE)",
                      .note = "real only: IEEE sums start at +0, and +0 + -0 is +0"},
                     {.name = "sum-elim-sym",
                      .lhs = "sum[?i < ?n] [?a == ?i] * ?e",
                      .rhs = "[0 <= ?a && ?a < ?n] * { let ?i = ?a; ?e }",
                      .when = "not_free(?i, ?a); never_fails(?a)",
                      .domain = D::Real,
                      .cite = "000 errata 10 (SE)"},
                     {.name = "sum-elim-and",
                      .lhs = "sum[?i < ?n] [?i == ?a && ?q] * ?e",
                      .rhs = "[0 <= ?a && ?a < ?n && { let ?i = ?a; ?q }] * { let ?i = ?a; ?e }",
                      .when = "not_free(?i, ?a); never_fails(?a)",
                      .domain = D::Real,
                      .cite = "000 errata 10 (SE)"},
                     {.name = "sum-elim-solved",
                      .lhs = "sum[?i < ?n] [?p] * ?e",
                      .rhs = "[0 <= ?a && ?a < ?n && { let ?i = ?a; ?p }] * { let ?i = ?a; ?e }",
                      .when = "forces(?p, ?i, ?a); not_free(?i, ?a); never_fails(?a)",
                      .domain = D::Real,
                      .cite = "000 errata 10 (SE), p solved for i by ir/logic"},
                     {.name = "exists-elim",
                      .lhs = "exists[?i < ?n] ?i == ?a",
                      .rhs = "0 <= ?a && ?a < ?n",
                      .when = "not_free(?i, ?a); never_fails(?a)",
                      .domain = D::Ieee,
                      .cite = "000 errata 10 (E∃)"},
                     {.name = "exists-elim-and",
                      .lhs = "exists[?i < ?n] (?i == ?a && ?q)",
                      .rhs = "0 <= ?a && ?a < ?n && { let ?i = ?a; ?q }",
                      .when = "not_free(?i, ?a); never_fails(?a)",
                      .domain = D::Ieee,
                      .cite = "000 errata 10 (E∃)"},
                     {.name = "exists-elim-solved",
                      .lhs = "exists[?i < ?n] ?p",
                      .rhs = "0 <= ?a && ?a < ?n && { let ?i = ?a; ?p }",
                      .when = "forces(?p, ?i, ?a); not_free(?i, ?a); never_fails(?a)",
                      .domain = D::Ieee,
                      .cite = "000 errata 10 (E∃), p solved for i by ir/logic"},
                 });
  return t;
}

}  // namespace adlab::ir::rewrite
