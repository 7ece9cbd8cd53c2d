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

double work_growth_factor(const std::vector<CostPoint>& points) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto P = [&](std::size_t k) {
    return static_cast<double>(points[k].primal_work) + points[k].size;
  };
  auto D = [&](std::size_t k) { return static_cast<double>(points[k].derivative_work); };
  const std::size_t n = points.size();
  if (n == 2) return P(0) > 0 && P(1) > 0 && D(0) > 0 ? (D(1) / P(1)) / (D(0) / P(0)) : nan;
  if (n < 3) return nan;
  const double dp_first = P(1) - P(0), dp_last = P(n - 1) - P(n - 2);
  if (!(dp_first > 0 && dp_last > 0)) return nan;
  const double first = (D(1) - D(0)) / dp_first, last = (D(n - 1) - D(n - 2)) / dp_last;
  if (first > 0) return last / first;
  return last > 0 ? std::numeric_limits<double>::infinity() : 1.0;  // it starts growing late
}

std::string work_growth(const Complexity& c) {
  const CostPoint& a = c.points.front();
  const CostPoint& b = c.points.back();
  char text[400];
  std::snprintf(text, sizeof text,
                "the derivative's work grows faster than the primal's: %lld -> %lld against "
                "%lld -> %lld with the %g -> %g input scalars (growth factor %.2f > %.1f; work: "
                "operations and iterated domain points, which paper 000's cost model, counted by "
                "the ratio, leaves out)",
                static_cast<long long>(a.derivative_work),
                static_cast<long long>(b.derivative_work), static_cast<long long>(a.primal_work),
                static_cast<long long>(b.primal_work), a.size, b.size, c.work_growth, kWorkGrowth);
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
