// The dualrev engine for IR programs (paper 003 section 9's Wrap, with sections 10.1-10.3).
#include "ad/dualrev/ir_engine.h"

#include <algorithm>
#include <cstdlib>

#include "ad/dualrev/compiled_dual.h"
#include "ad/dualrev/fork_join.h"
#include "ad/dualrev/interp_dual.h"
#include "ad/dualrev/parallel_split.h"
#include "ad/strategy.h"
#include "ir/tensor/tensor_ops.h"

namespace adlab::ad::dualrev {

namespace {

// Threads of the engine's pool: ADLAB_THREADS (default 1). The recording does not depend on it.
unsigned engine_threads() {
  const char* t = std::getenv("ADLAB_THREADS");
  long n = t ? std::strtol(t, nullptr, 10) : 1;
  return n >= 1 && n <= 256 ? static_cast<unsigned>(n) : 1u;
}

using DualValue = ir::Value<Dual>;

// The chunks' results joined along the first dimension (tuples of arrays field by field).
DualValue concat(const std::vector<DualValue>& parts) {
  if (parts[0].is_tuple()) {
    std::vector<DualValue> fields;
    for (std::size_t k = 0; k < parts[0].fields->size(); ++k) {
      std::vector<DualValue> column;
      for (const auto& p : parts) column.push_back(p.field(k));
      fields.push_back(concat(column));
    }
    return DualValue::of_tuple(std::move(fields));
  }
  ir::BasicTensor<Dual> r = *parts[0].t;
  for (std::size_t c = 1; c < parts.size(); ++c) {
    const auto& t = *parts[c].t;
    r.shape[0] += t.shape[0];
    r.values.insert(r.values.end(), t.values.begin(), t.values.end());
    r.ints.insert(r.ints.end(), t.ints.begin(), t.ints.end());
  }
  return DualValue::of_tensor(std::move(r));
}

class IrEngine : public backends::Executable {
 public:
  IrEngine(ir::FunctionPtr f, Request r, Variant v, const std::string& backend,
           const backends::Options& o)
      : f_(std::move(f)),
        req_(std::move(r)),
        variant_(v),
        eval_options_{o.sizes, o.count_ops, false},
        interp_(eval_options_),
        tape_(TapeOptions{engine_threads(), v != Variant::Naive}),
        compiled_(backend == "cpu" ? std::make_unique<CompiledDual>(f_, o) : nullptr),
        splits_(compiled_ ? std::vector<ParallelSplit>{} : split_chain(*f_)) {
    opts_.count_ops = o.count_ops;
    opts_.call_limit = 100'000'000;  // naive: about a second, then a clear error
    wrt_ = wrt_parameters(*f_, req_.wrt);
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
        ir::BasicTensor<Dual> d = ir::with_layout_of<Dual>(t);
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
      if (compiled_) {
        outs = compiled_->run(inputs, args);  // the compiled unit records on the root job
      } else if (!splits_.empty()) {
        try {
          outs = run_split(args);
        } catch (const Error&) {
          // The pieces' messages name the split's variables (`lo + i`): rerun the function
          // whole so that the error reads as the program is written.
          outs = interp_.run_tensors(*f_, args);
          counts_ += interp_.counts();
        }
      } else {
        outs = interp_.run_tensors(*f_, args);
        counts_ += interp_.counts();
      }
    }
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
            blocks[w].shape = ir::is_float(outs[r].elem)
                                  ? jacobian_block_shape(outs[r], inputs[wrt_[w]])
                                  : std::vector<std::int64_t>{static_cast<std::int64_t>(n_out),
                                                              static_cast<std::int64_t>(n_in)};
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

  // Operation counts come from the interpreter; the compiled unit counts none (as backend cpu).
  const ir::OpCounts* counts() const override { return compiled_ ? nullptr : &counts_; }
  const ResolveStats& stats() const { return stats_; }
  std::size_t jobs() const { return tape_.num_jobs(); }

 private:
  static ir::Tensor primal(const ir::BasicTensor<Dual>& y) {
    ir::Tensor t = ir::with_layout_of<double>(y);
    t.values.reserve(y.values.size());
    for (const Dual& d : y.values) t.values.push_back(d.value());
    return t;
  }

  // Paper 003 section 12 on the IR's parallel loops: the pieces between them run in this job;
  // each top-level gen or sum runs in a fixed number of chunks (so the recording, and the
  // result bits, do not depend on the number of threads), as fork-join tasks.
  std::vector<ir::BasicTensor<Dual>> run_split(const std::vector<ir::BasicTensor<Dual>>& args) {
    std::vector<DualValue> vals;
    for (const auto& a : args) vals.push_back(ir::value_from_tensor(a));
    auto out = run_pieces(0, vals);
    std::vector<ir::BasicTensor<Dual>> ts;
    for (std::size_t k = 0; k < out.size(); ++k) {
      if (out[k].is_tuple())
        throw Error(f_->pos,
                    "result " + std::to_string(k) + " is an array of tuples; project its fields");
      ts.push_back(ir::to_tensor(out[k], f_->results[k]->type.elem));
    }
    return ts;
  }

  // Split `level` of the chain on the arguments of the function it splits (f, or the previous
  // split's post); past the last split, that post runs whole.
  std::vector<DualValue> run_pieces(std::size_t level, const std::vector<DualValue>& vals) {
    if (level == splits_.size()) {
      auto out = interp_.run(*splits_.back().post, vals);
      counts_ += interp_.counts();
      return out;
    }
    constexpr std::int64_t kChunks = 8;
    const ParallelSplit& split = splits_[level];
    std::vector<DualValue> pre;
    if (split.pre) {
      pre = interp_.run(*split.pre, vals);
      counts_ += interp_.counts();
    }
    const std::int64_t n = interp_.run(*split.bound, vals)[0].i;
    const std::int64_t chunks = std::max<std::int64_t>(1, std::min(n, kChunks));
    while (chunk_interps_.size() < static_cast<std::size_t>(chunks))
      chunk_interps_.push_back(std::make_unique<ir::Interpreter<Dual>>(eval_options_));
    std::vector<DualValue> parts(static_cast<std::size_t>(chunks));
    std::vector<ir::OpCounts> part_counts(parts.size());
    parallel_for(0, parts.size(), 1, [&](std::size_t c) {
      const auto ci = static_cast<std::int64_t>(c);
      std::int64_t lo = n * ci / chunks, hi = n * (ci + 1) / chunks;
      std::vector<DualValue> a = vals;
      a.insert(a.end(), pre.begin(), pre.end());
      a.push_back(DualValue::of_int(lo));
      a.push_back(DualValue::of_int(hi - lo));
      parts[c] = chunk_interps_[c]->run(*split.chunk, a)[0];
      part_counts[c] = chunk_interps_[c]->counts();
    });
    for (const auto& c : part_counts) counts_ += c;
    std::vector<DualValue> post_args = vals;
    post_args.insert(post_args.end(), pre.begin(), pre.end());
    post_args.push_back(split.is_sum ? add_in_order(parts) : concat(parts));
    return run_pieces(level + 1, post_args);
  }

  // The chunks' partial sums added in chunk order, in the join job (counted as additions).
  DualValue add_in_order(const std::vector<DualValue>& parts) {
    auto scalar = [](const DualValue& v) { return v.is_tensor() ? v.t->values.at(0) : v.f; };
    Dual total = scalar(parts[0]);
    for (std::size_t c = 1; c < parts.size(); ++c) total = total + scalar(parts[c]);
    counts_.adds += static_cast<std::int64_t>(parts.size()) - 1;
    return DualValue::of_float(total);
  }

  // One SResolve from the current seeds; the gradient is read from the input IDs (section 10.1).
  std::vector<std::vector<double>> reverse(const std::vector<std::vector<NodeId>>& in_ids) {
    ResolveStats s;
    try {
      s = tape_.resolve(variant_, opts_);
    } catch (const CallLimitExceeded& ex) {  // a limit of the variant, not of the program
      throw OverBudget(ex.message());
    }
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
  ir::EvalOptions eval_options_;
  ir::Interpreter<Dual> interp_;
  Tape tape_;
  std::unique_ptr<CompiledDual> compiled_;  // backend cpu: f's unit with T = Dual
  std::vector<ParallelSplit> splits_;
  std::vector<std::unique_ptr<ir::Interpreter<Dual>>> chunk_interps_;
  ResolveOptions opts_;
  std::vector<std::size_t> wrt_;
  ir::OpCounts counts_;
  ResolveStats stats_;
};

}  // namespace

std::unique_ptr<backends::Executable> make_ir_engine(ir::FunctionPtr f, const Request& r, Variant v,
                                                     const std::string& backend,
                                                     const backends::Options& o) {
  if (backend != "interp" && backend != "cpu")
    throw backends::Unsupported(f->pos,
                                "dualrev runs on the interpreter (Interpreter<Dual>) or "
                                "on cpu (generated code with T = Dual), not on `" +
                                    backend + "`");
  return std::make_unique<IrEngine>(std::move(f), r, v, backend, o);
}

const ResolveStats* last_resolve_stats(const backends::Executable& e) {
  auto* engine = dynamic_cast<const IrEngine*>(&EngineExecutable::unwrap(e));
  return engine ? &engine->stats() : nullptr;
}

}  // namespace adlab::ad::dualrev

namespace adlab::ad::dualrev {
std::size_t last_job_count(const backends::Executable& e) {
  auto* engine = dynamic_cast<const IrEngine*>(&EngineExecutable::unwrap(e));
  return engine ? engine->jobs() : 0;
}
}  // namespace adlab::ad::dualrev
