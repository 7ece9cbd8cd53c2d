// The reference interpreter instantiated with Dual (docs/adding-a-strategy.md, step 2).
#include "examples/dualfwd/interp_dual.h"

#include "ir/interp/interpreter_impl.h"

namespace adlab::ir {
template class Interpreter<examples::dualfwd::Dual>;
template Value<examples::dualfwd::Dual> value_from_tensor(
    const BasicTensor<examples::dualfwd::Dual>&);
}  // namespace adlab::ir
