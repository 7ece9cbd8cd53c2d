// The `interp` backend: runs functions on the reference interpreter in float, double or mp50.
#include "backends/interp/interp_backend.h"

#include "ir/interp/interpreter_mp.h"
#include "ir/tensor/tensor_ops.h"

namespace adlab::backends {

namespace {

template <class T>
class InterpExecutable : public Executable {
 public:
  InterpExecutable(ir::FunctionPtr f, const Options& o)
      : f_(std::move(f)), interp_(ir::EvalOptions{o.sizes, o.count_ops, false}) {}

  std::vector<ir::Tensor> run(const std::vector<ir::Tensor>& inputs) override {
    std::vector<ir::BasicTensor<T>> in;
    in.reserve(inputs.size());
    for (const auto& t : inputs) in.push_back(ir::convert_scalar<T>(t));
    auto out = interp_.run_tensors(*f_, in);
    std::vector<ir::Tensor> result;
    for (const auto& t : out) result.push_back(ir::convert_scalar<double>(t));
    return result;
  }
  const ir::OpCounts* counts() const override { return &interp_.counts(); }

 private:
  ir::FunctionPtr f_;
  ir::Interpreter<T> interp_;
};

class InterpBackend : public Backend {
 public:
  std::string_view name() const override { return "interp"; }
  std::string description() const override {
    return "reference interpreter (the semantics; float, double or mp50)";
  }
  std::unique_ptr<Executable> compile(const ir::FunctionPtr& f, const Options& o) override {
    if (o.scalar_type == "double") return std::make_unique<InterpExecutable<double>>(f, o);
    if (o.scalar_type == "float") return std::make_unique<InterpExecutable<float>>(f, o);
    if (o.scalar_type == "mp50") return std::make_unique<InterpExecutable<ir::mp50>>(f, o);
    throw Error("backend interp: unknown scalar type `" + o.scalar_type +
                "` (double, float, mp50)");
  }
};

}  // namespace

std::unique_ptr<Backend> make_interp_backend() {
  return std::make_unique<InterpBackend>();
}

}  // namespace adlab::backends
