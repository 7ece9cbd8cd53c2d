// Complexity: operation counts of primal and derivative over a size sweep, log-log slopes and the
// cheap-gradient ratio (DESIGN 4.3; paper 000 Theorem 6.35 bounds reverse mode by 4).
#pragma once

#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "ir/suite/manifest.h"

namespace adlab::checker {

struct CostPoint {
  double size = 0;  // number of floating input scalars
  std::int64_t primal = 0, derivative = 0;
  // operations plus iterated domain points (OpCounts::iterations): the work paper 000's cost
  // model leaves out, index arithmetic and false brackets, shows here
  std::int64_t primal_work = 0, derivative_work = 0;
  // P of the growth check: the primal's work and its input scalars (work_growth_factor)
  double primal_with_inputs() const { return static_cast<double>(primal_work) + size; }
};

struct Complexity {
  std::vector<CostPoint> points;
  double primal_slope = 0,
         derivative_slope = 0;  // log-log least-squares slopes (NaN with < 2 points)
  // the same over the work (operations plus iterated domain points, CostPoint); reported
  double primal_work_slope = 0, derivative_work_slope = 0;
  // How the derivative's work grows against the primal's (work_growth_factor; NaN: the sweep
  // cannot tell) and whether past kWorkGrowth: then it is not cheap, whatever paper 000's model
  // counts (decision 240)
  double work_growth = std::numeric_limits<double>::quiet_NaN();
  bool work_grows_faster = false;
  // the marginal dD / dP still rose where the sweep stopped short (its time budget): not judged
  bool growth_unsettled = false;
  double ratio = 0;             // derivative / primal at the worst point of the sweep
  std::optional<double> bound;  // the manifest's cost_bound, for reverse mode
  bool within_bound = true;
  std::string error;  // the derivative failed at a sweep point where the primal ran
};

// The derivative's work D against the primal's with its input scalars, P = primal work + size
// (a gradient has an entry per input, so a primal that reads few of them still has P grow with
// them): over three or more sweep points, the marginal dD / dP over the last step divided by
// that over the first (linear growth with different constants: 1; a power of the size more:
// about 2 per doubling), the first step being the first that grows both P and D. NaN where the
// sweep has fewer than three points or only its last step grows both. Axis-free: fixed-size inputs
// and constant overheads shift P and D, not their marginals (an audit helper: log-log slopes
// against the input count magnified a fixed 200-entry input into slope 1.57 for a linear gradient,
// and missed fixed-size float inputs).
double work_growth_factor(const std::vector<CostPoint>& points);
// Whether the marginal dD / dP rises by more than kMarginalRise over each of the sweep's last
// two steps, and by no less over the last than over the one before (a power of the size more:
// about 2 per doubling, rises that do not shrink); needs four points. Growth is judged where
// both this and the factor hold: a primal whose parts start at different sizes moves the
// marginal once (a reviewing helper: `sum x + sum[j < (n / 64) * 64] exp(sin(x[j]))` gave
// dualrev a factor of 2.45, the marginal jumping at the part's start and flat after), and a
// primal whose parts grow at different rates makes a linear gradient's marginal settle, rising
// by less at each step (dualrev on `smmm`, nnz m against p m: 0.78, 0.99, 1.19, 1.33). Marginals,
// not D / P: a large fixed-size part of P flattens D / P and hid n^2 (a reviewing helper:
// `mod_dot` beside `sum[j < 3000] exp(sin(y j))`; decision 242).
constexpr double kMarginalRise = 1.02;
bool marginal_keeps_rising(const std::vector<CostPoint>& points);
constexpr double kWorkGrowth = 1.5;

// The sweep multiplies the base sizes by 1, 2 and 4, and goes on doubling up to
// kLongestSweepFactor while the marginal dD / dP has moved (up, or down by a late part of the
// primal) by more than kMarginalRise over some step (sweep_goes_on), for a reverse strategy's
// gradient or vjp, whose growth is judged:
// growth that three points cannot settle, such as n^2 beside a heavy linear body (15 nested
// calls around `mod_dot`: factor 1.45 over 3 points) or a primal part that starts late, shows
// over five (decision 242). A constant marginal, most entries, keeps 3 points.
constexpr int kShortestSweepFactor = 4, kLongestSweepFactor = 16;
bool sweep_goes_on(const std::vector<CostPoint>& points);

// "the derivative's work grows faster than the primal's (...)", with the sweep's numbers.
std::string work_growth(const Complexity& c);

// Least-squares slope of log(y) against log(x) over points with x, y > 0 (NaN if fewer than 2).
double loglog_slope(const std::vector<std::pair<double, double>>& xy);

// The size sets of a sweep: the entry's `base` sizes multiplied by each factor (sizes 0 and 1
// stay; they are structural), or the manifest's explicit "sweep" when given.
std::vector<ir::SizeMap> sweep_sizes(const ir::SuiteEntry& e, const std::string& base,
                                     const std::vector<int>& factors = {1, 2, 4});

}  // namespace adlab::checker
