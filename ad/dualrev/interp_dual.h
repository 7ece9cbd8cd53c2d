// The reference interpreter instantiated with dual numbers (DESIGN 5 `interp`: strategies
// instantiate it with their own scalar types): running an IR program records its tape.
#pragma once

#include "ad/dualrev/dual.h"
#include "ir/interp/interpreter.h"

namespace adlab::ir {
extern template class Interpreter<ad::dualrev::Dual>;
}  // namespace adlab::ir
