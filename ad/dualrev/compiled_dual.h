// dualrev on the cpu backend (issue 10 item 4, issue 6 item 1): the generated unit of a function
// instantiated with T = Dual, so that compiled code records the tape Interpreter<Dual> records.
#pragma once

#include <memory>
#include <vector>

#include "ad/dualrev/dual.h"
#include "backends/backend.h"
#include "ir/tensor/tensor.h"

namespace adlab::backends::cpu {
class TypedExecutable;
}

namespace adlab::ad::dualrev {

class CompiledDual {
 public:
  // Generates and builds f's unit with T = Dual (cached on disk like every cpu unit; the
  // dualrev headers' text is part of the key). Throws backends::Unsupported for constructs the
  // cpu backend does not translate.
  CompiledDual(ir::FunctionPtr f, const backends::Options& o);
  ~CompiledDual();
  CompiledDual(const CompiledDual&) = delete;
  CompiledDual& operator=(const CompiledDual&) = delete;

  // Runs the unit on this thread's job: `inputs` are f's arguments (shapes, sizes, integers),
  // `args` the same arguments as dual numbers (the wrt entries are leaves). Returns the results
  // as dual numbers whose IDs are nodes the unit recorded.
  std::vector<ir::BasicTensor<Dual>> run(const std::vector<ir::Tensor>& inputs,
                                         const std::vector<ir::BasicTensor<Dual>>& args);

 private:
  ir::FunctionPtr f_;
  std::unique_ptr<backends::cpu::TypedExecutable> exe_;
};

}  // namespace adlab::ad::dualrev
