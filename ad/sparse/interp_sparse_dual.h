// The reference interpreter instantiated with SparseDual: running an IR program on SparseDual
// inputs evaluates <e, D_tau[[e]]> for every node (paper 004 Fig. 6 as a non-standard semantics).
#pragma once

#include "ad/sparse/sparse_dual.h"
#include "ir/interp/interpreter.h"

namespace adlab::ir {
extern template class Interpreter<ad::sparse::SparseDual>;
}  // namespace adlab::ir
