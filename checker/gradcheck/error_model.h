// The error model: per-entry relative errors against the reference, with a float64 tolerance
// derived from the evaluation (DESIGN 4.2), and the location of the worst entry.
#pragma once

#include <string>
#include <vector>

#include "checker/gradcheck/reference.h"

namespace adlab::checker {

// tolerance = max(floor, min(1e-8, C * u * sqrt(ops + 1) * max(1, rho / u))), u = 2^-53, C = 64,
// ops the primal's operation count and rho the primal's measured relative float64 error
// (double run against the 50-digit run). `floor` is the strategy's declared accuracy
// (0 for AD; finite differences declare theirs).
struct Tolerance {
  double value = 0;
  double rho = 0;
  std::int64_t ops = 0;
  double floor = 0;
  std::string basis() const;
};

Tolerance derive_tolerance(const ir::Function& f, const std::vector<ir::Tensor>& inputs,
                           const Reference& ref, const std::map<std::string, std::int64_t>& sizes,
                           double floor);

// Entry k's error is |got - want| / max(|want|, 1e-3 * scale(k), tiny), where scale(k) is the
// largest |want| in k's row (group): small entries that cancel are judged against their row.
struct Comparison {
  bool pass = true;
  double worst_error = 0;
  std::size_t worst_index = 0;
  double got = 0, want = 0;
  std::string where;  // filled by the caller (it knows the layout)
};

// `row_length`: entries per row for the row scales (the number of columns of a Jacobian, or
// the whole vector when 0).
// `floor_scale`: an absolute scale below which entries are judged absolutely (1e-3 of it): the
// magnitude of the primal, so a derivative that is exactly zero is judged against the function.
Comparison compare(const std::vector<double>& got, const std::vector<ir::mp50>& want,
                   double tolerance, std::size_t row_length = 0, double floor_scale = 0);

}  // namespace adlab::checker
