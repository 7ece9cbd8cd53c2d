// The work-growth factor of the cost sweep (decision 240) on hand-made sweeps: quadratic work
// against linear, linear with other constants, fixed-size inputs, a sublinear primal, one point.
#include <catch2/catch.hpp>

#include <cmath>

#include "checker/complexity/complexity.h"

using namespace adlab::checker;

namespace {
CostPoint point(double size, std::int64_t primal_work, std::int64_t derivative_work) {
  CostPoint p;
  p.size = size;
  p.primal_work = primal_work;
  p.derivative_work = derivative_work;
  return p;
}
}  // namespace

TEST_CASE("work growth: n^2 against n is about 2 per doubling, linear against linear 1", "[unit]") {
  // iverson on sum x[(7i + 3) % n] x[i] (checker/tests/data/work_growth)
  CHECK(work_growth_factor({point(16, 47, 335), point(32, 95, 1183), point(64, 191, 4415)}) ==
        Approx((4415.0 - 1183) / (191 + 64 - 95 - 32) / ((1183.0 - 335) / (95 + 32 - 47 - 16))));
  CHECK(work_growth_factor({point(16, 47, 335), point(32, 95, 1183), point(64, 191, 4415)}) >
        kWorkGrowth);
  // linear with a large constant on one side only (an audit helper's fixed 200-entry input:
  // log-log slopes said 1.57 against 1.00)
  CHECK(work_growth_factor({point(208, 415, 639), point(216, 431, 679), point(232, 463, 759)}) ==
        Approx(1.0).margin(0.2));
  // D / P rises at every step for n^2 against n; a composition change raises it at one step only
  CHECK(work_ratio_rises({point(16, 47, 335), point(32, 95, 1183), point(64, 191, 4415)}));
  CHECK_FALSE(work_ratio_rises({point(16, 31, 31), point(32, 63, 63), point(64, 383, 639)}));
  // a primal of constant work whose gradient writes n entries: P counts the inputs
  CHECK(work_growth_factor({point(8, 1, 9), point(16, 1, 17), point(32, 1, 33)}) == Approx(1.0));
  // fewer than three points, a primal or a derivative that does not grow over the first step:
  // not judged (a reviewing helper: two points let an offset in P alone pass 1.5, and a flat
  // first step made the factor infinite for a gradient of 3, 3, 69 beside P = 9, 17, 97)
  CHECK(std::isnan(work_growth_factor({point(3000, 8999, 9014999)})));
  CHECK(std::isnan(work_growth_factor({point(20, 604, 3024), point(80, 37168, 185472)})));
  CHECK(std::isnan(work_growth_factor({point(4, 10, 20), point(4, 10, 20), point(4, 10, 20)})));
  CHECK(std::isnan(work_growth_factor({point(8, 1, 3), point(16, 1, 3), point(32, 65, 69)})));
}
