// Known answers the benchmarks compare their timed results with (decision 182): a dot product
// to within its rounding bound, and tensors against a reference within a relative tolerance.
#pragma once

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "ir/tensor/tensor.h"

namespace adlab::bench {

// x . y summed in long double; `bound` receives 1e-13 of sum |x_i y_i|. A double sum in any order
// is within n u sum |x_i y_i| (1e-9 of it at n = 10^7 in the worst case, about u sqrt(n) in
// practice), and one term dropped or wrong moves it by far more than the bound.
inline double dot_reference(const std::vector<double>& x, const std::vector<double>& y,
                            double& bound) {
  long double s = 0, a = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const long double p = static_cast<long double>(x[i]) * y[i];
    s += p;
    a += std::fabs(p);
  }
  bound = 1e-13 * static_cast<double>(a);
  return static_cast<double>(s);
}

// max(acc, x) where a NaN x wins (std::max(acc, NaN) is acc: a NaN result would pass).
inline double worst_of(double acc, double x) {
  return std::isnan(x) ? INFINITY : std::max(acc, x);
}

// "" when `got` has `want`'s layout and every entry is within rel * (the largest |want| entry of
// all results), else what differs.
inline std::string apart_from(const std::vector<ir::Tensor>& got,
                              const std::vector<ir::Tensor>& want, double rel,
                              const std::string& reference) {
  if (got.size() != want.size()) return "wrong number of results";
  double scale = 0, apart = 0;
  for (std::size_t k = 0; k < want.size(); ++k) {
    if (got[k].values.size() != want[k].values.size() || got[k].ints != want[k].ints)
      return "result " + std::to_string(k) + " differs in size or integers";
    for (std::size_t i = 0; i < want[k].values.size(); ++i) {
      scale = std::max(scale, std::fabs(want[k].values[i]));
      apart = worst_of(apart, std::fabs(got[k].values[i] - want[k].values[i]));
    }
  }
  if (apart <= rel * scale) return "";
  return "apart from " + reference + " by " + std::to_string(apart) + " (largest entry " +
         std::to_string(scale) + ")";
}

}  // namespace adlab::bench
