// The reference interpreter on Dual values: f(x) and J(x) v in one run.
#pragma once

#include "examples/dualfwd/dual.h"
#include "ir/interp/interpreter.h"

namespace adlab::ir {
extern template class Interpreter<examples::dualfwd::Dual>;
}  // namespace adlab::ir
