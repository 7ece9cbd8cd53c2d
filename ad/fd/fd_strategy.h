// The `fd` baseline: central finite differences in double (issue: the harness works before any
// AD strategy exists, and reports show what naive differencing costs and how wrong it gets).
#pragma once

#include <memory>

#include "ad/strategy.h"

namespace adlab::ad {

// Central differences with step h_j = cbrt(u) * max(1, |x_j|), u = 2^-53: truncation
// O(h^2 f''') and rounding O(u f / h) balance at a relative error near u^(2/3) = 4e-11 for
// well-scaled functions; its declared accuracy is 1e-5 to allow for larger third derivatives.
std::unique_ptr<Strategy> make_fd_strategy();

}  // namespace adlab::ad
