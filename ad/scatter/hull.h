// Rectangular hulls of triangular domains: scatter and gen bounds must be size expressions
// (docs/ir.md 5.10, 5.14), so an affine bound is widened and the exact one becomes a guard.
#pragma once

#include <optional>
#include <vector>

#include "ir/expr.h"

namespace adlab::ad::scatter {

// A size expression >= `bound` for every point of the enclosing domain (vars[k] < hull[k]), or
// nullopt when `bound` is not affine in those vars. Returns `bound` itself when it uses none.
std::optional<ir::Expr> hull_bound(ir::Expr bound, const std::vector<ir::Expr>& vars,
                                   const std::vector<ir::Expr>& hull);

}  // namespace adlab::ad::scatter
