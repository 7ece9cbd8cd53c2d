// Loop normalisation: paper 001 Fig. 8e (ifold as `loop`), with the bounds check the paper
// forgot on the single-hit rule e4 (digest 001 section 4.5).
#include "ir/rewrite/tables/tables.h"

namespace adlab::ir::rewrite {

const RuleTable& loop_table() {
  using D = RuleDomain;
  static const RuleTable t = make_table(
      "loop", "loop normalisation (paper 001 Fig. 8e)",
      {
          {.name = "loop-empty",
           .lhs = "loop[?k < 0] (?x = ?e0) { next ?e1 }",
           .rhs = "?e0",
           .domain = D::Ieee,
           .cite = "001 (e1)"},
          {.name = "loop-keep",
           .lhs = "loop[?k < ?n] (?x = ?e0) { next ?x }",
           .rhs = "?e0",
           .domain = D::Ieee,
           .cite = "001 (e3)"},
          {.name = "single-hit-loop",
           .lhs = "loop[?k < ?n] (?x = ?e0) { next select(?k == ?a, ?e1, ?x) }",
           .rhs = "select(0 <= ?a && ?a < ?n, { let ?x = ?e0; { let ?k = ?a; ?e1 } }, ?e0)",
           .when = "not_free(?k, ?a); not_free(?x, ?a); never_fails(?a)",
           .domain = D::Ieee,
           .cite = "001 (e4) with its bounds check"},
      });
  return t;
}

}  // namespace adlab::ir::rewrite
