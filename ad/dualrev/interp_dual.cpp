// Instantiation of the reference interpreter for dualrev::Dual (its log1p, expm1, lgamma and
// sigmoid record one node each: ir::math finds them, scalar_hooks).
#include "ad/dualrev/interp_dual.h"

#include "ir/interp/interpreter_impl.h"

namespace adlab::ir {
template class Interpreter<ad::dualrev::Dual>;
template Value<ad::dualrev::Dual> value_from_tensor(const BasicTensor<ad::dualrev::Dual>&);
}  // namespace adlab::ir
