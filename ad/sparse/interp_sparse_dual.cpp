// Instantiation of the reference interpreter for sparse::SparseDual (its log1p, expm1, lgamma
// and sigmoid apply their own derivatives: ir::math finds them, scalar_hooks).
#include "ad/sparse/interp_sparse_dual.h"

#include "ir/interp/interpreter_impl.h"

namespace adlab::ir {
template class Interpreter<ad::sparse::SparseDual>;
template Value<ad::sparse::SparseDual> value_from_tensor(
    const BasicTensor<ad::sparse::SparseDual>&);
}  // namespace adlab::ir
