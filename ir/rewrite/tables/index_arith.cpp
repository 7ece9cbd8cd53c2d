// Integer comparisons decided from the context: a comparison the facts of its context (binder
// bounds, brackets, branches) prove true or false becomes that constant. The facts are decided
// by ir/logic (affine fast path, then Z3).
#include "ir/rewrite/tables/tables.h"

namespace adlab::ir::rewrite {

const RuleTable& index_arith_table() {
  using D = RuleDomain;
  static const RuleTable t =
      make_table("index-arith", "integer comparisons decided from the context",
                 {
                     {.name = "eq-true",
                      .lhs = "?a == ?b",
                      .rhs = "true",
                      .when = "?a == ?b",
                      .domain = D::Ieee,
                      .cite = "integer arithmetic"},
                     {.name = "eq-false",
                      .lhs = "?a == ?b",
                      .rhs = "false",
                      .when = "?a < ?b || ?b < ?a",
                      .domain = D::Ieee,
                      .cite = "integer arithmetic"},
                     {.name = "lt-true",
                      .lhs = "?a < ?b",
                      .rhs = "true",
                      .when = "?a < ?b",
                      .domain = D::Ieee,
                      .cite = "integer arithmetic"},
                     {.name = "lt-false",
                      .lhs = "?a < ?b",
                      .rhs = "false",
                      .when = "?b <= ?a",
                      .domain = D::Ieee,
                      .cite = "integer arithmetic"},
                     {.name = "le-true",
                      .lhs = "?a <= ?b",
                      .rhs = "true",
                      .when = "?a <= ?b",
                      .domain = D::Ieee,
                      .cite = "integer arithmetic"},
                     {.name = "le-false",
                      .lhs = "?a <= ?b",
                      .rhs = "false",
                      .when = "?b < ?a",
                      .domain = D::Ieee,
                      .cite = "integer arithmetic"},
                 });
  return t;
}

}  // namespace adlab::ir::rewrite
