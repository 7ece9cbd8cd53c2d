// One-call reverse mode for C++ functions of Duals (paper 003 Wrap: Interleave the inputs, run,
// Deinterleave the outputs, SResolve): gradient, vector-Jacobian product, Jacobian.
#pragma once

#include <vector>

#include "ad/dualrev/dual.h"
#include "ad/dualrev/fork_join.h"
#include "ad/dualrev/tape.h"
#include "ir/error.h"

namespace adlab::ad::dualrev {

struct GradientResult {
  double value = 0;
  std::vector<double> gradient;
  ResolveStats stats;
};

namespace detail {
// The inputs' Duals, and their IDs in `ids`: the gradient is read at these IDs, since f may
// assign to its argument (`x[0] *= 2` read back from the vector gave d/d(2a), an audit finding).
inline std::vector<Dual> record_inputs(const std::vector<double>& x, std::vector<NodeId>& ids) {
  std::vector<Dual> xs;
  xs.reserve(x.size());
  ids.reserve(x.size());
  for (double xi : x) {
    xs.push_back(make_input(xi));
    ids.push_back(xs.back().id());
  }
  return xs;
}
}  // namespace detail

// f: std::vector<Dual> -> Dual. The tape keeps its memory for the next call.
template <class F>
GradientResult gradient(Tape& tape, F&& f, const std::vector<double>& x, Variant v = Variant::Tape,
                        const ResolveOptions& o = {}) {
  std::vector<NodeId> in;
  Dual y;
  {
    Recording rec(tape);
    std::vector<Dual> xs = detail::record_inputs(x, in);
    y = f(xs);
  }
  tape.clear_seeds();
  tape.seed(y.id(), 1.0);
  GradientResult r;
  r.value = y.value();
  r.stats = tape.resolve(v, o);
  r.gradient.reserve(in.size());
  for (NodeId id : in) r.gradient.push_back(tape.adjoint(id));
  return r;
}

// f: std::vector<Dual> -> std::vector<Dual>; row i of the result is the gradient of output i
// (the tape variant: all rows in one vector sweep; the others: one reverse pass per output).
template <class F>
std::vector<std::vector<double>> jacobian(Tape& tape, F&& f, const std::vector<double>& x,
                                          Variant v = Variant::Tape) {
  std::vector<NodeId> in;
  std::vector<Dual> ys;
  {
    Recording rec(tape);
    std::vector<Dual> xs = detail::record_inputs(x, in);
    ys = f(xs);
  }
  std::vector<std::vector<double>> J;
  if (v == Variant::Tape) {
    std::vector<NodeId> out;
    for (const Dual& y : ys) out.push_back(y.id());
    std::vector<double> rows(in.size() * out.size());
    tape.jacobian_rows(out, in, rows.data());
    for (std::size_t k = 0; k < out.size(); ++k)
      J.emplace_back(rows.begin() + static_cast<std::ptrdiff_t>(k * in.size()),
                     rows.begin() + static_cast<std::ptrdiff_t>((k + 1) * in.size()));
    return J;
  }
  for (const Dual& y : ys) {
    tape.clear_seeds();
    tape.seed(y.id(), 1.0);
    tape.resolve(v);
    std::vector<double> row;
    for (NodeId id : in) row.push_back(tape.adjoint(id));
    J.push_back(std::move(row));
  }
  return J;
}

// The adjoints of xs after a reverse pass, into out (what tape.adjoint(x.id()) gives for each):
// the job's array is looked up once per run of IDs in one job, not once per scalar.
inline void read_adjoints(const Tape& tape, const Dual* xs, std::size_t n, double* out) {
  std::uint32_t job = kConstantJob;
  const double* adj = nullptr;
  std::size_t size = 0;
  for (std::size_t k = 0; k < n; ++k) {
    const NodeId id = xs[k].id();
    if (id.job != job && !id.is_constant())
      if (const Job* j = tape.live_job(id.job)) {
        job = id.job;
        adj = j->adj.data();
        size = j->adj.size();
      }
    // Constants, other jobs' or unknown IDs take adjoint()'s checked path (0 or an error).
    out[k] = id.job == job && id.seq < size ? adj[id.seq] : tape.adjoint(id);
  }
}

// f: std::vector<Dual> -> std::vector<Dual>; returns ybar^T J in one reverse pass.
template <class F>
std::vector<double> vjp(Tape& tape, F&& f, const std::vector<double>& x,
                        const std::vector<double>& ybar, Variant v = Variant::Tape) {
  std::vector<NodeId> in;
  std::vector<Dual> ys;
  {
    Recording rec(tape);
    std::vector<Dual> xs = detail::record_inputs(x, in);
    ys = f(xs);
  }
  if (ys.size() != ybar.size()) throw Error("dualrev: vjp needs one cotangent per output");
  tape.clear_seeds();
  for (std::size_t i = 0; i < ys.size(); ++i) tape.seed(ys[i].id(), ybar[i]);
  tape.resolve(v);
  std::vector<double> g;
  for (NodeId id : in) g.push_back(tape.adjoint(id));
  return g;
}

}  // namespace adlab::ad::dualrev
