// Indexing into a Gen: paper 000 (5.21) (and paper 001's build-get c1), with the range guard the
// paper drops (errata 7): the engine applies it only where the context proves 0 <= a < n.
#include "ir/rewrite/tables/tables.h"

namespace adlab::ir::rewrite {

const RuleTable& gen_index_table() {
  using D = RuleDomain;
  static const RuleTable t = make_table(
      "gen-index", "index into a Gen (paper 000 (5.21), paper 001 c1)",
      {
          {.name = "index-gen",
           .lhs = "(gen[?i < ?n] ?e)[?a]",
           .rhs = "{ let ?i = ?a; ?e }",
           .when = "in_range(?a, ?n)",
           .domain = D::Ieee,
           .cite = "000 (5.21) guarded, 001 c1"},
          {.name = "index-gen-2",
           .lhs = "(gen[?i < ?n, ?j < ?m] ?e)[?a, ?b]",
           .rhs = "{ let ?i = ?a; { let ?j = ?b; ?e } }",
           .when = "in_range(?a, ?n); in_range(?b, ?m); not_free(?i, ?b); not_free(?j, ?a)",
           .domain = D::Ieee,
           .cite = "000 (5.21) guarded, rank 2"},
      });
  return t;
}

}  // namespace adlab::ir::rewrite
