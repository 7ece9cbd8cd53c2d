// Instantiation of the reference interpreter for sparse::SparseDual, with the scalar math it calls.
#include "ad/sparse/interp_sparse_dual.h"

#include "ir/interp/scalar.h"

// ir::math's generic forms call boost for non-builtin types (log1p, expm1, lgamma) or compose
// three operations (sigmoid); a SparseDual applies its own derivative instead.
namespace adlab::ir::math {
using ad::sparse::SparseDual;
template <>
SparseDual log1p<SparseDual>(const SparseDual& x) {
  return ad::sparse::log1p(x);
}
template <>
SparseDual expm1<SparseDual>(const SparseDual& x) {
  return ad::sparse::expm1(x);
}
template <>
SparseDual lgamma<SparseDual>(const SparseDual& x) {
  return ad::sparse::lgamma(x);
}
template <>
SparseDual sigmoid<SparseDual>(const SparseDual& x) {
  return ad::sparse::sigmoid(x);
}
}  // namespace adlab::ir::math

#include "ir/interp/interpreter_impl.h"

namespace adlab::ir {
template class Interpreter<ad::sparse::SparseDual>;
template Value<ad::sparse::SparseDual> value_from_tensor(
    const BasicTensor<ad::sparse::SparseDual>&);
}  // namespace adlab::ir
