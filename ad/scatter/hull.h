// Rectangular hulls of triangular domains: scatter and gen bounds must be size expressions
// (docs/ir.md 5.10, 5.14), so an affine bound is widened and the exact one becomes a guard.
#pragma once

#include <optional>
#include <vector>

#include "ir/expr.h"

namespace adlab::ad::scatter {

// A non-negative size expression >= `bound` for every point of the enclosing domain
// (vars[k] < hull[k]), or nullopt when `bound` is not affine in those vars. When it uses none,
// `bound` itself, or `max(bound, 0)` if it may be negative (`sum[i < n - 1]` is empty at n = 0,
// a gen over that range would be an error).
std::optional<ir::Expr> hull_bound(ir::Expr bound, const std::vector<ir::Expr>& vars,
                                   const std::vector<ir::Expr>& hull);

// Whether `i < hull` is `i < bound` for every i >= 0 (`hull` from hull_bound), so that no guard
// is needed.
bool hull_is_exact(ir::Expr hull, ir::Expr bound);

}  // namespace adlab::ad::scatter
