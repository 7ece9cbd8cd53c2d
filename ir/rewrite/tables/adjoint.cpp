// Inner-product identities behind paper 000's adjoint rules: a rule is correct when
// <dY | forward(dX)> = <transposed(dY) | dX> for all dY, dX (000 section 6.3). Proved, not
// applied: the iverson strategy applies the rules, these are their semantic content.
#include "ir/rewrite/tables/tables.h"

namespace adlab::ir::rewrite {

const RuleTable& adjoint_identities_table() {
  using D = RuleDomain;
  static const RuleTable t = make_table(
      "adjoint-identities", "inner-product identities of paper 000's transposition rules",
      {
          {.name = "transpose-gather",
           .lhs = "sum[?g < ?n] ?dY[?g] * sum[?i < ?m] [?p] * ?dX[?i]",
           .rhs = "sum[?i < ?m] ?dX[?i] * sum[?g < ?n] [?p] * ?dY[?g]",
           // the right side reads dX also where the left's sum over g is empty (decision 234)
           .when = "never_fails(?dX)",
           .domain = D::Real,
           .cite = "000 (6.29), rank 1",
           .vars = "?dY: f64[?n]; ?dX: f64[?m]"},
          {.name = "correlation",
           .lhs = "sum[?i < ?n] ?dy[?i] * sum[?j < ?m] ?dx[?i - ?j + ?m - 1] * ?c[?j]",
           .rhs = "sum[?k < ?n + ?m - 1] ?dx[?k] * sum[?j < ?m] "
                  "[0 <= ?k - ?m + 1 + ?j && ?k - ?m + 1 + ?j < ?n] * (?dy[?k - ?m + 1 + ?j] * "
                  "?c[?j])",
           .when = "never_fails(?dx)",  // read where the left's sum over j is empty (234)
           .domain = D::Real,
           .cite = "000 E6 / TC6 (0-based), guarded",
           .vars = "?dy: f64[?n]; ?dx: f64[?n + ?m - 1]; ?c: f64[?m]"},
      });
  return t;
}

}  // namespace adlab::ir::rewrite
