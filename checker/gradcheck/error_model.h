// The error model: per-entry relative errors against the reference, with a float64 tolerance
// derived from the evaluation (DESIGN 4.2), and the location of the worst entry.
#pragma once

#include <string>
#include <vector>

#include "checker/gradcheck/f32_paths.h"
#include "checker/gradcheck/reference.h"

namespace adlab::checker {

// tolerance = max(floor, min(R max(1, rho / u), max(1e-10, R))) with R = C u sqrt(ops + 1),
// u = 2^-53, C = 64, ops the larger of the primal's and the checked program's operation counts,
// rho the primal's measured relative float64 error (double run against the 50-digit run): an
// ill-conditioned primal widens the rounding model to 1e-10 at most (decision 188). `floor` is
// the strategy's declared accuracy (0 for AD; finite differences declare theirs).
struct Tolerance {
  double value = 0;
  // u: 2^-53, or 2^-24 when the derivatives are f32 values or computed from f32 rounding: the
  // function computes in f32, returns f32, or a differentiated parameter is f32 (decisions
  // 177, 188)
  double unit_roundoff = 0x1p-53;
  double rho = 0;
  std::int64_t ops = 0;
  double floor = 0;
  // The interpreter's double primal (floating results, flattened): what a correct strategy's
  // primal may be off by is measured per result from it (decision 192).
  std::vector<double> double_primal;
  // Where f computes in f32 (a callee or a scatter included; decision 206): a block gets f32's
  // whole model only where such arithmetic lies between its parameter and result.
  F32Paths f32_paths;
  // Whether f computes anything in f32 that reaches a result.
  bool computes_f32() const;
  std::string basis() const;
  // The same model with unit roundoff u.
  Tolerance with_unit(double u) const;
  // The model for a block whose values are f64 and not computed from f32 rounding: u = 2^-53.
  Tolerance for_f64_block() const;
  // The model for a block that f32 arithmetic computes: u = 2^-24 (decision 206).
  Tolerance for_f32_arithmetic() const;
  // The model for an f32 block (an f32 parameter's gradient, an f32 result's tangent) that no f32
  // arithmetic computes: its f64 model widened only by the roundings to f32 where derivatives
  // are stored, max(f64 model, 4 2^-24 sqrt(ops + 1)) (decision 202).
  Tolerance for_f32_block() const;
  // The same model with another floor (the model needs one double primal run per entry).
  Tolerance with_floor(double accuracy) const;
  // The model for a computation of `program_ops` operations when that is more than the primal's:
  // a derivative or closed-form program is a different computation with its own rounding,
  // counted up to 16 times the primal's operations (decision 216).
  Tolerance allowing_ops(std::int64_t program_ops) const;
};

// A primal entry's relative error as rho measures it: |difference| / max(|want|, 1e-3 scale,
// 1e-300), scale the largest |result entry| (decision 29).
double relative_to_primal(double difference, double want, double scale);

// `wrt`: the differentiated parameters' names (empty: every floating parameter).
Tolerance derive_tolerance(const ir::Function& f, const std::vector<ir::Tensor>& inputs,
                           const Reference& ref, const std::map<std::string, std::int64_t>& sizes,
                           double floor, const std::vector<std::string>& wrt = {});

// Entry k's error is |got - want| / max(|want|, 1e-3 * scale(k), tiny), where scale(k) is the
// largest |want| in k's group (a Jacobian row of one (result, wrt) block, or one block of a
// vector): small entries that cancel are judged against their group. A group whose reference
// is zero throughout (an identically zero derivative) is judged against floor_scale
// (the function's magnitude). A non-finite reference or result fails the comparison.
struct Comparison {
  bool pass = true;
  double worst_error = 0;
  double tolerance = 0;  // the tolerance of the worst entry's group
  std::size_t worst_index = 0;
  double got = 0, want = 0;
  std::string where;  // filled by the caller (it knows the layout)
  // Entries within their tolerance only thanks to the reference's resolution (their agreement
  // is as good as 50-digit differences can tell), or non-zero by their terms but below that
  // resolution (any value near it would pass; decision 224), and the largest of their errors
  // without the allowance or of the resolution relative to the entry.
  std::size_t unresolved = 0;
  double unresolved_error = 0;
  // Entries within their tolerance whose tolerance admits 0: their chain-rule terms are so much
  // larger than their value (cancellation) that any value of their size would pass (decision
  // 226); `spread` is the largest ratio of terms to value among them.
  std::size_t admits_zero = 0;
  double spread = 0;
};

// A strategy's primal results against the reference, entry by entry: each within max(tol,
// 4 rho_k), rho_k the interpreter's double run's error on that entry under the same measure
// (an ill-conditioned entry excuses its own rounding, not another entry's; 0 where the double
// run is not finite; decisions 192, 202). Every entry is judged against itself, a zero one
// included (decisions 205, 208).
Comparison compare_primal(const std::vector<double>& got, const Reference& ref,
                          const Tolerance& tol);

// `groups`: the sizes of consecutive groups (empty: one group of everything); `floor_scale`:
// the function's magnitude, for groups whose reference is zero throughout; `group_floors`, when
// given (one per group), replaces it group by group (a Jacobian row's result's magnitude);
// `group_tolerances`, when given, replaces `tolerance` group by group (f32 blocks beside f64
// ones), and the worst entry is the one furthest past its own group's tolerance. `magnitudes`,
// when given (one per entry, magnitude.h), judge entry k against max(|want_k|, magnitude_k)
// instead of its group's scale where magnitude_k is finite; `resolutions`, when given, are the
// reference's own absolute uncertainty per entry, subtracted from |got - want| (decision 205).
Comparison compare(const std::vector<double>& got, const std::vector<ir::mp50>& want,
                   double tolerance, const std::vector<std::size_t>& groups = {},
                   double floor_scale = 0, const std::vector<double>& group_floors = {},
                   const std::vector<double>& group_tolerances = {},
                   const std::vector<double>& magnitudes = {},
                   const std::vector<double>& resolutions = {});

}  // namespace adlab::checker
