// The `dualfwd` strategy and its engine (docs/adding-a-strategy.md, steps 3 and 4).
#include "examples/dualfwd/dualfwd_strategy.h"

#include <functional>
#include <string>
#include <vector>

#include "examples/dualfwd/interp_dual.h"
#include "ir/context.h"
#include "ir/tensor/tensor_ops.h"

namespace adlab::examples::dualfwd {

namespace {

using ad::Mode;
using DualTensors = std::vector<ir::BasicTensor<Dual>>;

// The engine: follows the calling conventions of ad/strategy.h for each mode.
class DualForwardEngine : public backends::Executable {
 public:
  DualForwardEngine(ir::FunctionPtr f, ad::Request r, const backends::Options& o)
      : f_(std::move(f)), req_(std::move(r)), wrt_(ad::wrt_parameters(*f_, req_.wrt)) {
    options_.sizes = o.sizes;
    options_.count_ops = false;  // counts() offers none: see docs/adding-a-strategy.md
  }

  std::vector<ir::Tensor> run(const std::vector<ir::Tensor>& inputs) override {
    const std::size_t np = f_->params.size();
    if (inputs.size() < np)
      throw Error("dualfwd: `" + f_->name + "` takes " + std::to_string(np) + " inputs, given " +
                  std::to_string(inputs.size()));
    const std::vector<ir::Tensor> params(inputs.begin(),
                                         inputs.begin() + static_cast<std::ptrdiff_t>(np));
    const std::vector<ir::Tensor> extra(inputs.begin() + static_cast<std::ptrdiff_t>(np),
                                        inputs.end());
    if (req_.mode == Mode::Jvp) return jvp(params, extra);
    if (req_.mode != Mode::Vjp && !extra.empty())
      throw Error("dualfwd: " + std::string(ad::mode_name(req_.mode)) + " takes the " +
                  std::to_string(np) + " parameters of `" + f_->name + "` only, given " +
                  std::to_string(inputs.size()) + " inputs");
    // gradient, vjp and jacobian: column k of J from a run seeded with the k-th one-hot direction
    std::vector<DualTensors> columns;
    for (std::size_t w = 0; w < wrt_.size(); ++w)
      for (std::size_t p = 0; p < params[wrt_[w]].values.size(); ++p)
        columns.push_back(pass(params, [&](std::size_t w2, std::size_t p2) {
          return w2 == w && p2 == p ? 1.0 : 0.0;
        }));
    const DualTensors results =
        columns.empty() ? pass(params, [](std::size_t, std::size_t) { return 0.0; }) : columns[0];
    std::vector<ir::Tensor> out = values(results);
    switch (req_.mode) {
      case Mode::Gradient: {  // (params...) -> (result, gradients of wrt...)
        std::size_t k = 0;
        for (std::size_t w = 0; w < wrt_.size(); ++w) {
          ir::Tensor g = params[wrt_[w]];  // same shape and stored pattern as the parameter
          for (auto& v : g.values) v = columns[k++][0].values[0].tangent();
          out.push_back(std::move(g));
        }
        break;
      }
      case Mode::Vjp: {  // (params..., cotangents of results...) -> (results..., cotangents of
                         // wrt...)
        if (extra.size() != results.size())
          throw Error("dualfwd: vjp takes one cotangent per result (" +
                      std::to_string(results.size()) + "), given " + std::to_string(extra.size()));
        for (std::size_t r = 0; r < results.size(); ++r)  // checked before any is used
          if (extra[r].shape != results[r].shape ||
              extra[r].values.size() != results[r].values.size())
            throw Error("dualfwd: the cotangent of result " + std::to_string(r) + " has " +
                        std::to_string(extra[r].values.size()) + " floating entries of shape " +
                        ir::shape_str(extra[r].shape) + ", the result " +
                        std::to_string(results[r].values.size()) + " of shape " +
                        ir::shape_str(results[r].shape));
        std::size_t k = 0;
        for (std::size_t w = 0; w < wrt_.size(); ++w) {
          ir::Tensor g = params[wrt_[w]];
          for (auto& v : g.values) {
            v = 0;
            for (std::size_t r = 0; r < results.size(); ++r) {
              if (!ir::is_float(results[r].elem)) continue;  // an integer result has no cotangent
              for (std::size_t i = 0; i < results[r].values.size(); ++i)
                v += extra[r].values[i] * columns[k][r].values[i].tangent();
            }
            ++k;
          }
          out.push_back(std::move(g));
        }
        break;
      }
      case Mode::Jacobian: {  // one f64[result dims..., parameter dims...] per (result, wrt)
        for (std::size_t r = 0; r < results.size(); ++r) {
          if (!ir::is_float(results[r].elem)) continue;  // floating results' blocks only
          std::size_t first = 0;
          for (std::size_t w = 0; w < wrt_.size(); ++w) {
            const std::size_t n_in = params[wrt_[w]].values.size();
            const std::size_t n_out = results[r].values.size();
            ir::Tensor block;
            block.shape = ad::jacobian_block_shape(results[r], params[wrt_[w]]);
            block.values.assign(n_out * n_in, 0.0);
            for (std::size_t i = 0; i < n_out; ++i)
              for (std::size_t j = 0; j < n_in; ++j)
                block.values[i * n_in + j] = columns[first + j][r].values[i].tangent();
            out.push_back(std::move(block));
            first += n_in;
          }
        }
        break;
      }
      default:
        throw ad::Unsupported(std::string("dualfwd does not offer mode ") +
                              ad::mode_name(req_.mode));
    }
    return out;
  }

  // No operation counts: the checker then skips this engine's cost sweep (a forward strategy
  // claims no cheap-gradient bound).
  const ir::OpCounts* counts() const override { return nullptr; }

 private:
  // (params..., tangents of wrt...) -> (results..., tangents of the floating results...)
  std::vector<ir::Tensor> jvp(const std::vector<ir::Tensor>& params,
                              const std::vector<ir::Tensor>& tangents) {
    if (tangents.size() != wrt_.size())
      throw Error("dualfwd: jvp takes one tangent per differentiated parameter (" +
                  std::to_string(wrt_.size()) + "), given " + std::to_string(tangents.size()));
    for (std::size_t w = 0; w < wrt_.size(); ++w)
      if (tangents[w].values.size() != params[wrt_[w]].values.size())
        throw Error("dualfwd: the tangent of `" + ir::var_name(f_->params[wrt_[w]]) + "` has " +
                    std::to_string(tangents[w].values.size()) + " entries, the parameter " +
                    std::to_string(params[wrt_[w]].values.size()));
    const DualTensors y =
        pass(params, [&](std::size_t w, std::size_t p) { return tangents[w].values[p]; });
    std::vector<ir::Tensor> out = values(y);
    for (const auto& t : y) {
      if (!ir::is_float(t.elem)) continue;
      ir::Tensor d = ir::with_layout_of<double>(t);
      for (const Dual& v : t.values) d.values.push_back(v.tangent());
      out.push_back(std::move(d));
    }
    return out;
  }

  // One run of f on Duals: stored entry p of wrt parameter w gets the tangent seed(w, p), every
  // other parameter is a constant.
  DualTensors pass(const std::vector<ir::Tensor>& params,
                   const std::function<double(std::size_t, std::size_t)>& seed) {
    DualTensors args;
    for (std::size_t k = 0; k < params.size(); ++k) {
      ir::BasicTensor<Dual> a = ir::with_layout_of<Dual>(params[k]);
      const auto w =
          static_cast<std::size_t>(std::find(wrt_.begin(), wrt_.end(), k) - wrt_.begin());
      for (std::size_t p = 0; p < params[k].values.size(); ++p)
        a.values.emplace_back(params[k].values[p], w < wrt_.size() ? seed(w, p) : 0.0);
      args.push_back(std::move(a));
    }
    ir::Interpreter<Dual> interp(options_);
    return interp.run_tensors(*f_, args);
  }

  static std::vector<ir::Tensor> values(const DualTensors& y) {
    std::vector<ir::Tensor> out;
    for (const auto& t : y) {
      ir::Tensor v = ir::with_layout_of<double>(t);
      for (const Dual& d : t.values) v.values.push_back(d.value());
      out.push_back(std::move(v));
    }
    return out;
  }

  ir::FunctionPtr f_;
  ad::Request req_;
  std::vector<std::size_t> wrt_;
  ir::EvalOptions options_;
};

class DualForwardStrategy : public ad::Strategy {
 public:
  std::string_view name() const override { return "dualfwd"; }
  std::string_view paper() const override { return "example"; }
  ad::Capabilities capabilities() const override {
    ad::Capabilities c;
    c.modes = {Mode::Gradient, Mode::Vjp, Mode::Jvp, Mode::Jacobian};
    // What it handles, for readers and reports; nothing reads these to decline for it
    c.sparse_inputs = true;  // a sparse parameter's stored entries are its coordinates
    c.loops = true;          // the interpreter runs every construct
    return c;
  }
  ad::Derivative differentiate(const ir::FunctionPtr& f, const ad::Request& r) const override {
    ir::FunctionPositions cite_in(f->pos);  // errors cite f's own lines (decision 218)
    if (!capabilities().supports(r.mode))
      throw ad::Unsupported(f->pos, std::string("dualfwd does not offer mode ") +
                                        ad::mode_name(r.mode) + " (gradient, vjp, jvp, jacobian)");
    ad::check_wrt_names(*f, r.wrt, "dualfwd");
    ad::check_gradient_result(*f, r.mode, "dualfwd");
    // f32(x) rounds a Dual to a plain value: the tangent would be lost without a word
    ad::reject_f32_rounding(*f, "dualfwd", "its tangent would be dropped");
    ad::Derivative d;
    d.notes = "dualfwd (example): the interpreter on dual numbers, one run per direction\n";
    d.make_engine = [f, r](const std::string& backend,
                           const backends::Options& o) -> std::unique_ptr<backends::Executable> {
      if (backend != "interp")
        throw backends::Unsupported(
            f->pos, "dualfwd runs on the interpreter only, not on `" + backend + "`");
      return std::make_unique<DualForwardEngine>(f, r, o);
    };
    return d;
  }
};

}  // namespace

std::unique_ptr<ad::Strategy> make_dualfwd_strategy() {
  return std::make_unique<DualForwardStrategy>();
}

}  // namespace adlab::examples::dualfwd
