// The work-growth factor of the cost sweep (decisions 240, 242) on hand-made sweeps: quadratic
// work against linear, linear with other constants, fixed-size inputs, a sublinear primal, one
// point; and the longer sweep's cases: n^2 beside a heavy linear body, a primal part that starts
// late, a D / P that settles.
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
  // dD/dP doubles at every step for n^2 against n (four points needed: two steps of marginals);
  // a composition change moves it at one step only (dualrev on `sum x + sum[j < (n / 64) * 64]
  // exp(sin(x[j]))`: 0.67, 1.64, 1.43, 1.43)
  std::vector<CostPoint> square;
  for (double n : {16.0, 32.0, 64.0, 128.0})
    square.push_back(point(n, static_cast<std::int64_t>(2 * n), static_cast<std::int64_t>(n * n)));
  CHECK(marginal_keeps_rising(square));
  CHECK_FALSE(marginal_keeps_rising({square.begin(), square.begin() + 3}));
  CHECK_FALSE(marginal_keeps_rising({point(16, 31, 31), point(32, 63, 63), point(64, 383, 639),
                                     point(128, 767, 1279), point(256, 1535, 2559)}));
  // a primal of constant work whose gradient writes n entries: P counts the inputs
  CHECK(work_growth_factor({point(8, 1, 9), point(16, 1, 17), point(32, 1, 33)}) == Approx(1.0));
  // fewer than three points, a primal or a derivative that does not grow over the first step:
  // not judged (a reviewing helper: two points let an offset in P alone pass 1.5, and a flat
  // first step made the factor infinite for a gradient of 3, 3, 69 beside P = 9, 17, 97)
  CHECK(std::isnan(work_growth_factor({point(3000, 8999, 9014999)})));
  CHECK(std::isnan(work_growth_factor({point(20, 604, 3024), point(80, 37168, 185472)})));
  CHECK(std::isnan(work_growth_factor({point(4, 10, 20), point(4, 10, 20), point(4, 10, 20)})));
  CHECK(std::isnan(work_growth_factor({point(8, 1, 3), point(16, 1, 3), point(32, 65, 69)})));
  // past a flat first step, the first step that grows both is the one compared (decision 242:
  // dualrev on the helper's `x[0] x[n - 1] + sum[j < (n / 32) * 32] x[j]`, linear: 0.81)
  CHECK(work_growth_factor({point(8, 1, 3), point(16, 1, 3), point(32, 65, 69), point(64, 129, 133),
                            point(128, 257, 261)}) ==
        Approx((261.0 - 133) / (257 + 128 - 129 - 64) / ((69.0 - 3) / (65 + 32 - 1 - 16))));
}

// The sweeps of adlab 18cdbe7's check (decision 242) that three points misjudged.
TEST_CASE("work growth: the longer sweep sees what three points miss, and no more", "[unit]") {
  // iverson on poly_mod15, `mod_dot` inside 15 nested exp / sin (a reviewing helper's case,
  // /work/stage/audit29_review2 w2): 1.45 over three points, under kWorkGrowth
  const std::vector<CostPoint> heavy = {point(16, 287, 1183), point(32, 575, 2879),
                                        point(64, 1151, 7807), point(128, 2303, 23807),
                                        point(256, 4607, 80383)};
  const std::vector<CostPoint> heavy3(heavy.begin(), heavy.begin() + 3);
  CHECK(work_growth_factor(heavy3) == Approx(1.45).margin(0.01));
  CHECK(sweep_goes_on(heavy3));
  CHECK(work_growth_factor(heavy) == Approx(4.17).margin(0.01));
  CHECK(marginal_keeps_rising(heavy));
  // iverson on mod_dot + sum[j < (n / 64) * 64] x[j]^4: the part starting at the third point
  // dilutes the last marginal of three (factor 0.73); over five the last two steps show n^2
  const std::vector<CostPoint> late = {point(16, 47, 336), point(32, 95, 1184),
                                       point(64, 511, 5503), point(128, 1023, 19199),
                                       point(256, 2047, 71167)};
  CHECK(work_growth_factor({late.begin(), late.begin() + 3}) < 1);
  CHECK(work_growth_factor(late) > kWorkGrowth);
  CHECK(marginal_keeps_rising(late));
  // the part starting at the third point lowers the marginal there: the sweep goes on
  CHECK(sweep_goes_on({late.begin(), late.begin() + 3}));
  // dualrev on the same entry, linear: dD/dP jumps once, at the part's start, and stays
  const std::vector<CostPoint> late_linear = {point(16, 47, 95), point(32, 95, 191),
                                              point(64, 511, 1279), point(128, 1023, 2559),
                                              point(256, 2047, 5119)};
  CHECK(sweep_goes_on(late_linear));
  CHECK_FALSE(marginal_keeps_rising(late_linear));
  // dualrev on nablasd's smmm (density 0.01, n, p, m doubled): the primal's nnz m grows 8 times
  // per step, the input scalars 4 times, so a linear gradient's dD/dP settles: 0.78, 0.99,
  // 1.19, 1.33, each rise smaller than the last; factor 1.71, and no growth
  const std::vector<CostPoint> settling = {point(136, 127, 152), point(544, 895, 1067),
                                           point(2176, 6655, 8387), point(8704, 51199, 69383),
                                           point(34816, 401407, 571391)};
  CHECK(work_growth_factor(settling) > kWorkGrowth);
  CHECK_FALSE(marginal_keeps_rising(settling));
  // a reviewing helper's mod_dot beside a fixed sum of 3000 terms (decision 242): the fixed
  // part flattens D / P (2.81, 2.86, 3.06: under 10 % a step, so a rule on D / P neither swept
  // on nor judged), while dD/dP doubles (17.7, 33.7)
  CHECK(sweep_goes_on({point(16, 15031, 42334), point(32, 15063, 43182), point(64, 15127, 46414)}));
  // n^2 beside a large fixed offset in P: the marginal doubles
  std::vector<CostPoint> offset;
  for (double n : {16.0, 32.0, 64.0, 128.0, 256.0})
    offset.push_back(point(n, 1000, static_cast<std::int64_t>(n * n)));
  CHECK(marginal_keeps_rising(offset));
  // a constant dD/dP ends the sweep at three points
  CHECK_FALSE(sweep_goes_on({point(16, 47, 95), point(32, 95, 191), point(64, 191, 383)}));
}
