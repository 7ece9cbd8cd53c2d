// The forward transformation D[[.]] of paper 001 (Fig. 7, digest 001 section 3.1) with a vector
// of k tangents per scalar (digest 001 section 3.3, "vector forward mode").
//
// A tangent is read "at the current direction": lane(e) is a scalar expression in which the index
// variable `dir` (0 <= dir < k) names the direction. A variable's tangent is stored in one of the
// layouts of TangentOf; a statement's tangent is materialised as gen[..., dir < k] lane(...).
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "ir/function.h"
#include "ir/substitute.h"

namespace adlab::ad::fwdvec {

// How the tangent of one variable is read.
struct TangentOf {
  enum class Kind {
    DirMinor,  // value: f64[dims..., k]; x[I] has tangent value[I, dir] (k tangents per scalar)
    DirMajor,  // value: f64[k, dims...] (or k tuples); x[I] has tangent value[dir, I]
    Lane,      // value: the type of x, the tangent at the current direction
    Seed,      // one-hot: x[I] has tangent [flat(I) + offset == global direction]
    Fused,     // x = gen[vars] e: x[I] has tangent value{vars := I} (paper 001 c1 fusion)
  };
  Kind kind = Kind::Lane;
  ir::Expr value;
  ir::Expr offset;             // Seed
  std::vector<ir::Expr> vars;  // Fused
};

struct TangentOptions {
  bool fuse = true;       // Fused tangents for cheap elementwise gens (paper 001 8c)
  bool eliminate = true;  // one-hot sum elimination (paper 001 e4, paper 000 errata 10 SE)
  bool hoist = true;      // direction-invariant code out of gen[dir < k] (paper 001 LICM)
  // Seeds as strong-zero brackets [q == dir] * 1; false: as values select(q == dir, 1, 0), the
  // paper's unfused vectorHot, whose zeros are multiplied and added like any number.
  bool bracket_seeds = true;
};

class Tangents {
 public:
  // `dir` ranges over [0, k); `global` is the global direction index seeds compare with.
  Tangents(ir::Expr dir, ir::Expr k, ir::Expr global, TangentOptions o, SourcePos fallback);

  void bind(ir::Expr var, TangentOf t) { env_[var] = std::move(t); }
  const TangentOf* find(ir::Expr var) const;

  // D[[e]]'s tangent part E[[e]] at direction `dir`; a null Expr is a zero tangent.
  ir::Expr lane(ir::Expr e);
  // The tangent of a tensor (or tuple) expression at direction `dir`, of e's type; null: zero.
  ir::Expr lane_tensor(ir::Expr e);

  // D-Let at the top level: the tangent statements of `let vars = value` (appended to `out`), and
  // the tangent binding of each var. Direction-invariant work hoisted by LICM goes to `out` too.
  void statement(const ir::Stmt& s, std::vector<ir::Stmt>& out);
  // The tangent of `e` materialised as f64[dims..., k] (zeros when inactive).
  ir::Expr materialise(ir::Expr e, std::vector<ir::Stmt>& out);

  // What the transformation did, for --trace.
  struct Stats {
    int dir_minor = 0, dir_major = 0, fused = 0, sums_eliminated = 0, hoisted = 0;
  };
  const Stats& stats() const { return stats_; }
  std::string trace() const;

 private:
  ir::Expr lane_access(ir::Expr base, std::vector<ir::Expr> idx);
  ir::Expr lane_var_access(ir::Expr var, const std::vector<ir::Expr>& idx);
  ir::Expr lane_prim(ir::Expr e);
  ir::Expr lane_binary(ir::Expr e);
  ir::Expr lane_reduce(ir::Expr e);
  ir::Expr lane_loop(ir::Expr e);
  ir::Expr lane_running_extremum(ir::Expr e);
  ir::Expr lane_scan(ir::Expr e, ir::Expr lane_body);
  ir::Expr lane_let(ir::Expr e, bool tensor);
  ir::Expr seed(const TangentOf& t, ir::Expr var, const std::vector<ir::Expr>& idx);
  ir::Expr sum_of(const ir::Domain& dom, ir::Expr body);
  ir::Expr hoist(ir::Expr body, std::vector<ir::Stmt>& out);
  [[noreturn]] void unsupported(ir::Expr e, const std::string& what) const;

  ir::Expr dir_, k_, global_;
  TangentOptions opt_;
  SourcePos fallback_;
  std::unordered_map<ir::Expr, TangentOf, ir::ExprHash> env_;
  Stats stats_;
};

// Zero of e's type (a scalar literal, or gen[...] 0 for tensors, or a tuple of zeros).
ir::Expr zeros_like(const ir::Type& t);

}  // namespace adlab::ad::fwdvec
