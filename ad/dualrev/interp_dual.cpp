// Instantiation of the reference interpreter for dualrev::Dual, with the scalar math it calls.
#include "ad/dualrev/interp_dual.h"

#include "ir/interp/scalar.h"

// ir::math's generic forms call boost for non-builtin types (log1p, expm1, lgamma) or compose
// three operations (sigmoid); a Dual records one node with its own partial instead.
namespace adlab::ir::math {
using ad::dualrev::Dual;
template <>
Dual log1p<Dual>(const Dual& x) {
  return ad::dualrev::log1p(x);
}
template <>
Dual expm1<Dual>(const Dual& x) {
  return ad::dualrev::expm1(x);
}
template <>
Dual lgamma<Dual>(const Dual& x) {
  return ad::dualrev::lgamma(x);
}
template <>
Dual sigmoid<Dual>(const Dual& x) {
  return ad::dualrev::sigmoid(x);
}
}  // namespace adlab::ir::math

#include "ir/interp/interpreter_impl.h"

namespace adlab::ir {
template class Interpreter<ad::dualrev::Dual>;
template Value<ad::dualrev::Dual> value_from_tensor(const BasicTensor<ad::dualrev::Dual>&);
}  // namespace adlab::ir
