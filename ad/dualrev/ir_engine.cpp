// The dualrev engine for IR programs (paper 003 section 9's Wrap, with sections 10.1-10.3).
#include "ad/dualrev/ir_engine.h"

#include <algorithm>
#include <unordered_set>

#include "ad/dualrev/interp_dual.h"
#include "ir/context.h"
#include "ir/syntax/printer.h"
#include "ir/visitor.h"

namespace adlab::ad::dualrev {

namespace {

void scan_conversions(const ir::Function& f, std::unordered_set<const ir::Function*>& seen) {
  if (!seen.insert(&f).second) return;
  std::unordered_set<const ir::ExprNode*> visited;
  std::vector<ir::Expr> work(f.results.begin(), f.results.end());
  for (const auto& s : f.stmts) work.push_back(s.value);
  while (!work.empty()) {
    ir::Expr e = work.back();
    work.pop_back();
    if (!visited.insert(e.get()).second) continue;
    if (auto* p = e.as<ir::Prim>())
      if (p->op == ir::PrimOp::ToF32 && ir::is_float(p->args[0]->type.elem))
        throw Unsupported(ir::pos_of(e, f.pos.source).valid() ? ir::pos_of(e, f.pos.source) : f.pos,
                          "dualrev: `" + ir::expr_str(e) +
                              "` rounds a floating value to f32; Interpreter<Dual> would drop its "
                              "derivative");
    if (auto* c = e.as<ir::Call>()) scan_conversions(*c->callee, seen);
    for (auto ch : ir::children(e)) work.push_back(ch);
  }
}

class IrEngine : public backends::Executable {
 public:
  IrEngine(ir::FunctionPtr f, Request r, Variant v, const backends::Options& o)
      : f_(std::move(f)),
        req_(std::move(r)),
        variant_(v),
        interp_(ir::EvalOptions{o.sizes, o.count_ops, false}),
        tape_(TapeOptions{1, v != Variant::Naive}) {
    opts_.count_ops = o.count_ops;
    opts_.call_limit = 100'000'000;  // naive: about a second, then a clear error
    for (std::size_t k = 0; k < f_->params.size(); ++k) {
      const auto& t = f_->params[k]->type;
      const std::string& name = ir::var_name(f_->params[k]);
      bool wanted = req_.wrt.empty()
                        ? (!t.is_tuple() && ir::is_float(t.elem))
                        : std::find(req_.wrt.begin(), req_.wrt.end(), name) != req_.wrt.end();
      if (wanted) wrt_.push_back(k);
    }
  }

  std::vector<ir::Tensor> run(const std::vector<ir::Tensor>& inputs) override {
    counts_ = ir::OpCounts{};
    stats_ = ResolveStats{};
    const std::size_t np = f_->params.size();
    if (inputs.size() < np)
      throw Error("dualrev: `" + f_->name + "` takes " + std::to_string(np) + " inputs, given " +
                  std::to_string(inputs.size()));
    // Interleave: the wrt entries become leaf nodes of the root job, in parameter order.
    std::vector<ir::BasicTensor<Dual>> args;
    std::vector<std::vector<NodeId>> in_ids(wrt_.size());
    std::vector<ir::BasicTensor<Dual>> outs;
    {
      Recording rec(tape_);
      for (std::size_t k = 0; k < np; ++k) {
        const ir::Tensor& t = inputs[k];
        ir::BasicTensor<Dual> d;
        d.elem = t.elem;
        d.storage = t.storage;
        d.shape = t.shape;
        d.ints = t.ints;
        d.row_ptr = t.row_ptr;
        d.col_idx = t.col_idx;
        d.coords = t.coords;
        auto w = std::find(wrt_.begin(), wrt_.end(), k);
        d.values.reserve(t.values.size());
        for (double v : t.values) {
          if (w == wrt_.end()) {
            d.values.emplace_back(v);
          } else {
            d.values.push_back(make_input(v));
            in_ids[static_cast<std::size_t>(w - wrt_.begin())].push_back(d.values.back().id());
          }
        }
        args.push_back(std::move(d));
      }
      outs = interp_.run_tensors(*f_, args);
    }
    if (const auto* c = &interp_.counts()) counts_ += *c;
    counts_.muls += tape_.partial_ops();  // partials: divisions, primitives, products (DESIGN 4.3)

    std::vector<ir::Tensor> out;
    for (const auto& y : outs) out.push_back(primal(y));
    auto wrt_like = [&](const std::vector<std::vector<double>>& g) {
      for (std::size_t w = 0; w < wrt_.size(); ++w) {
        ir::Tensor z = inputs[wrt_[w]];
        z.values = g[w];
        out.push_back(std::move(z));
      }
    };
    switch (req_.mode) {
      case Mode::Gradient: {
        if (outs.size() != 1 || outs[0].rank() != 0 || !ir::is_float(outs[0].elem))
          throw Error("dualrev: gradient mode needs one scalar floating result");
        tape_.clear_seeds();
        tape_.seed(outs[0].values[0].id(), 1.0);
        wrt_like(reverse(in_ids));
        break;
      }
      case Mode::Vjp: {
        std::vector<ir::Tensor> ybar(inputs.begin() + static_cast<std::ptrdiff_t>(np),
                                     inputs.end());
        if (ybar.size() != outs.size())
          throw Error("dualrev: vjp takes one cotangent per result (" +
                      std::to_string(outs.size()) + "), given " + std::to_string(ybar.size()));
        tape_.clear_seeds();
        for (std::size_t r = 0; r < outs.size(); ++r) {
          if (ybar[r].values.size() != outs[r].values.size())
            throw Error("dualrev: the cotangent of result " + std::to_string(r) + " has " +
                        std::to_string(ybar[r].values.size()) + " entries, the result " +
                        std::to_string(outs[r].values.size()));
          for (std::size_t v = 0; v < outs[r].values.size(); ++v)
            tape_.seed(outs[r].values[v].id(), ybar[r].values[v]);  // Deinterleave
        }
        wrt_like(reverse(in_ids));
        break;
      }
      case Mode::Jacobian: {
        // One reverse pass per output entry (paper 003 section 7: rotate_vec_by_quat's rows).
        for (std::size_t r = 0; r < outs.size(); ++r) {
          const std::size_t n_out = outs[r].values.size();
          std::vector<ir::Tensor> blocks(wrt_.size());
          for (std::size_t w = 0; w < wrt_.size(); ++w) {
            std::size_t n_in = in_ids[w].size();
            blocks[w].shape = {static_cast<std::int64_t>(n_out), static_cast<std::int64_t>(n_in)};
            blocks[w].values.assign(n_out * n_in, 0.0);
          }
          for (std::size_t i = 0; i < n_out; ++i) {
            if (outs[r].values[i].is_constant()) continue;  // a constant row is zero
            tape_.clear_seeds();
            tape_.seed(outs[r].values[i].id(), 1.0);
            auto g = reverse(in_ids);
            for (std::size_t w = 0; w < wrt_.size(); ++w)
              std::copy(g[w].begin(), g[w].end(),
                        blocks[w].values.begin() + static_cast<std::ptrdiff_t>(i * g[w].size()));
          }
          for (auto& b : blocks) out.push_back(std::move(b));
        }
        break;
      }
      default:
        throw Unsupported(std::string("dualrev does not offer mode ") + mode_name(req_.mode));
    }
    return out;
  }

  const ir::OpCounts* counts() const override { return &counts_; }
  const ResolveStats& stats() const { return stats_; }

 private:
  static ir::Tensor primal(const ir::BasicTensor<Dual>& y) {
    ir::Tensor t;
    t.elem = y.elem;
    t.storage = y.storage;
    t.shape = y.shape;
    t.ints = y.ints;
    t.row_ptr = y.row_ptr;
    t.col_idx = y.col_idx;
    t.coords = y.coords;
    t.values.reserve(y.values.size());
    for (const Dual& d : y.values) t.values.push_back(d.value());
    return t;
  }

  // One SResolve from the current seeds; the gradient is read from the input IDs (section 10.1).
  std::vector<std::vector<double>> reverse(const std::vector<std::vector<NodeId>>& in_ids) {
    ResolveStats s = tape_.resolve(variant_, opts_);
    stats_ += s;
    counts_.adds += s.adds;
    counts_.muls += s.muls;
    std::vector<std::vector<double>> g(in_ids.size());
    for (std::size_t w = 0; w < in_ids.size(); ++w)
      for (NodeId id : in_ids[w]) g[w].push_back(tape_.adjoint(id));
    return g;
  }

  ir::FunctionPtr f_;
  Request req_;
  Variant variant_;
  ir::Interpreter<Dual> interp_;
  Tape tape_;
  ResolveOptions opts_;
  std::vector<std::size_t> wrt_;
  ir::OpCounts counts_;
  ResolveStats stats_;
};

}  // namespace

void check_supported(const ir::Function& f) {
  std::unordered_set<const ir::Function*> seen;
  scan_conversions(f, seen);
}

std::unique_ptr<backends::Executable> make_ir_engine(ir::FunctionPtr f, const Request& r, Variant v,
                                                     const backends::Options& o) {
  return std::make_unique<IrEngine>(std::move(f), r, v, o);
}

const ResolveStats* last_resolve_stats(const backends::Executable& e) {
  auto* engine = dynamic_cast<const IrEngine*>(&e);
  return engine ? &engine->stats() : nullptr;
}

}  // namespace adlab::ad::dualrev
