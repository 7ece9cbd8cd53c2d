// The reference interpreter instantiated with Dual (docs/adding-a-strategy.md, step 2).
#include "examples/dualfwd/interp_dual.h"

#include "ir/interp/scalar.h"

// ir::math's generic forms call boost for scalar types other than float and double (log1p,
// expm1, lgamma) or compose three operations (sigmoid): a Dual applies its own rule instead.
namespace adlab::ir::math {
using examples::dualfwd::Dual;
template <>
Dual log1p<Dual>(const Dual& x) {
  return examples::dualfwd::log1p(x);
}
template <>
Dual expm1<Dual>(const Dual& x) {
  return examples::dualfwd::expm1(x);
}
template <>
Dual lgamma<Dual>(const Dual& x) {
  return examples::dualfwd::lgamma(x);
}
template <>
Dual sigmoid<Dual>(const Dual& x) {
  return examples::dualfwd::sigmoid(x);
}
}  // namespace adlab::ir::math

#include "ir/interp/interpreter_impl.h"

namespace adlab::ir {
template class Interpreter<examples::dualfwd::Dual>;
template Value<examples::dualfwd::Dual> value_from_tensor(
    const BasicTensor<examples::dualfwd::Dual>&);
}  // namespace adlab::ir
