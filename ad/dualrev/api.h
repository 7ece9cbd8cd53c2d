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

// f: std::vector<Dual> -> Dual. The tape keeps its memory for the next call.
template <class F>
GradientResult gradient(Tape& tape, F&& f, const std::vector<double>& x, Variant v = Variant::Tape,
                        const ResolveOptions& o = {}) {
  std::vector<Dual> xs;
  Dual y;
  {
    Recording rec(tape);
    xs.reserve(x.size());
    for (double xi : x) xs.push_back(make_input(xi));
    y = f(xs);
  }
  tape.clear_seeds();
  tape.seed(y.id(), 1.0);
  GradientResult r;
  r.value = y.value();
  r.stats = tape.resolve(v, o);
  r.gradient.reserve(xs.size());
  for (const Dual& d : xs) r.gradient.push_back(tape.adjoint(d.id()));
  return r;
}

// f: std::vector<Dual> -> std::vector<Dual>; row i of the result is the gradient of output i
// (the tape variant: all rows in one vector sweep; the others: one reverse pass per output).
template <class F>
std::vector<std::vector<double>> jacobian(Tape& tape, F&& f, const std::vector<double>& x,
                                          Variant v = Variant::Tape) {
  std::vector<Dual> xs, ys;
  {
    Recording rec(tape);
    for (double xi : x) xs.push_back(make_input(xi));
    ys = f(xs);
  }
  std::vector<std::vector<double>> J;
  if (v == Variant::Tape) {
    std::vector<NodeId> in, out;
    for (const Dual& d : xs) in.push_back(d.id());
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
    for (const Dual& d : xs) row.push_back(tape.adjoint(d.id()));
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
  std::vector<Dual> xs, ys;
  {
    Recording rec(tape);
    for (double xi : x) xs.push_back(make_input(xi));
    ys = f(xs);
  }
  if (ys.size() != ybar.size()) throw Error("dualrev: vjp needs one cotangent per output");
  tape.clear_seeds();
  for (std::size_t i = 0; i < ys.size(); ++i) tape.seed(ys[i].id(), ybar[i]);
  tape.resolve(v);
  std::vector<double> g;
  for (const Dual& d : xs) g.push_back(tape.adjoint(d.id()));
  return g;
}

}  // namespace adlab::ad::dualrev
