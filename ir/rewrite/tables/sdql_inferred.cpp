// The rules paper 004's derivations use without stating them (deferred to Schleich et al. 2022),
// as reconstructed in digest 004 section 4.3 (R1-R7), each with the precondition it needs. Their
// failures without it are in the errata table (004-R2-not-unique, 004-R4-free).
#include "ir/rewrite/tables/tables.h"

namespace adlab::ir::rewrite {

const RuleTable& sdql_inferred_table() {
  using D = RuleDomain;
  static const RuleTable t = make_table(
      "sdql-inferred", "rules paper 004's examples need (digest 004 section 4.3: R1-R7)",
      {
          {.name = "R1-singleton-lookup",
           .lhs = "(gen[?i < ?n] [?i == ?a] * ?e)[?b]",
           .rhs = "[?b == ?a] * ?e",
           .when = "not_free(?i, ?e); not_free(?i, ?a); in_range(?b, ?n)",
           .domain = D::Ieee,
           .cite = "digest 004 4.3 (R1)",
           .note = "{k -> v}(k2) = if k = k2 then v"},
          {.name = "R2-lookup-unique-singletons",
           .lhs = "(scatter[(?k) in ?A] to f64[?n] at (?k) add ?e)[?b]",
           .rhs = "[nz(?A, ?b)] * { let ?k = ?b; ?e }",
           .when = "in_range(?b, ?n)",
           .domain = D::Real,
           .cite = "digest 004 4.3 (R2)",
           .vars = "?A: f64[?n] @coo",
           .note = "unique keys: the key function is the stored key itself (injective)"},
          {.name = "R3-singleton-scaling",
           .lhs = "gen[?i < ?n] ([?i == ?a] * ?e0) * ?e1",
           .rhs = "gen[?i < ?n] [?i == ?a] * (?e0 * ?e1)",
           .domain = D::Real,
           .cite = "digest 004 4.3 (R3)",
           .note = "{k -> u} * a = {k -> u * a}; IEEE: an absent key gives 0 * inf on the left"},
          {.name = "R4-sum-factor",
           .lhs = "sum[?k < ?n] [nz(?A, ?k)] * (?e0 * ?e1)",
           .rhs = "?e0 * sum[?k < ?n] [nz(?A, ?k)] * ?e1",
           .when = "not_free(?k, ?e0); never_fails(?e0)",
           .domain = D::Real,
           .cite = "digest 004 4.3 (R4)",
           .vars = "?A: f64[?n] @coo",
           .note = "distributivity over the stored keys of A, written as the sum guarded by A's "
                   "pattern (Z3: 0.3 s; the `sum[(?k) in ?A]` form takes 8 s, too close to the 10 "
                   "s timeout on a loaded machine); k must not be free in e0 (004-R4-free); e0 "
                   "is evaluated even where the sum is empty, so it must not fail (decision "
                   "233)"},
          {.name = "R5-sum-linear",
           .lhs = "sum[(?k) in ?A] ?e0 + ?e1",
           .rhs = "(sum[(?k) in ?A] ?e0) + (sum[(?k) in ?A] ?e1)",
           .domain = D::Real,
           .cite = "digest 004 4.3 (R5)",
           .vars = "?A: f64[?n] @coo",
           .note = "associativity and commutativity of +"},
          {.name = "R6-fuse-storage",
           .lhs = "sum[?k < ?n] (scatter[(?j) in ?A] to f64[?n] at (?j) add ?e)[?k]",
           .rhs = "sum[(?j) in ?A] ?e",
           .when = "not_free(?k, ?e); never_fails(?A)",  // A read where the left's sum is empty
           .domain = D::Real,
           .cite = "digest 004 4.3 (R6)",
           .vars = "?A: f64[?n] @coo",
           .note = "vertical fusion of a storage definition into its consumer (h the sum of "
                   "the values); the key function (the stored key) is injective"},
          {.name = "R7-dps-flatten",
           .lhs = "(scatter[(?i, ?j) in ?A] to f64[?n, ?m] at (?i, ?j) add ?e)[?a, ?b]",
           .rhs = "[nz(?A, ?a, ?b)] * { let ?i = ?a; { let ?j = ?b; ?e } }",
           .when = "in_range(?a, ?n); in_range(?b, ?m); not_free(?i, ?a); not_free(?j, ?a); "
                   "not_free(?i, ?b); not_free(?j, ?b)",
           .domain = D::Real,
           .cite = "digest 004 4.3 (R7)",
           .vars = "?A: f64[?n, ?m] @coo",
           .note = "result[ka][kb] += e per stored entry equals the nested singleton sum"},
      });
  return t;
}

}  // namespace adlab::ir::rewrite
