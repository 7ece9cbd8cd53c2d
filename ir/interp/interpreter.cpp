// Instantiations of the reference interpreter for float and double.
#include "ir/interp/interpreter_impl.h"

namespace adlab::ir {
template class Interpreter<float>;
template class Interpreter<double>;
template Value<float> value_from_tensor(const BasicTensor<float>&);
template Value<double> value_from_tensor(const BasicTensor<double>&);
}  // namespace adlab::ir
