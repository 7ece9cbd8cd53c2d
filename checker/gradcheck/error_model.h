// The error model: per-entry relative errors against the reference, with a float64 tolerance
// derived from the evaluation (DESIGN 4.2), and the location of the worst entry.
#pragma once

#include <string>
#include <vector>

#include "checker/gradcheck/reference.h"

namespace adlab::checker {

// tolerance = max(floor, min(cap, C * u * sqrt(ops + 1) * max(1, rho / u))), u = 2^-53, C = 64,
// ops the larger of the primal's and the checked program's operation counts, rho the primal's
// measured relative float64 error (double run against the 50-digit run). `floor` is the strategy's
// declared accuracy (0 for AD; finite differences declare theirs).
struct Tolerance {
  double value = 0;
  // u: 2^-53, or 2^-24 when the function computes or stores anything in f32 (its derivatives
  // are f32 values, or are computed from them: decision 177)
  double unit_roundoff = 0x1p-53;
  double rho = 0;
  std::int64_t ops = 0;
  double floor = 0;
  std::string basis() const;
  // The same model with another floor (the model needs one double primal run per entry).
  Tolerance with_floor(double accuracy) const;
  // The model for a computation of `program_ops` operations when that is more than the primal's:
  // a derivative or closed-form program is a different computation with its own rounding.
  Tolerance allowing_ops(std::int64_t program_ops) const;
};

Tolerance derive_tolerance(const ir::Function& f, const std::vector<ir::Tensor>& inputs,
                           const Reference& ref, const std::map<std::string, std::int64_t>& sizes,
                           double floor);

// Entry k's error is |got - want| / max(|want|, 1e-3 * scale(k), tiny), where scale(k) is the
// largest |want| in k's group (a Jacobian row of one (result, wrt) block, or one block of a
// vector): small entries that cancel are judged against their group. A group whose reference
// is zero throughout (an identically zero derivative) is judged against floor_scale
// (the function's magnitude). A non-finite reference or result fails the comparison.
struct Comparison {
  bool pass = true;
  double worst_error = 0;
  std::size_t worst_index = 0;
  double got = 0, want = 0;
  std::string where;  // filled by the caller (it knows the layout)
};

// `groups`: the sizes of consecutive groups (empty: one group of everything); `floor_scale`:
// the function's magnitude, for groups whose reference is zero throughout.
Comparison compare(const std::vector<double>& got, const std::vector<ir::mp50>& want,
                   double tolerance, const std::vector<std::size_t>& groups = {},
                   double floor_scale = 0);

}  // namespace adlab::checker
