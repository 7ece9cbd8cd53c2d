// Instantiation of the reference interpreter for 50-digit multiprecision numbers.
#include "ir/interp/interpreter_mp.h"

#include "ir/interp/interpreter_impl.h"

namespace adlab::ir {
template class Interpreter<mp50>;
template Value<mp50> value_from_tensor(const BasicTensor<mp50>&);
}  // namespace adlab::ir
