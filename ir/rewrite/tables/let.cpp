// Let rules: paper 000 Fig. 7 (let-lifting 5.1-5.10, with 5.10 corrected) and dead lets. Lets are
// strict (evaluated once, always), so a dead let is removable only for a total value.
#include "ir/rewrite/tables/tables.h"

namespace adlab::ir::rewrite {

const RuleTable& let_table() {
  using D = RuleDomain;
  static const RuleTable t =
      make_table("let", "let rules (paper 000 Fig. 7, paper 001 Fig. 8a)",
                 {
                     {.name = "let-dead",
                      .lhs = "{ let ?x = ?t1; ?t2 }",
                      .rhs = "?t2",
                      .when = "not_free(?x, ?t2); never_fails(?t1)",
                      .domain = D::Ieee,
                      .cite = "001 (8a) dead let",
                      .note = "?t1 total: a strict let of a failing value fails (decision 197)"},
                     {.name = "let-add-left",
                      .lhs = "{ let ?x = ?t1; ?e2 } + ?e3",
                      .rhs = "{ let ?x = ?t1; ?e2 + ?e3 }",
                      .when = "not_free(?x, ?e3)",
                      .domain = D::Ieee,
                      .cite = "000 (5.1)"},
                     {.name = "let-add-right",
                      .lhs = "?e3 + { let ?x = ?t1; ?e2 }",
                      .rhs = "{ let ?x = ?t1; ?e3 + ?e2 }",
                      .when = "not_free(?x, ?e3)",
                      .domain = D::Ieee,
                      .cite = "000 (5.1), symmetric case"},
                     {.name = "let-mul-left",
                      .lhs = "{ let ?x = ?t1; ?e2 } * ?e3",
                      .rhs = "{ let ?x = ?t1; ?e2 * ?e3 }",
                      .when = "not_free(?x, ?e3)",
                      .domain = D::Ieee,
                      .cite = "000 (5.2)"},
                     {.name = "let-mul-right",
                      .lhs = "?e3 * { let ?x = ?t1; ?e2 }",
                      .rhs = "{ let ?x = ?t1; ?e3 * ?e2 }",
                      .when = "not_free(?x, ?e3)",
                      .domain = D::Ieee,
                      .cite = "000 (5.2), symmetric case"},
                     {.name = "let-bracket",
                      .lhs = "[?p] * { let ?x = ?t1; ?e2 }",
                      .rhs = "{ let ?x = [?p] * ?t1; [?p] * ?e2 }",
                      .when = "partial(?t1); not_free(?x, ?p)",
                      .domain = D::Ieee,
                      .cite = "000 (5.9)",
                      .note = "the bracket is duplicated onto the value for cost-neutrality"},
                     {.name = "let-let",
                      .lhs = "{ let ?x = { let ?y = ?t0; ?t1 }; ?t2 }",
                      .rhs = "{ let ?y = ?t0; { let ?x = ?t1; ?t2 } }",
                      .when = "not_free(?y, ?t2)",
                      .domain = D::Ieee,
                      .cite = "000 (5.10) corrected (errata 1)"},
                 });
  return t;
}

}  // namespace adlab::ir::rewrite
