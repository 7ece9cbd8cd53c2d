// Paper 000's forward rules (6.1)-(6.13) as exact first-order identities: the rule's tangent is
// the whole change of the value, less the second-order term. (6.3)-(6.5), (6.10), (6.11), sub
// and div are applied: ad/iverson/local_tangent.cpp builds the left side with placeholders and
// rewrites it to the tangent. Reads and black boxes (6.2), (6.8) are proved here and applied by
// ad/iverson/forward.cpp.
#include "ir/rewrite/tables/tables.h"

namespace adlab::ir::rewrite {

const RuleTable& iverson_forward_table() {
  using D = RuleDomain;
  static const RuleTable t =
      make_table("iverson-forward",
                 "paper 000 forward rules (6.1)-(6.13): the tangent is the first-order change",
                 {
                     {.name = "fwd-neg",
                      .lhs = "-(?e1 + ?e3) - -?e1",
                      .rhs = "-?e3",
                      .domain = D::Real,
                      .cite = "000 (6.3)"},
                     {.name = "fwd-add",
                      .lhs = "(?e1 + ?e3) + (?e2 + ?e4) - (?e1 + ?e2)",
                      .rhs = "?e3 + ?e4",
                      .domain = D::Real,
                      .cite = "000 (6.4)"},
                     {.name = "fwd-mul",
                      .lhs = "(?e1 + ?e3) * (?e2 + ?e4) - ?e1 * ?e2 - ?e3 * ?e4",
                      .rhs = "?e3 * ?e2 + ?e1 * ?e4",
                      .domain = D::Real,
                      .cite = "000 (6.5)"},
                     {.name = "fwd-sub",
                      .lhs = "(?e1 + ?e3) - (?e2 + ?e4) - (?e1 - ?e2)",
                      .rhs = "?e3 - ?e4",
                      .domain = D::Real,
                      .cite = "000 (6.3), (6.4): d(a - b) = da - db"},
                     {.name = "fwd-div",
                      .lhs = "(?e1 + ?e3) / (?e2 + ?e4) - ?e1 / ?e2 + "
                             "(?e3 - (?e1 / ?e2) * ?e4) * ?e4 / (?e2 * (?e2 + ?e4))",
                      .rhs = "?e3 / ?e2 - (?e1 / ?e2) * ?e4 / ?e2",
                      .domain = D::Real,
                      .cite = "000 (6.5), (6.8) for a / b: d(a / b) = da / b - (a / b) db / b",
                      .claim = Claim::Refines,
                      .note = "refines: the left side also needs b + db != 0"},
                     {.name = "fwd-read",
                      .lhs = "((gen[?i < ?n] ?X[?i] + ?D[?i])[?a]) - ?X[?a]",
                      .rhs = "?D[?a]",
                      .when = "in_range(?a, ?n)",
                      .domain = D::Real,
                      .cite = "000 (6.2): d(x[a]) = dx[a]",
                      .vars = "?X: f64[?n]; ?D: f64[?n]"},
                     {.name = "fwd-bracket",
                      .lhs = "[?p] * (?e1 + ?e2) - [?p] * ?e1",
                      .rhs = "[?p] * ?e2",
                      .domain = D::Real,
                      .cite = "000 (6.10): d([p] e) = [p] de"},
                     {.name = "fwd-sum",
                      .lhs = "(sum[?i < ?n] ?X[?i] + ?D[?i]) - (sum[?j < ?n] ?X[?j])",
                      .rhs = "sum[?i < ?n] ?D[?i]",
                      .domain = D::Real,
                      .cite = "000 (6.11): d(sum e) = sum de",
                      .vars = "?X: f64[?n]; ?D: f64[?n]"},
                     {.name = "fwd-blackbox",
                      .lhs = "exp(?e1) * ?e2",
                      .rhs = "?e2 * exp(?e1)",
                      .domain = D::Real,
                      .cite = "000 (6.8): d f(e) = f'(e) de, the partial a black box (exp' = exp)"},
                 });
  return t;
}

}  // namespace adlab::ir::rewrite
