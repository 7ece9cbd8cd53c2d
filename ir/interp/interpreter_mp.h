// The reference interpreter in 50-digit arithmetic (the gradient checker's reference, DESIGN 4.2).
#pragma once

#include "ir/interp/interpreter.h"
#include "ir/interp/scalar.h"

namespace adlab::ir {
extern template class Interpreter<mp50>;
}  // namespace adlab::ir
