// A program in paper 000's Tensor SSA (Fig. 10; digest 000 section 4.4).
#pragma once

#include <vector>

#include "ir/function.h"

namespace adlab::ad::iverson {

// Each statement binds one variable to `gen[I] body` (or a scalar `body`) where body has no let,
// gen, call, tuple or projection, and a sum appears only at the top of a body (under brackets and
// sums). Results are parameters, statement variables or literals.
struct SsaProgram {
  std::vector<ir::Stmt> stmts;
  std::vector<ir::Expr> results;
  std::vector<ir::Expr> facts;  // sizes are non-negative
};

}  // namespace adlab::ad::iverson
