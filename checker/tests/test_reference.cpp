// Tests of the multiprecision finite-difference reference (DESIGN 4.2): Jacobians, jvp and hvp
// of programs with known derivatives, written out in mp50, Richardson extrapolation, kink reports.
#include <cmath>
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include <boost/multiprecision/cpp_bin_float.hpp>
#include <catch2/catch.hpp>

#include "checker/gradcheck/reference.h"
#include "ir/syntax/parser.h"
#include "ir/tensor/tensor_ops.h"

namespace adlab::checker {
namespace {

using ir::mp50;

// The reference is exact to about 1e-38 (steps 1e-12 in 50 digits): far below this bound.
constexpr double kExact = 1e-25;

ir::Tensor vec(std::vector<double> v) {
  ir::Tensor t;
  t.shape = {static_cast<std::int64_t>(v.size())};
  t.values = std::move(v);
  return t;
}

ir::Tensor scalar(double x) {
  ir::Tensor t;
  t.values = {x};
  return t;
}

mp50 mp(double x) {
  return mp50(x);
}

// |got - want| / |want| below kExact (|got| below kExact where the exact derivative is 0).
void check_exact(const mp50& got, const mp50& want) {
  using boost::multiprecision::abs;
  mp50 err = want == 0 ? abs(got) : abs(got - want) / abs(want);
  INFO("got " << got.str(30) << ", want " << want.str(30) << ", error " << err.str(5));
  CHECK(err < mp50(kExact));
}

void check_all_exact(const std::vector<mp50>& got, const std::vector<mp50>& want) {
  REQUIRE(got.size() == want.size());
  for (std::size_t k = 0; k < want.size(); ++k) {
    INFO("entry " << k);
    check_exact(got[k], want[k]);
  }
}

ir::FunctionPtr parse(const std::string& src, const std::string& name) {
  static std::vector<ir::Module> modules;  // keeps the functions' modules alive
  modules.push_back(ir::parse_module(src, "test_reference.adl"));
  return modules.back().entry(name);
}

const char* kExpSin = R"(
func f(x: f64[n]) -> f64 {
  return sum[i < n] exp(x[i]) * sin(x[i]) / (1 + x[i] * x[i])
}
)";

// d/dx e^x sin x / q with q = 1 + x^2: e^x N / q^2, N = (sin x + cos x) q - 2 x sin x.
mp50 exp_sin_d1(const mp50& x) {
  using namespace boost::multiprecision;
  mp50 q = 1 + x * x;
  mp50 n = (sin(x) + cos(x)) * q - 2 * x * sin(x);
  return exp(x) * n / (q * q);
}

// The second derivative: e^x ((N + N') / q^2 - 4 x N / q^3), N' = (cos x - sin x) q + 2 x sin x
// - 2 sin x.
mp50 exp_sin_d2(const mp50& x) {
  using namespace boost::multiprecision;
  mp50 q = 1 + x * x;
  mp50 n = (sin(x) + cos(x)) * q - 2 * x * sin(x);
  mp50 dn = (cos(x) - sin(x)) * q + 2 * x * sin(x) - 2 * sin(x);
  return exp(x) * ((n + dn) / (q * q) - 4 * x * n / (q * q * q));
}

TEST_CASE("reference gradient of sum exp(x) sin(x) / (1 + x^2) is exact in mp50", "[unit]") {
  auto f = parse(kExpSin, "f");
  std::vector<double> x = {-1.3, -0.2, 0.4, 0.9, 2.1};
  Reference r = reference_jacobian(*f, {vec(x)}, {});
  REQUIRE(r.in.size == x.size());
  REQUIRE(r.out.size == 1);
  REQUIRE(r.jacobian.size() == x.size());
  std::vector<mp50> want;
  for (double xi : x) want.push_back(exp_sin_d1(mp(xi)));
  check_all_exact(r.jacobian, want);
  // The primal too, and the evaluation count: 1 + 2 * levels per coordinate.
  mp50 primal = 0;
  for (double xi : x) primal += exp(mp(xi)) * sin(mp(xi)) / (1 + mp(xi) * mp(xi));
  check_exact(r.primal.at(0), primal);
  CHECK(r.evaluations == 1 + x.size() * 2 * 2);
}

TEST_CASE("a coordinate far below 1 gets a step of its own size where that resolves better",
          "[unit]") {
  // x^2 at 1e-150 with the step 1e-12 max(|x|, 1): the stencil's values are 1e-24, the
  // derivative 2e-150 is lost in 50 digits, the reference read 0 and every strategy FAILed;
  // its resolution (from |f(x0)| = 1e-300) did not say so (an audit helper; decision 224).
  // (one coordinate per run: beside a third one of 0.5, |f| = 0.25 and no step resolves them)
  auto sq = parse("func f(x: f64[n]) -> f64 { return sum[i < n] x[i] * x[i] }", "f");
  for (double x : {1e-150, -3e-50}) {
    INFO("x = " << x);
    Reference r = reference_jacobian(*sq, {vec({x})}, {});
    REQUIRE(r.jacobian.size() == 1);
    CHECK(ir::math::to_double(r.jacobian[0]) / (2 * x) == Approx(1.0).epsilon(1e-15));
    CHECK(r.resolution[0] / std::fabs(2 * x) < 1e-30);
    CHECK(r.evaluations == 1 + 2 * (2 * 3));  // both steps, one level more each
  }
  // sin(x + 1) at 1e-150 keeps the usual step: a relative one would lose it
  auto sn = parse("func f(x: f64[n]) -> f64 { return sum[i < n] sin(x[i] + 1) }", "f");
  Reference s = reference_jacobian(*sn, {vec({1e-150})}, {});
  CHECK(ir::math::to_double(s.jacobian[0]) == Approx(std::cos(1.0)).epsilon(1e-15));
  // the resolution is that of the stencil's values: a step of 1e-12 around 1e-150 sees 1e-24
  // log at 1e-10: the usual step is 1% of x (5e-10 off); at 1e-13 it leaves the domain (NaN).
  // The relative step's estimate has the smaller error estimate and is taken (decision 225).
  auto lg = parse("func f(x: f64[n]) -> f64 { return log(x[0]) }", "f");
  for (double x : {1e-10, 1e-13}) {
    INFO("x = " << x);
    Reference l = reference_jacobian(*lg, {vec({x})}, {});
    CHECK(ir::math::to_double(l.jacobian[0]) * x == Approx(1.0).epsilon(1e-14));
    // the hvp's usual step leaves the domain (1e-9 at 1e-10) and its smaller retries were 1% of
    // x (1.3e-8 off): its tiny coordinates step relative to themselves too (decision 228)
    std::vector<double> res;
    std::vector<mp50> h = reference_hvp(*lg, {vec({x})}, {}, {1.0}, {}, &res);
    CHECK(boost::multiprecision::isfinite(h[0]));
    CHECK(ir::math::to_double(h[0]) * x * x == Approx(-1.0).epsilon(1e-14));
    CHECK(res[0] < 1e-14 / (x * x));
  }
  // x^3 at 1e-100: H = 6x, which the usual step's 50 digits cannot see; sin(x + 1) keeps the
  // usual step, where the relative one's rounding would be 1e-12 (decision 228)
  auto cube = parse("func f(x: f64[n]) -> f64 { return sum[i < n] x[i] * x[i] * x[i] }", "f");
  for (double x : {1e-100, -2e-40}) {
    INFO("x = " << x);
    std::vector<double> res;
    auto h = reference_hvp(*cube, {vec({x})}, {}, {1.0}, {}, &res);
    CHECK(ir::math::to_double(h[0]) / (6 * x) == Approx(1.0).epsilon(1e-14));
    CHECK(res[0] < 1e-20 * std::fabs(6 * x));
  }
  // beside |f| = 1e-280 the resolution 1e-48 |f| / h underflowed to 0 in double and claimed an
  // exact reference that was 3.8e-14 (hvp) and 2.4e-13 (gradient) off: it is computed in mp50
  // and covers the error (a reviewing helper; decision 232)
  {
    auto shifted = parse("func f(x: f64[n]) -> f64 { return 1e-280 + x[0] * x[0] * x[0] }", "f");
    std::vector<double> res;
    auto h = reference_hvp(*shifted, {vec({1e-100})}, {}, {1.0}, {}, &res);
    const double off = std::fabs(ir::math::to_double(h[0] - mp50(6) * mp50(1e-100)));
    CHECK(res[0] > 0);
    CHECK(off <= res[0]);
    Reference r = reference_jacobian(*shifted, {vec({1e-102})}, {});
    const double goff =
        std::fabs(ir::math::to_double(r.jacobian[0] - mp50(3) * mp50(1e-102) * mp50(1e-102)));
    CHECK(r.resolution[0] > 0);
    CHECK(goff <= r.resolution[0]);
  }
  {
    std::vector<double> res;
    auto h = reference_hvp(*sn, {vec({1e-150})}, {}, {1.0}, {}, &res);
    CHECK(ir::math::to_double(h[0]) == Approx(-std::sin(1.0)).epsilon(1e-15));
    CHECK(res[0] < 1e-20);
  }
  // The usual step wins where it is the better one: exp(1e7 x) at 1e-31 and 1e30 + sin(1e8 x) at
  // 1e-4 took the relative step when its truncation was judged by the level-0 difference
  // instead of the extrapolation's (3e-15 off, slack 2e-12; a reviewing helper, decision 227).
  for (const auto& [src, x, d] :
       {std::tuple{"func f(x: f64[n]) -> f64 { return exp(1e7 * x[0]) }", 1e-31, 1e7},
        std::tuple{"func f(x: f64[n]) -> f64 { return 1e30 + sin(1e8 * x[0]) }", 1e-4,
                   ir::math::to_double(mp50(1e8) * cos(mp50(1e8) * mp50(1e-4)))}}) {
    INFO(src);
    Reference e = reference_jacobian(*parse(src, "f"), {vec({x})}, {});
    CHECK(ir::math::to_double(e.jacobian[0]) == Approx(d).epsilon(1e-15));
    CHECK(e.resolution[0] < 1e-12 * std::fabs(d));
  }
  Reference u = reference_jacobian(*sq, {vec({0.0})}, {});  // 0 takes the usual step only
  CHECK(u.resolution[0] > kMpResolution * 1e-24 / 1e-12 / 2);
}

TEST_CASE("a smooth column whose truncation has not settled is retaken (decision 256)", "[unit]") {
  // 3 sin(x) + c at x = 1e10 (an audit helper's z4_ctl_far): the step 1e-12 max(|x|, 1) is
  // 0.01, Richardson's value was 2.1e-11 off and every right strategy FAILed. Retaken with more
  // levels at smaller steps it is exact, beside c = 1e30 too, where 50 digits allow no step
  // below about 1e-3 (rounding 1e-20 / h).
  auto f = parse("func f(x: f64, c: f64) -> f64 { return 3.0 * sin(x) + c }", "f");
  for (double c : {0.0, 1e30}) {
    INFO("c = " << c);
    Reference r = reference_jacobian(*f, {scalar(1e10), scalar(c)}, {"x"});
    REQUIRE(r.jacobian.size() == 1);
    const mp50 want = 3 * cos(mp(1e10));
    using boost::multiprecision::abs;
    CHECK(ir::math::to_double(abs(r.jacobian[0] - want) / want) < (c == 0 ? kExact : 1e-16));
    INFO("resolution " << r.resolution[0]);
    CHECK(r.resolution[0] < (c == 0 ? 1e-30 : 1e-14));  // a double tolerance: 4.5e-14
    CHECK(r.evaluations > 1 + 2 * 2);                   // retaken
  }
  // sin(1e11 x) at x = 0.5: the step is 0.1 of sin's argument, whatever |x|
  auto fast = parse("func f(x: f64) -> f64 { return sin(1e11 * x) }", "f");
  Reference r = reference_jacobian(*fast, {scalar(0.5)}, {});
  const mp50 want = mp(1e11) * cos(mp(1e11) * mp(0.5));
  check_exact(r.jacobian[0], want);
  // x = 1e14 and 1e20: steps of 100 and 1e8 alias sin into small values with small estimates;
  // the retakes go on past one that improves nothing, down to steps 1e21 times smaller (a
  // reviewing helper: the first version stopped at the first honest retake, which looked worse)
  auto sine = parse("func f(x: f64) -> f64 { return sin(x) }", "f");
  for (double x : {1e14, 1e20}) {
    INFO("x = " << x);
    check_exact(reference_jacobian(*sine, {scalar(x)}, {}).jacobian.at(0), cos(mp(x)));
  }
  // a column that is NaN (its stencil leaves log's or sqrt's domain: the edge 1e-13 away) is
  // retaken inside it, not taken as settled (an audit fuzz, /work/stage/audit39_fuzz r3)
  auto edge = parse("func f(s: f64) -> f64 { return log(s + 1e-13) }", "f");
  check_exact(reference_jacobian(*edge, {scalar(0.0)}, {}).jacobian.at(0), 1 / mp(1e-13));
  auto root_edge = parse("func f(s: f64) -> f64 { return sqrt(s - 2.9999999999999) }", "f");
  const mp50 d = mp(3.0) - mp(2.9999999999999);
  check_exact(reference_hvp(*root_edge, {scalar(3.0)}, {}, {1.0}).at(0),
              -1 / (4 * d * boost::multiprecision::sqrt(d)));
  // a column that settles at once is not retaken
  Reference once = reference_jacobian(*f, {scalar(1.3), scalar(0.0)}, {"x"});
  CHECK(once.evaluations == 1 + 2 * 2);
}

TEST_CASE("an hvp whose truncation has not settled is retaken (decision 256)", "[unit]") {
  // sin(x) y at x = 1e10, y = 2: step2 max(|x|, 1) is 10, and H v was 4 % off.
  // H = [[-sin(x) y, cos(x)], [cos(x), 0]].
  auto f = parse("func f(x: f64, y: f64) -> f64 { return sin(x) * y }", "f");
  const std::vector<double> v = {0.625, -0.75};
  const mp50 x = mp(1e10), y = mp(2);
  const std::vector<mp50> want = {-sin(x) * y * mp(v[0]) + cos(x) * mp(v[1]), cos(x) * mp(v[0])};
  std::vector<double> res;
  check_all_exact(reference_hvp(*f, {scalar(1e10), scalar(2)}, {}, v, {}, &res), want);
  for (double r : res) {
    INFO("resolution " << r);
    CHECK(r < 1e-20);
  }
}

TEST_CASE("the hvp at a branch point: a Hessian that exists is judged, one that does not is a kink",
          "[unit]") {
  // decision 257: (x x)^1.5 = |x|^3 at 0 has H = 0, but its second differences are c h, and
  // Richardson's value FAILed every right 0; x |x| + 2 x^2 has f'' = 2 left and 6 right, and
  // the central difference, their mean 4, PASSed fwdvec's 4; (x x)^0.75 = |x|^1.5 has no
  // Hessian (its second differences grow as h^-0.5, and Aitken's antilimit read 0).
  auto cube = parse("func f(x: f64) -> f64 { return pow(x * x, 1.5) + 3.0 * x * x }", "f");
  std::vector<double> res;
  auto h = reference_hvp(*cube, {scalar(0.0)}, {}, {1.0}, {}, &res);
  REQUIRE(h.size() == 1);
  check_exact(h[0], mp(6));
  CHECK(res[0] < 1e-30);
  auto x_abs_x = parse("func f(x: f64) -> f64 { return x * sqrt(x * x) + 2.0 * x * x }", "f");
  CHECK_THROWS_WITH(reference_hvp(*x_abs_x, {scalar(0.0)}, {}, {1.0}),
                    Catch::Contains("one-sided second derivatives differ"));
  auto root = parse("func f(x: f64) -> f64 { return pow(x * x, 0.75) }", "f");
  CHECK_THROWS_AS(reference_hvp(*root, {scalar(0.0)}, {}, {1.0}), StencilCrossesSwitch);
  // beside 3 x^2 the antilimit is 6, within rounding in every window
  auto root_plus = parse("func f(x: f64) -> f64 { return pow(x * x, 0.75) + 3.0 * x * x }", "f");
  CHECK_THROWS_AS(reference_hvp(*root_plus, {scalar(0.0)}, {}, {1.0}), StencilCrossesSwitch);
  // the mixed case: x |y| at the origin has no d2f/dxdy; along (1, 1) it is t |t|
  auto mixed = parse("func f(x: f64, y: f64) -> f64 { return x * sqrt(y * y) }", "f");
  CHECK_THROWS_AS(reference_hvp(*mixed, {scalar(0.0), scalar(0.0)}, {}, {0.625, -0.75}),
                  StencilCrossesSwitch);
}

TEST_CASE("a kink beside a smooth term whose slope gap shrinks with the step (decision 259)",
          "[unit]") {
  // The one-sided slopes' gap is the jump plus h f'': compared first level to last, 4 -> 3 read
  // as closing and a reference of 3 PASSed a one-sided derivative (a reviewing helper,
  // /work/stage/audit39_review s4). Its limit, Aitken over three windows, is the jump.
  auto abs_quad = parse(
      "func f(x: f64, c: f64) -> f64 { return sqrt((x - c) * (x - c)) + 1000.0 * (x - c) * (x - c) "
      "+ 3.0 * x }",
      "f");
  Reference r = reference_jacobian(*abs_quad, {scalar(1e9), scalar(1e9)}, {"x"});
  CHECK(r.branch_change);
  CHECK_THAT(r.branch_note, Catch::Contains("one-sided slopes differ"));
  auto hidden =
      parse("func f(x: f64) -> f64 { return sqrt(x * x) + 1e8 * pow(x * x, 0.75) + 3.0 * x }", "f");
  CHECK(reference_jacobian(*hidden, {scalar(0.0)}, {}).branch_change);
  // the bar for a limit of 0 is the windows' spread, not a fraction of the gaps or pairs: a
  // smooth part 1e6 times the jump (|x| + cos(2e9 x)) and |x| + 1e8 |x|^1.1 (pairs 2 + 1.1e7
  // h^0.1) PASSed forward mode's mean (a reviewing helper, /work/stage/audit40_review)
  for (const char* body :
       {"sqrt(x * x) + cos(2e9 * x) + 3.0 * x", "sqrt(x * x) + 1e8 * pow(x * x, 0.55) + 3.0 * x"}) {
    INFO(body);
    auto g = parse(std::string("func f(x: f64) -> f64 { return ") + body + " }", "f");
    CHECK(reference_jacobian(*g, {scalar(0.0)}, {}).branch_change);
  }
  // and differentiable branch points stay judged: |x|^1.5 (gap c h^0.5), x |x| (0), x^2
  for (const char* body : {"pow(x * x, 0.75)", "x * sqrt(x * x)", "sqrt(x * x * x * x)",
                           "pow(x * x, 0.75) + 5.0 * x * x + 2.0 * x"}) {
    INFO(body);
    auto g = parse(std::string("func f(x: f64) -> f64 { return ") + body + " }", "f");
    Reference d = reference_jacobian(*g, {scalar(0.0)}, {});
    CHECK_FALSE(d.branch_change);
  }
}

TEST_CASE("the hvp's one-sided test sees a jump of f'' beside a smooth term and off the axes",
          "[unit]") {
  // decision 259 (a reviewing helper's s4 and s2): sin(3000 x)'s 2 h f''' shrank the gap
  // 58 -> 31 and hid x |x|'s jump of 4; x |y| + y |x| is smooth along the axes and along a v
  // of mixed signs, and t |t| along (1, 1)
  auto sine = parse(
      "func f(x: f64) -> f64 { return x * sqrt(x * x) + sin(3000.0 * x) + 2.0 * x * x }", "f");
  CHECK_THROWS_WITH(reference_hvp(*sine, {scalar(0.0)}, {}, {1.0}),
                    Catch::Contains("one-sided second derivatives differ"));
  auto faster =
      parse("func f(x: f64) -> f64 { return x * sqrt(x * x) + sin(2e5 * x) + 2.0 * x * x }", "f");
  CHECK_THROWS_WITH(reference_hvp(*faster, {scalar(0.0)}, {}, {1.0}),
                    Catch::Contains("one-sided second derivatives differ"));
  auto plus = parse(
      "func f(x: f64, y: f64) -> f64 { return x * sqrt(y * y) + y * sqrt(x * x) + x * x + 3.0 * x "
      "* y + y * y }",
      "f");
  CHECK_THROWS_WITH(reference_hvp(*plus, {scalar(0.0), scalar(0.0)}, {}, {0.625, -0.75}),
                    Catch::Contains("one-sided second derivatives differ"));
  // a Hessian with a zero entry is judged (its rounding against H v's largest, not 1e-50):
  // |x|^3 + y^2, H = diag(0, 2)
  auto sep = parse("func f(x: f64, y: f64) -> f64 { return pow(x * x, 1.5) + y * y }", "f");
  std::vector<double> res;
  const std::vector<double> v = {0.625, -0.75};
  check_all_exact(reference_hvp(*sep, {scalar(0.0), scalar(0.0)}, {}, v, {}, &res),
                  {mp(0), 2 * mp(v[1])});
}

TEST_CASE("reference hvp of sum exp(x) sin(x) / (1 + x^2) is the diagonal Hessian", "[unit]") {
  auto f = parse(kExpSin, "f");
  std::vector<double> x = {-1.3, -0.2, 0.4, 0.9, 2.1};
  std::vector<double> v = {0.5, -1.0, 2.0, 0.25, -0.75};
  auto hv = reference_hvp(*f, {vec(x)}, {}, v);
  std::vector<mp50> want;
  for (std::size_t k = 0; k < x.size(); ++k) want.push_back(exp_sin_d2(mp(x[k])) * mp(v[k]));
  check_all_exact(hv, want);
}

const char* kLogSumExp = R"(
func lse(x: f64[n]) -> f64 {
  return log(sum[i < n] exp(x[i]))
}
)";

// softmax(x) in mp50
std::vector<mp50> softmax(const std::vector<double>& x) {
  std::vector<mp50> p;
  mp50 s = 0;
  for (double xi : x) {
    p.push_back(exp(mp(xi)));
    s += p.back();
  }
  for (auto& e : p) e /= s;
  return p;
}

TEST_CASE("reference gradient of log-sum-exp is the softmax", "[unit]") {
  auto f = parse(kLogSumExp, "lse");
  std::vector<double> x = {0.3, -2.0, 1.7, 0.0, -0.6, 4.2};
  Reference r = reference_jacobian(*f, {vec(x)}, {});
  check_all_exact(r.jacobian, softmax(x));
}

TEST_CASE("reference hvp of log-sum-exp is diag(p) v - p (p . v)", "[unit]") {
  auto f = parse(kLogSumExp, "lse");
  std::vector<double> x = {0.3, -2.0, 1.7, 0.0, -0.6, 4.2};
  std::vector<double> v = {1.0, 0.5, -0.25, 2.0, -1.5, 0.125};
  auto p = softmax(x);
  mp50 pv = 0;
  for (std::size_t k = 0; k < x.size(); ++k) pv += p[k] * mp(v[k]);
  std::vector<mp50> want;
  for (std::size_t k = 0; k < x.size(); ++k) want.push_back(p[k] * mp(v[k]) - p[k] * pv);
  check_all_exact(reference_hvp(*f, {vec(x)}, {}, v), want);
}

TEST_CASE("the hvp reference steps each coordinate by its own scale, not the largest one",
          "[unit]") {
  // f = a max(b, 0)^2 at a = 1e8, b = 0.05 (an audit helper; decision 204): the step along v
  // was 1e-9 |a| = 0.1 in every coordinate, so b crossed max's kink at 0 and the reference was
  // 2.6 % off; a correct hvp FAILed. H = [[0, 2b], [2b, 2a]].
  auto f =
      parse("func f(a: f64, b: f64) -> f64 {\n  return a * max(b, 0.0) * max(b, 0.0)\n}\n", "f");
  const std::vector<double> v = {0.625, -0.75};
  const mp50 a = mp(1e8), b = mp(0.05);
  const std::vector<mp50> want = {2 * b * mp(v[1]), 2 * b * mp(v[0]) + 2 * a * mp(v[1])};
  check_all_exact(reference_hvp(*f, {scalar(1e8), scalar(0.05)}, {}, v), want);
}

TEST_CASE("the hvp reference takes a smaller step where its stencil crosses a switch", "[unit]") {
  // select(y > 0, y^2, 0), y = 1e6 (x - 1), at x = 1 + 1e-10 (an audit helper; decision 210):
  // step2's stencil (1e-9) crossed the switch the Jacobian's (1e-12) did not, and the reference
  // H was 1.03e12 for 2e12, so correct hvps FAILed and one matching the bad reference passed.
  const char* src =
      "func sq(x: f64) -> f64 {\n  let y = 1e6 * (x - 1)\n  return select(y > 0, y * y, 0)\n}\n";
  auto f = parse(src, "sq");
  const double x = 1.0000000001;
  const mp50 want = 2 * mp(1e12);
  std::vector<double> res;
  auto hv = reference_hvp(*f, {scalar(x)}, {}, {1.0}, {}, &res);
  REQUIRE(hv.size() == 1);
  CHECK(ir::math::to_double(boost::multiprecision::abs(hv[0] - want) / want) < 1e-15);
  // With every step tried crossing it (steps from 1e-3 down to 1e-9), the reference declines.
  ReferenceOptions coarse;
  coarse.step2 = 1e-3;
  CHECK_THROWS_AS(reference_hvp(*f, {scalar(x)}, {}, {1.0}, coarse), StencilCrossesSwitch);
}

// Two results, two parameters: rows are results in order, columns parameters in order.
const char* kVectorMap = R"(
func F(x: f64[3], w: f64) -> (f64[2], f64) {
  let y = gen[i < 2] [i == 0] * (x[0] * x[1] * sin(x[2])) + [i == 1] * (exp(x[0]) + x[1] * x[1] / x[2])
  return (y, w * x[0] * x[0])
}
)";

// The exact Jacobian of F: 3 rows (y0, y1, z), 4 columns (x0, x1, x2, w).
std::vector<mp50> vector_map_jacobian(const std::vector<double>& xd, double wd) {
  using namespace boost::multiprecision;
  mp50 x0 = xd[0], x1 = xd[1], x2 = xd[2], w = wd;
  return {x1 * sin(x2),
          x0 * sin(x2),
          x0 * x1 * cos(x2),
          0,
          exp(x0),
          2 * x1 / x2,
          -x1 * x1 / (x2 * x2),
          0,
          2 * w * x0,
          0,
          0,
          x0 * x0};
}

TEST_CASE("reference Jacobian of a vector-valued map with two results and two parameters",
          "[unit]") {
  auto f = parse(kVectorMap, "F");
  std::vector<double> x = {0.7, -1.2, 1.9};
  double w = -0.4;
  Reference r = reference_jacobian(*f, {vec(x), scalar(w)}, {});
  REQUIRE(r.in.size == 4);
  REQUIRE(r.out.size == 3);
  REQUIRE(r.in.blocks.size() == 2);
  CHECK(r.in.blocks[0].name == "x");
  CHECK(r.in.blocks[1].name == "w");
  CHECK(r.in.blocks[1].offset == 3);
  REQUIRE(r.out.blocks.size() == 2);
  CHECK(r.out.blocks[0].name == "result 0");
  CHECK(r.out.describe(1, r.results) == "result 0[1]");
  CHECK(r.out.describe(2, r.results) == "result 1");
  CHECK(r.in.describe(2, {vec(x), scalar(w)}) == "x[2]");
  check_all_exact(r.jacobian, vector_map_jacobian(x, w));
}

TEST_CASE("reference Jacobian restricted to some parameters has only their columns", "[unit]") {
  auto f = parse(kVectorMap, "F");
  std::vector<double> x = {0.7, -1.2, 1.9};
  Reference r = reference_jacobian(*f, {vec(x), scalar(-0.4)}, {"w"});
  REQUIRE(r.in.size == 1);
  auto full = vector_map_jacobian(x, -0.4);
  check_all_exact(r.jacobian, {full[3], full[7], full[11]});
}

TEST_CASE("reference jvp of a vector-valued map is J v", "[unit]") {
  auto f = parse(kVectorMap, "F");
  std::vector<double> x = {0.7, -1.2, 1.9};
  double w = -0.4;
  std::vector<double> v = {0.3, -0.8, 1.1, 2.0};
  auto jv = reference_jvp(*f, {vec(x), scalar(w)}, {}, v);
  auto J = vector_map_jacobian(x, w);
  std::vector<mp50> want(3, mp50(0));
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t j = 0; j < 4; ++j) want[i] += J[i * 4 + j] * mp(v[j]);
  check_all_exact(jv, want);
}

TEST_CASE("reference jvp rejects a direction of the wrong size", "[unit]") {
  auto f = parse(kVectorMap, "F");
  try {
    reference_jvp(*f, {vec({0.7, -1.2, 1.9}), scalar(0.5)}, {}, {1.0, 2.0});
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.message() == "a direction of size 2 for 4 inputs");
  }
}

const char* kSparse = R"(
func g(A: f64[n, m] @csr, x: f64[m]) -> f64 {
  return sum[(i, j) in A] sin(A[i, j]) * x[j] * x[j]
}
)";

TEST_CASE("reference gradient for a @csr input covers its stored entries only", "[unit]") {
  auto f = parse(kSparse, "g");
  // 3 x 4 with 5 stored entries, one an explicit zero (a coordinate all the same).
  ir::Tensor A = ir::make_csr(3, 4, {0, 2, 2, 5}, {0, 3, 1, 2, 3}, {0.5, -1.1, 0.0, 2.3, 0.8});
  std::vector<double> x = {1.5, -0.7, 0.4, 1.2};
  std::vector<ir::Tensor> inputs = {A, vec(x)};
  Reference r = reference_jacobian(*f, inputs, {"A"});
  REQUIRE(r.in.size == 5);
  REQUIRE(r.in.size == static_cast<std::size_t>(A.nnz()));
  CHECK(r.in.blocks[0].storage == ir::Storage::Csr);
  CHECK(r.in.describe(0, inputs) == "A[0, 0]");
  CHECK(r.in.describe(1, inputs) == "A[0, 3]");
  CHECK(r.in.describe(4, inputs) == "A[2, 3]");
  // d/dA_ij = cos(A_ij) x_j^2 at the stored (i, j).
  std::vector<std::int64_t> cols = {0, 3, 1, 2, 3};
  std::vector<mp50> want;
  for (std::size_t k = 0; k < 5; ++k) {
    mp50 xj = x[static_cast<std::size_t>(cols[k])];
    want.push_back(cos(mp(A.values[k])) * xj * xj);
  }
  check_all_exact(r.jacobian, want);

  SECTION("with the dense parameter too, its columns follow the stored entries") {
    Reference both = reference_jacobian(*f, inputs, {});
    REQUIRE(both.in.size == 5 + 4);
    // d/dx_j = 2 x_j sum over stored entries of column j of sin(A_ij).
    std::vector<mp50> col_sum(4, mp50(0));
    for (std::size_t k = 0; k < 5; ++k)
      col_sum[static_cast<std::size_t>(cols[k])] += sin(mp(A.values[k]));
    for (std::size_t j = 0; j < 4; ++j) want.push_back(2 * mp(x[j]) * col_sum[j]);
    check_all_exact(both.jacobian, want);
  }
}

TEST_CASE("richardson extrapolation removes the even powers of h", "[unit]") {
  // d(h) = L + c1 h^2 + c2 h^4, sampled at h, h/2, h/4.
  const mp50 L = mp50(1) / 3, c1 = 7, c2 = -5, h = mp50(1) / 10;
  auto d = [&](const mp50& s) { return L + c1 * s * s + c2 * s * s * s * s; };
  SECTION("three levels recover L exactly") {
    check_exact(richardson({d(h), d(h / 2), d(h / 4)}), L);
  }
  SECTION("two levels leave -c2 h^4 / 4") {
    check_exact(richardson({d(h), d(h / 2)}), L - c2 * h * h * h * h / 4);
  }
  SECTION("one level is the estimate itself") {
    check_exact(richardson({d(h)}), d(h));
  }
  SECTION("a central difference of sin at 1 with 3 steps") {
    using boost::multiprecision::cos;
    using boost::multiprecision::sin;
    const mp50 x = 1, step = mp50(1) / 1000;
    std::vector<mp50> est;
    for (int k = 0; k < 3; ++k) {
      mp50 s = step / (1 << k);
      est.push_back((sin(x + s) - sin(x - s)) / (2 * s));
    }
    // The h^6 term remains: about 1e-18 * cos(1) / 5040 * (correction factor) < 1e-20.
    mp50 err = abs(richardson(est) - cos(x));
    CHECK(err < mp50(1e-20));
    CHECK(abs(est.back() - cos(x)) > mp50(1e-9));  // without extrapolation: h^2 cos(1) / 6
  }
}

const char* kAbs = R"(
func k(x: f64) -> f64 {
  return abs(x - 0.3)
}
)";

TEST_CASE("the reference reports how close the primal came to a kink", "[unit]") {
  auto f = parse(kAbs, "k");
  SECTION("abs(x - 0.3) at x = 0.3 is at the kink") {
    Reference r = reference_jacobian(*f, {scalar(0.3)}, {});
    CHECK(r.kink.margin == 0.0);
    CHECK(r.kink.what == "abs");
  }
  SECTION("abs(x - 0.3) at x = 0.5 is 0.2 away") {
    Reference r = reference_jacobian(*f, {scalar(0.5)}, {});
    CHECK(r.kink.margin == Approx(0.2).epsilon(1e-12));
    CHECK(r.kink.what == "abs");
    check_exact(r.jacobian.at(0), mp50(1));
  }
  SECTION("a smooth program reports no kink") {
    Reference r = reference_jacobian(*parse(kLogSumExp, "lse"), {vec({0.1, 0.2})}, {});
    CHECK(std::isinf(r.kink.margin));
  }
}

TEST_CASE("a switch no differentiated input can move is no kink (decision 207)", "[unit]") {
  // select(c > 0, x^2, x^3) at c = 0 (an audit helper): the tie on c made every cell AT-KINK
  // although moving x never crosses it. Differentiated by c too, it is a kink.
  auto f = parse(
      "func f(x: f64[n], c: f64) -> f64 {\n"
      "  return sum[i < n] select(c > 0.0, x[i] * x[i], x[i] * x[i] * x[i])\n}\n",
      "f");
  const std::vector<ir::Tensor> in = {vec({0.5, 1.5}), scalar(0.0)};
  CHECK(std::isinf(reference_jacobian(*f, in, {"x"}).kink.margin));
  CHECK(reference_jacobian(*f, in, {"x", "c"}).kink.margin == 0.0);
  // a loop's state reads what its body reads: s comes within 0.002 of 1 at the last step
  auto g = parse(
      "func g(x: f64) -> f64 {\n"
      "  return loop[t < 3] (s = 0.0) { next select(s > 1.0, s, s + x) }\n}\n",
      "g");
  Reference rg = reference_jacobian(*g, {scalar(0.499)}, {});
  CHECK(rg.kink.margin == Approx(0.002).epsilon(1e-9));
  // a callee's switches count whatever its arguments read
  auto h = parse(
      "func r(a: f64) -> f64 {\n  return max(a, 1.0)\n}\n"
      "func h(x: f64, c: f64) -> f64 {\n  return x * r(c)\n}\n",
      "h");
  CHECK(reference_jacobian(*h, {scalar(2.0), scalar(1.0)}, {"x"}).kink.margin == 0.0);
}

// Bug: the interpreter skips exact ties of float comparisons and of min/max (it takes them for a
// value compared with itself), so a kink hit exactly is not reported and the central-difference
// reference there is the mean of the one-sided derivatives.
TEST_CASE("a comparison or a max at an exact tie reports margin 0", "[unit]") {
  SECTION("select(x > 0.3, x, 0.3) at x = 0.3") {
    auto f = parse("func s(x: f64) -> f64 {\n  return select(x > 0.3, x, 0.3)\n}\n", "s");
    Reference r = reference_jacobian(*f, {scalar(0.3)}, {});
    INFO("margin " << r.kink.margin << ", what " << r.kink.what);
    CHECK(r.kink.margin == 0.0);
    CHECK(r.kink.what == "comparison");
  }
  SECTION("max(x, 0.3) at x = 0.3") {
    auto f = parse("func m(x: f64) -> f64 {\n  return max(x, 0.3)\n}\n", "m");
    Reference r = reference_jacobian(*f, {scalar(0.3)}, {});
    INFO("margin " << r.kink.margin << ", what " << r.kink.what);
    CHECK(r.kink.margin == 0.0);
  }
}

// A near switch that the stencil does not cross is seen only through its margin: each kind of
// switch must report it, not inf (decision 253: a mutation audit found no test for max/min
// reductions, scans, floor and i64 conversions)
TEST_CASE("a near max reduction or scan max or floor or i64 conversion reports its margin",
          "[unit]") {
  struct NearSwitch {
    const char* source;
    const char* name;
    ir::Tensor at;  // 2^-30 from the switch
    const char* what;
  };
  const NearSwitch cases[] = {
      {"func r(x: f64[n]) -> f64 {\n  return max[i < n] x[i]\n}\n", "r", vec({1.0, 1.0 + 0x1p-30}),
       "max reduction"},
      {"func s(x: f64[n]) -> f64 {\n  return sum[i < n] (scan[j < n] (max) x[j])[i]\n}\n", "s",
       vec({1.0, 1.0 + 0x1p-30}), "scan max/min"},
      {"func c(x: f64) -> f64 {\n  return x * f64(i64(x))\n}\n", "c", scalar(3.0 + 0x1p-30),
       "i64 conversion"},
      {"func fl(x: f64) -> f64 {\n  return x * floor(x)\n}\n", "fl", scalar(3.0 + 0x1p-30),
       "floor"},
  };
  for (const auto& c : cases) {
    auto f = parse(c.source, c.name);
    Reference r = reference_jacobian(*f, {c.at}, {});
    INFO(c.what << ": margin " << r.kink.margin << ", what " << r.kink.what);
    CHECK(r.kink.margin < 1e-8);
    CHECK(r.kink.what == c.what);
  }
}

}  // namespace
}  // namespace adlab::checker

TEST_CASE("an empty layout (n = 0, no stored entries) has no worst entry to name, not an error",
          "[unit]") {
  // every gradient cell of an n = 0 entry was ERROR "coordinate 0 is outside the layout"
  using adlab::checker::Block;
  using adlab::checker::Layout;
  Layout empty;
  empty.blocks.push_back(Block{"x", 0, 0, 0, adlab::ir::Storage::Dense, {0}});
  CHECK(empty.describe(0, {}) == "(no entries)");
  Layout one;
  one.blocks.push_back(Block{"x", 0, 0, 1, adlab::ir::Storage::Dense, {1}});
  one.size = 1;
  CHECK_THROWS_WITH(one.describe(3, {}), Catch::Contains("outside the layout"));
}

namespace adlab::checker {
namespace {

TEST_CASE("the reference refuses f32(x) of a floating x: differences see its rounding steps",
          "[unit]") {
  // Central differences of f64(f32(x)) * x measured x's partial only (f32(x) looked constant),
  // so a strategy dropping the f32 path passed and a right one failed (found by an audit
  // helper). Such a program is an ERROR for the checker, named at the conversion.
  auto f =
      parse("func r32(x: f64[n]) -> f64 {\n  return sum[i < n] f64(f32(x[i])) * x[i]\n}\n", "r32");
  CHECK_THROWS_WITH(reference_jacobian(*f, {vec({0.1, 0.7})}, {}),
                    Catch::Contains("test_reference.adl:2:25: error: the checker's reference: "
                                    "`f32(x[i])` rounds a floating value to f32"));
  // An f32 parameter (no rounding of a floating value inside) is still checked.
  auto g =
      parse("func s32(x: f32[n]) -> f64 {\n  return sum[i < n] f64(x[i]) * f64(x[i])\n}\n", "s32");
  ir::Tensor x = vec({0.5, -1.5});
  x.elem = ir::ElemType::F32;
  Reference r = reference_jacobian(*g, {x}, {});
  REQUIRE(r.jacobian.size() == 2);
  CHECK(ir::math::to_double(r.jacobian[0]) == Approx(1.0).epsilon(1e-12));
  CHECK(ir::math::to_double(r.jacobian[1]) == Approx(-3.0).epsilon(1e-12));
}

}  // namespace
}  // namespace adlab::checker
