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
// (one reverse pass per output).
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
