// Ring rules: paper 001 Fig. 8b. Valid over the reals; each is marked ieee only where it also
// holds in IEEE-754 double (digest 001 section 4.2: b1 fails for -0, b3 for NaN/inf/-0, b4 for
// inf/NaN, b5 by rounding).
#include "ir/rewrite/tables/tables.h"

namespace adlab::ir::rewrite {

const RuleTable& ring_table() {
  using D = RuleDomain;
  static const RuleTable t = make_table(
      "ring", "ring rules (paper 001 Fig. 8b), IEEE validity stated per rule",
      {
          {.name = "add-zero",
           .lhs = "?e + 0",
           .rhs = "?e",
           .domain = D::Real,
           .cite = "001 (b1)",
           .note = "IEEE: -0 + 0 is +0"},
          {.name = "zero-add",
           .lhs = "0 + ?e",
           .rhs = "?e",
           .domain = D::Real,
           .cite = "001 (b1)",
           .note = "IEEE: 0 + -0 is +0"},
          {.name = "sub-zero",
           .lhs = "?e - 0",
           .rhs = "?e",
           .domain = D::Ieee,
           .cite = "001 (b1) for subtraction"},
          {.name = "mul-one", .lhs = "?e * 1", .rhs = "?e", .domain = D::Ieee, .cite = "001 (b2)"},
          {.name = "one-mul", .lhs = "1 * ?e", .rhs = "?e", .domain = D::Ieee, .cite = "001 (b2)"},
          {.name = "div-one",
           .lhs = "?e / 1",
           .rhs = "?e",
           .domain = D::Ieee,
           .cite = "field rule"},
          {.name = "mul-zero",
           .lhs = "?e * 0",
           .rhs = "0",
           .domain = D::Real,
           .cite = "001 (b3)",
           .note = "IEEE: inf * 0 is NaN, -1 * 0 is -0"},
          {.name = "zero-mul",
           .lhs = "0 * ?e",
           .rhs = "0",
           .domain = D::Real,
           .cite = "001 (b3)",
           .note = "IEEE: 0 * NaN is NaN"},
          {.name = "sub-self",
           .lhs = "?e - ?e",
           .rhs = "0",
           .domain = D::Real,
           .cite = "001 (b4)",
           .note = "IEEE: inf - inf is NaN"},
          {.name = "neg-neg", .lhs = "-(-?e)", .rhs = "?e", .domain = D::Ieee, .cite = "ring"},
          {.name = "factor",
           .lhs = "?e0 * ?e1 + ?e0 * ?e2",
           .rhs = "?e0 * (?e1 + ?e2)",
           .domain = D::Real,
           .cite = "001 (b5)",
           .note = "IEEE: rounding differs"},
      });
  return t;
}

}  // namespace adlab::ir::rewrite
