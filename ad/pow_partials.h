// The partial derivatives of pow(a, b) as IR, shared by the strategies that emit derivative code
// (iverson, scatter, fwdvec) and matching dualrev's and sparse's scalar rules (ad/dualrev/dual.h).
#pragma once

#include "ir/expr.h"

namespace adlab::ad {

struct PowPartials {
  ir::Expr da, db;
};

// d pow(a, b) = (b a^(b-1), a^b log a) with the limits the formulas miss at a = 0:
// b = 0 makes pow constant in a (0 * 0^-1 would be NaN where a^-1 overflows; elsewhere the
// formula gives 0 itself and keeps its derivative in b), and a = 0 gives 0 for b (log 0 * 0^b
// would be -inf * 0 = NaN; 0^b is 0 for every b > 0). `e` is pow(a, b) itself, reused.
PowPartials pow_partials(ir::Expr a, ir::Expr b, ir::Expr e);

}  // namespace adlab::ad
