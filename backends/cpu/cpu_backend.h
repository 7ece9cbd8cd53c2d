// The `cpu` backend: IR -> C++ -> shared object, loaded with dlopen (DESIGN 5).
#pragma once

#include <memory>

#include "backends/backend.h"
#include "backends/cpu/compiler.h"

namespace adlab::backends {

std::unique_ptr<Backend> make_cpu_backend();

namespace cpu {

// A function compiled for a caller's scalar type T (issue 10 item 4: dualrev's dual numbers run
// generated code). The double tensors give shapes, sizes and integer entries and are checked as
// by the backend; the floating entries travel as T.
class TypedExecutable {
 public:
  virtual ~TypedExecutable() = default;
  // scalars[k]: the T entries of floating parameter k (stored entries, in the tensor's order;
  // nullptr for the others). results: every result, floating ones converted to double; typed[k]:
  // the T entries of floating result k as bytes (empty for integer results).
  virtual void run_typed(const std::vector<ir::Tensor>& inputs,
                         const std::vector<const void*>& scalars, std::vector<ir::Tensor>& results,
                         std::vector<std::vector<unsigned char>>& typed) = 0;
};

// Generates f's unit, builds it with `type` and checks that its T is scalar_bytes wide.
std::unique_ptr<TypedExecutable> compile_typed(const ir::FunctionPtr& f, const ScalarType& type,
                                               std::size_t scalar_bytes, const Options& o);

}  // namespace cpu

}  // namespace adlab::backends
