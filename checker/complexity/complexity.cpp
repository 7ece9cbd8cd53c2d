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

namespace {
// dD / dP over the sweep's step k (from point k - 1 to k); NaN where P does not grow
double marginal(const std::vector<CostPoint>& points, std::size_t k) {
  const double dp = points[k].primal_with_inputs() - points[k - 1].primal_with_inputs();
  const double dd = static_cast<double>(points[k].derivative_work - points[k - 1].derivative_work);
  return dp > 0 ? dd / dp : std::numeric_limits<double>::quiet_NaN();
}
}  // namespace

double work_growth_factor(const std::vector<CostPoint>& points) {
  const std::size_t n = points.size();
  // two points: an offset in P alone moves D / P (a reviewing helper)
  if (n < 3) return std::numeric_limits<double>::quiet_NaN();
  // the first step where both grow (a step where either does not grow gives no marginal to
  // compare with), judged against the last
  std::size_t first = 1;
  while (first < n - 1 && !(marginal(points, first) > 0)) ++first;
  if (first == n - 1) return std::numeric_limits<double>::quiet_NaN();
  return marginal(points, n - 1) / marginal(points, first);
}

bool marginal_keeps_rising(const std::vector<CostPoint>& points) {
  const std::size_t n = points.size();
  if (n < 4) return false;  // two steps of marginals to compare need three of them
  const double m0 = marginal(points, n - 3), m1 = marginal(points, n - 2),
               m2 = marginal(points, n - 1);
  return m0 > 0 && m1 > kMarginalRise * m0 && m2 > kMarginalRise * m1 && m2 - m1 >= m1 - m0;
}

bool sweep_goes_on(const std::vector<CostPoint>& points) {
  for (std::size_t k = 2; k < points.size(); ++k) {
    const double before = marginal(points, k - 1), now = marginal(points, k);
    // either way: a part of the primal that starts late lowers the marginal, and n^2 beside it
    // shows only further on (mod_dot_step)
    if (before > 0 && (now > kMarginalRise * before || now * kMarginalRise < before)) return true;
  }
  return false;
}

std::string work_growth(const Complexity& c) {
  const CostPoint& a = c.points.front();
  const CostPoint& b = c.points.back();
  char text[520];
  std::snprintf(
      text, sizeof text,
      "the derivative's work grows faster than the primal's: D = %lld -> %lld against P = %.0f "
      "-> %.0f (the primal's work and its input scalars), and the marginal dD/dP over the "
      "sweep's last step is %.2f times that over its first (> %.1f), rising at each of the "
      "sweep's last two steps by no less than at the one before; work counts operations and "
      "iterated domain points, and paper 000's cost model, which the ratio uses, leaves the "
      "iterations out",
      static_cast<long long>(a.derivative_work), static_cast<long long>(b.derivative_work),
      a.primal_with_inputs(), b.primal_with_inputs(), c.work_growth, kWorkGrowth);
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
