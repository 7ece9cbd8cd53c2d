// Complexity: operation counts of primal and derivative over a size sweep, log-log slopes and the
// cheap-gradient ratio (DESIGN 4.3; paper 000 Theorem 6.35 bounds reverse mode by 4).
#pragma once

#include <functional>
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
};

struct Complexity {
  std::vector<CostPoint> points;
  double primal_slope = 0,
         derivative_slope = 0;  // log-log least-squares slopes (NaN with < 2 points)
  // the same over the work (operations plus iterated domain points, CostPoint): a derivative
  // whose work grows faster than the primal's by more than kWorkSlopeExcess is not cheap, whatever
  // paper 000's model counts (decision 240)
  double primal_work_slope = 0, derivative_work_slope = 0;
  bool work_grows_faster = false;
  double ratio = 0;             // derivative / primal at the worst point of the sweep
  std::optional<double> bound;  // the manifest's cost_bound, for reverse mode
  bool within_bound = true;
  std::string error;  // the derivative failed at a sweep point where the primal ran
};

// How much faster (in log-log slope) the derivative's work may grow than the primal's: a power
// of the size more shows as about 1; constant overheads at the sweep's small sizes lower slopes.
constexpr double kWorkSlopeExcess = 0.5;

// "the derivative's work grows as size^2.01 against the primal's size^1.01 (...)".
std::string work_growth(const Complexity& c);

// Least-squares slope of log(y) against log(x) over points with x, y > 0 (NaN if fewer than 2).
double loglog_slope(const std::vector<std::pair<double, double>>& xy);

// The size sets of a sweep: the entry's `base` sizes multiplied by each factor (sizes 0 and 1
// stay; they are structural), or the manifest's explicit "sweep" when given.
std::vector<ir::SizeMap> sweep_sizes(const ir::SuiteEntry& e, const std::string& base,
                                     const std::vector<int>& factors = {1, 2, 4});

}  // namespace adlab::checker
