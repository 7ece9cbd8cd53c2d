// The sparse strategy's engine (paper 004 Fig. 6-7 run by Interpreter<SparseDual>).
#include "ad/sparse/tangent_engine.h"

#include <algorithm>

#include "ad/sparse/interp_sparse_dual.h"
#include "ir/tensor/tensor_ops.h"

namespace adlab::ad::sparse {

namespace {

// Dense Jacobian blocks beyond this many entries (2 GiB of f64) are refused: use `sparse/coo`.
constexpr std::int64_t kDenseJacobianLimit = std::int64_t{1} << 28;

ir::Tensor primal(const ir::BasicTensor<SparseDual>& y) {
  ir::Tensor t = ir::with_layout_of<double>(y);
  t.values.reserve(y.values.size());
  for (const SparseDual& d : y.values) t.values.push_back(d.value());
  return t;
}

// The block of tau that belongs to wrt parameter w: [lo, hi).
std::pair<std::int64_t, std::int64_t> block(const TauLayout& tau, std::size_t w) {
  return {tau.offsets[w], tau.offsets[w + 1]};
}

class TangentEngine : public backends::Executable {
 public:
  TangentEngine(ir::FunctionPtr f, Request r, JacobianLayout layout, const backends::Options& o)
      : f_(std::move(f)), req_(std::move(r)), layout_(layout) {
    options_.sizes = o.sizes;
    options_.count_ops = o.count_ops;
    wrt_ = wrt_parameters(*f_, req_.wrt);
  }

  std::vector<ir::Tensor> run(const std::vector<ir::Tensor>& inputs) override {
    const std::size_t np = f_->params.size();
    if (inputs.size() < np)
      throw Error("sparse: `" + f_->name + "` takes " + std::to_string(np) + " inputs, given " +
                  std::to_string(inputs.size()));
    // The parameters are the inputs themselves unless cotangents or tangents follow them (no
    // copy of a large sparse matrix for gradient and jacobian).
    std::vector<ir::Tensor> params_only;
    if (inputs.size() > np)
      params_only.assign(inputs.begin(), inputs.begin() + static_cast<std::ptrdiff_t>(np));
    const std::vector<ir::Tensor>& params = inputs.size() > np ? params_only : inputs;
    std::vector<ir::Tensor> extra(inputs.begin() + static_cast<std::ptrdiff_t>(np), inputs.end());
    TangentPass pass = tangent_pass(*f_, params, wrt_, options_);
    std::vector<ir::Tensor> out;
    for (const auto& y : pass.results) out.push_back(primal(y));
    const TauLayout& tau = pass.tau;
    switch (req_.mode) {
      case Mode::Gradient: {
        if (pass.results.size() != 1 || pass.results[0].rank() != 0 ||
            !ir::is_float(pass.results[0].elem))
          throw Error("sparse: gradient mode needs one scalar floating result");
        gradients_into(out, params, tau, pass.results[0].values[0]);
        break;
      }
      case Mode::Vjp: {
        if (extra.size() != pass.results.size())
          throw Error("sparse: vjp takes one cotangent per result (" +
                      std::to_string(pass.results.size()) + "), given " +
                      std::to_string(extra.size()));
        std::vector<std::vector<double>> g(wrt_.size());
        for (std::size_t w = 0; w < wrt_.size(); ++w)
          g[w].assign(params[wrt_[w]].values.size(), 0.0);
        for (std::size_t r = 0; r < pass.results.size(); ++r) {
          const auto& y = pass.results[r];
          if (!ir::is_float(y.elem)) continue;
          if (extra[r].values.size() != y.values.size())
            throw Error("sparse: the cotangent of result " + std::to_string(r) + " has " +
                        std::to_string(extra[r].values.size()) + " entries, the result " +
                        std::to_string(y.values.size()));
          for (std::size_t i = 0; i < y.values.size(); ++i)
            accumulate(g, tau, y.values[i], extra[r].values[i]);
        }
        for (std::size_t w = 0; w < wrt_.size(); ++w) {
          ir::Tensor z = params[wrt_[w]];
          z.values = std::move(g[w]);
          out.push_back(std::move(z));
        }
        break;
      }
      case Mode::Jvp: {
        if (extra.size() != wrt_.size())
          throw Error("sparse: jvp takes one tangent per differentiated parameter (" +
                      std::to_string(wrt_.size()) + "), given " + std::to_string(extra.size()));
        std::vector<double> dir;  // the direction in tau's coordinates
        for (std::size_t w = 0; w < wrt_.size(); ++w) {
          if (extra[w].values.size() != params[wrt_[w]].values.size())
            throw Error("sparse: the tangent of `" + ir::var_name(f_->params[wrt_[w]]) + "` has " +
                        std::to_string(extra[w].values.size()) + " entries, the parameter " +
                        std::to_string(params[wrt_[w]].values.size()));
          dir.insert(dir.end(), extra[w].values.begin(), extra[w].values.end());
        }
        for (const auto& y : pass.results) {
          ir::Tensor t = primal(y);
          for (std::size_t i = 0; i < y.values.size(); ++i) {
            double s = 0;
            for (const auto& e : y.values[i].tangent())
              s += e.value * dir[static_cast<std::size_t>(e.coord)];
            t.values[i] = s;
          }
          out.push_back(std::move(t));
        }
        break;
      }
      case Mode::Jacobian: {
        for (const auto& y : pass.results) {
          if (!ir::is_float(y.elem)) continue;
          for (std::size_t w = 0; w < wrt_.size(); ++w)
            out.push_back(jacobian_block(y, params[wrt_[w]], tau, w));
        }
        break;
      }
      default:
        throw Unsupported(std::string("sparse does not offer mode ") + mode_name(req_.mode));
    }
    counts_ = pass.total();
    return out;
  }

  const ir::OpCounts* counts() const override { return &counts_; }

 private:
  // Adds scale * D[y] into the per-parameter gradients g.
  void accumulate(std::vector<std::vector<double>>& g, const TauLayout& tau, const SparseDual& y,
                  double scale) const {
    if (scale == 0) return;
    std::size_t w = 0;
    for (const auto& e : y.tangent()) {
      while (e.coord >= tau.offsets[w + 1]) ++w;
      g[w][static_cast<std::size_t>(e.coord - tau.offsets[w])] += scale * e.value;
    }
  }

  // The gradient of a scalar result y: D[y] split into the wrt parameters' blocks.
  void gradients_into(std::vector<ir::Tensor>& out, const std::vector<ir::Tensor>& params,
                      const TauLayout& tau, const SparseDual& y) const {
    std::vector<std::vector<double>> g(wrt_.size());
    for (std::size_t w = 0; w < wrt_.size(); ++w) g[w].assign(params[wrt_[w]].values.size(), 0.0);
    accumulate(g, tau, y, 1.0);
    for (std::size_t w = 0; w < wrt_.size(); ++w) {
      ir::Tensor z = params[wrt_[w]];  // restricted to the parameter's stored pattern
      z.values = std::move(g[w]);
      out.push_back(std::move(z));
    }
  }

  // The block f64[y's dims..., x's dims...] (DESIGN 2.3), dense or as its stored entries.
  ir::Tensor jacobian_block(const ir::BasicTensor<SparseDual>& y, const ir::Tensor& x,
                            const TauLayout& tau, std::size_t w) const {
    auto [lo, hi] = block(tau, w);
    const auto n_out = static_cast<std::int64_t>(y.values.size());
    const std::int64_t n_in = hi - lo;
    ir::Tensor b;
    b.shape = jacobian_block_shape(y, x);
    if (layout_ == JacobianLayout::Dense || b.shape.empty()) {  // a scalar by a scalar: no keys
      if (n_out * n_in > kDenseJacobianLimit)
        throw Error("sparse: a dense Jacobian block of " + std::to_string(n_out) + " x " +
                    std::to_string(n_in) +
                    " entries is too large; the variant `sparse/coo` returns its stored entries");
      b.values.assign(static_cast<std::size_t>(n_out * n_in), 0.0);
      for (std::int64_t i = 0; i < n_out; ++i)
        for (const auto& e : y.values[static_cast<std::size_t>(i)].tangent())
          if (e.coord >= lo && e.coord < hi)
            b.values[static_cast<std::size_t>(i * n_in + e.coord - lo)] = e.value;
      return b;
    }
    b.storage = ir::Storage::Coo;  // the stored entries of D_tau[[y]], never densified
    // A flat position's coordinates along the dims of one side (row-major; a sparse side has
    // one dim, its stored entries), so that the keys stay sorted.
    const std::size_t out_rank = y.storage == ir::Storage::Dense ? y.shape.size() : 1;
    auto unravel = [&b](std::int64_t flat, std::size_t first, std::size_t rank) {
      const std::size_t at = b.coords.size();
      b.coords.resize(at + rank);
      for (std::size_t k = rank; k-- > 0;) {
        const std::int64_t dim = b.shape[first + k];
        b.coords[at + k] = flat % dim;
        flat /= dim;
      }
    };
    for (std::int64_t i = 0; i < n_out; ++i)
      for (const auto& e : y.values[static_cast<std::size_t>(i)].tangent())
        if (e.coord >= lo && e.coord < hi) {
          unravel(i, 0, out_rank);
          unravel(e.coord - lo, out_rank, b.shape.size() - out_rank);
          b.values.push_back(e.value);
        }
    return b;
  }

  ir::FunctionPtr f_;
  Request req_;
  JacobianLayout layout_;
  ir::EvalOptions options_;
  std::vector<std::size_t> wrt_;
  ir::OpCounts counts_;
};

}  // namespace

ir::OpCounts TangentPass::total() const {
  ir::OpCounts c = primal_counts;
  c.adds += tangent_counts.adds;
  c.muls += tangent_counts.muls;
  return c;
}

std::int64_t TangentPass::tangent_entries() const {
  std::int64_t n = 0;
  for (const auto& y : results)
    for (const auto& v : y.values) n += static_cast<std::int64_t>(v.tangent().size());
  return n;
}

TangentPass tangent_pass(const ir::Function& f, const std::vector<ir::Tensor>& inputs,
                         const std::vector<std::size_t>& wrt, const ir::EvalOptions& options) {
  if (inputs.size() != f.params.size())
    throw Error("sparse: `" + f.name + "` takes " + std::to_string(f.params.size()) +
                " inputs, given " + std::to_string(inputs.size()));
  TangentPass pass;
  pass.tau.params = wrt;
  pass.tau.offsets.push_back(0);
  for (std::size_t k : wrt)
    pass.tau.offsets.push_back(pass.tau.offsets.back() +
                               static_cast<std::int64_t>(inputs[k].values.size()));
  std::vector<ir::BasicTensor<SparseDual>> args;
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    const ir::Tensor& t = inputs[k];
    ir::BasicTensor<SparseDual> d = ir::with_layout_of<SparseDual>(t);
    d.values.reserve(t.values.size());
    auto w = std::find(wrt.begin(), wrt.end(), k);
    if (w == wrt.end()) {
      // ingrad v x = zero[D (x) tau]: every entry a constant
      for (double v : t.values) d.values.emplace_back(v);
    } else {
      // onehot[D] x: stored entry p of x gets the tau coordinate offset + p, coefficient 1
      std::int64_t base = pass.tau.offsets[static_cast<std::size_t>(w - wrt.begin())];
      for (std::size_t p = 0; p < t.values.size(); ++p)
        d.values.emplace_back(t.values[p],
                              TangentEntries{{base + static_cast<std::int64_t>(p), 1.0}});
    }
    args.push_back(std::move(d));
  }
  ir::Interpreter<SparseDual> interp(options);
  TangentCounts* before = tl_tangent_counts;
  tl_tangent_counts = options.count_ops ? &pass.tangent_counts : nullptr;
  try {
    pass.results = interp.run_tensors(f, args);
    for (const auto& y : pass.results)
      for (const auto& v : y.values) (void)v.tangent();  // pending merges are counted here
  } catch (...) {
    tl_tangent_counts = before;
    throw;
  }
  tl_tangent_counts = before;
  pass.primal_counts = interp.counts();
  return pass;
}

std::unique_ptr<backends::Executable> make_tangent_engine(ir::FunctionPtr f, const Request& r,
                                                          JacobianLayout layout,
                                                          const backends::Options& o) {
  return std::make_unique<TangentEngine>(std::move(f), r, layout, o);
}

}  // namespace adlab::ad::sparse
