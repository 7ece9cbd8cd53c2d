// Log-log fits and size sweeps.
#include "checker/complexity/complexity.h"

#include <cmath>
#include <cstdio>
#include <limits>

namespace adlab::checker {

double loglog_slope(const std::vector<std::pair<double, double>>& xy) {
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  int n = 0;
  for (auto [x, y] : xy) {
    if (!(x > 0 && y > 0)) continue;
    double lx = std::log(x), ly = std::log(y);
    sx += lx;
    sy += ly;
    sxx += lx * lx;
    sxy += lx * ly;
    ++n;
  }
  double den = n * sxx - sx * sx;
  if (n < 2 || std::fabs(den) < 1e-12) return std::numeric_limits<double>::quiet_NaN();
  return (n * sxy - sx * sy) / den;
}

std::string work_growth(const Complexity& c) {
  char text[256];
  std::snprintf(text, sizeof text,
                "the derivative's work grows as size^%.2f against the primal's size^%.2f "
                "(operations and iterated domain points; paper 000's cost model, which the ratio "
                "counts, leaves iterations and index arithmetic out)",
                c.derivative_work_slope, c.primal_work_slope);
  return text;
}

std::vector<ir::SizeMap> sweep_sizes(const ir::SuiteEntry& e, const std::string& base,
                                     const std::vector<int>& factors) {
  std::vector<ir::SizeMap> out;
  const ir::SizeMap& b = e.size_set(base);
  for (int k : factors) {
    ir::SizeMap s;
    for (auto& [name, v] : b) s[name] = v <= 1 ? v : v * k;
    out.push_back(s);
  }
  return out;
}

}  // namespace adlab::checker
