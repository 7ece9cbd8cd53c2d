// The AD strategy interface and registry (DESIGN 3): a new strategy is one folder plus one
// registration.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "backends/backend.h"
#include "ir/error.h"
#include "ir/function.h"

namespace adlab::ad {

// Derivative modes and their calling conventions (DESIGN 2.3):
//   vjp      (params..., cotangents of results...) -> (results..., cotangents of wrt...)
//   jvp      (params..., tangents of wrt...)       -> (results..., tangents of results...)
//   gradient vjp with cotangent 1 on a scalar result: (params...) -> (result, gradients of wrt...)
//   jacobian (params...) -> (results..., f64[outputs..., inputs...] per (result, wrt) pair)
//   hvp      jvp of the gradient
enum class Mode { Gradient, Vjp, Jvp, Jacobian, Hvp };
const char* mode_name(Mode m);
Mode parse_mode(std::string_view s);  // throws adlab::Error

struct Request {
  std::vector<std::string> wrt;  // parameter names; empty: every floating parameter
  Mode mode = Mode::Gradient;
  std::string variant;  // "" = the strategy's default (`dualrev/naive` -> "naive")
  // Tangents carried per scalar by vector forward mode (`fwdvec --width k`); 0: the strategy's
  // default. Only a strategy whose capabilities say `width` takes one (`adlab grad --width`
  // for another is an error).
  std::size_t width = 0;
};

struct Capabilities {
  std::vector<Mode> modes;
  std::vector<std::string> variants;  // the first is the default
  bool sparse_inputs = false;         // @csr / @coo parameters
  bool loops = false;                 // `loop` and `scan`
  bool parallel = false;              // parallel evaluation of gen/sum
  bool emits_ir = false;              // derivatives are ir::Functions (source transformation)
  bool reverse = false;               // reverse mode: its cheap-gradient ratio is measured
  bool width = false;                 // takes Request::width (tangents per scalar)
  // Claims the manifests' cheap-gradient bound (`cost_bound`, paper 000 Thm 6.35): a ratio over it
  // FAILs the cell. A reverse strategy that does not claim it has the excess reported, not failed.
  bool cheap_gradient = false;
  double accuracy = 0;  // declared relative accuracy (0: exact up to rounding, i.e. AD)
  bool supports(Mode m) const;
};

// A construct a strategy does not handle: reported as UNSUPPORTED with the construct and its
// position, never as a wrong derivative.
class Unsupported : public Error {
 public:
  using Error::Error;
};

// A variant's declared work budget, exceeded while running (dualrev/naive's backpropagator
// calls: stage 1 is exponential in sharing). The one decline a running derivative may make: the
// checker reports it as UNSUPPORTED with its reason, where any other failure at run time is an
// ERROR (decisions 186, 246).
class OverBudget : public Unsupported {
 public:
  using Unsupported::Unsupported;
};

// An engine as Derivative::executable returns it. Engines compute in double and type their outputs
// like the parameters and results: an f32 output is rounded to f32 values (DESIGN 2.3: IEEE-754
// in the element type), as a compiled derivative's is (decision 177).
class EngineExecutable : public backends::Executable {
 public:
  explicit EngineExecutable(std::unique_ptr<backends::Executable> engine)
      : engine_(std::move(engine)) {}
  std::vector<ir::Tensor> run(const std::vector<ir::Tensor>& inputs) override {
    auto out = engine_->run(inputs);
    round(out);
    return out;
  }
  void run_into(const std::vector<ir::Tensor>& inputs, std::vector<ir::Tensor>& outputs) override {
    engine_->run_into(inputs, outputs);
    round(outputs);
  }
  const ir::OpCounts* counts() const override { return engine_->counts(); }
  const backends::Executable& engine() const { return *engine_; }
  // The engine inside `e` when it is an EngineExecutable, else `e`.
  static const backends::Executable& unwrap(const backends::Executable& e);

 private:
  static void round(std::vector<ir::Tensor>& out);
  std::unique_ptr<backends::Executable> engine_;
};

// The result of differentiation: an ir::Function that any backend runs (source transformation),
// or an executable engine (e.g. a tape) following the same calling convention.
struct Derivative {
  ir::FunctionPtr function;
  // An engine is told the backend it is asked to run on; one that cannot run there throws
  // backends::Unsupported (the cell is UNSUPPORTED), never runs elsewhere under its name.
  std::function<std::unique_ptr<backends::Executable>(const std::string& backend,
                                                      const backends::Options&)>
      make_engine;
  std::string notes;  // what the strategy did, for --trace

  bool is_function() const { return function != nullptr; }
  // Runs on `backend`: a function is compiled by it, an engine is built for it.
  std::unique_ptr<backends::Executable> executable(const std::string& backend,
                                                   const backends::Options& o) const;
};

// The positions of the parameters a request differentiates by: those named in `wrt`, or every
// floating non-tuple parameter when `wrt` is empty (the calling conventions above).
std::vector<std::size_t> wrt_parameters(const ir::Function& f, const std::vector<std::string>& wrt);

// The `wrt` names of a request: each must name a parameter (adlab::Error) that is floating
// (adlab::Error) and not a tuple (Unsupported by `strategy`).
void check_wrt_names(const ir::Function& f, const std::vector<std::string>& wrt,
                     std::string_view strategy);

// Gradient mode needs one floating scalar result: Unsupported by `strategy` at f's position
// otherwise (dualrev and sparse found out when running, with no position; decision 222).
void check_gradient_result(const ir::Function& f, Mode mode, std::string_view strategy);

// The shape of the Jacobian block of `result` by `param` (DESIGN 2.3, decision 74): the result's
// dimensions then the parameter's, a sparse tensor contributing one dimension of its stored
// entries.
template <class R, class P>
std::vector<std::int64_t> jacobian_block_shape(const ir::BasicTensor<R>& result,
                                               const ir::BasicTensor<P>& param) {
  std::vector<std::int64_t> shape;
  auto dims = [&shape](const auto& t) {
    if (t.storage == ir::Storage::Dense)
      shape.insert(shape.end(), t.shape.begin(), t.shape.end());
    else
      shape.push_back(t.nnz());
  };
  dims(result);
  dims(param);
  return shape;
}

// Unsupported at the first `f32(x)` of a floating x in f or its callees: a strategy that runs the
// interpreter on its own scalar type (dual numbers, sparse tangents) would drop x's derivative
// there; `consequence` says what would be lost.
void reject_f32_rounding(const ir::Function& f, std::string_view strategy,
                         std::string_view consequence);

class Strategy {
 public:
  virtual ~Strategy() = default;
  virtual std::string_view name() const = 0;
  virtual std::string_view paper() const = 0;  // e.g. "000"
  virtual Capabilities capabilities() const = 0;
  // Throws Unsupported for constructs it does not handle, adlab::Error for bad requests.
  virtual Derivative differentiate(const ir::FunctionPtr& f, const Request& r) const = 0;
};

// Strategies by name; `strategy/variant` selects a variant.
class StrategyRegistry {
 public:
  static StrategyRegistry& instance();
  void add(std::unique_ptr<Strategy> s);
  const Strategy* find(std::string_view name) const;
  // Resolves "name" or "name/variant" into the strategy and the variant (throws adlab::Error).
  std::pair<const Strategy*, std::string> resolve(std::string_view spec) const;
  std::vector<std::string> names() const;

 private:
  std::vector<std::unique_ptr<Strategy>> strategies_;
};

}  // namespace adlab::ad
