// The Dual type used from C++: the test cases of digest 003 section 9 (paper 003 and the
// ad-dualrev-th test suite), on every variant.
#include <catch2/catch.hpp>
#include <cmath>
#include <memory>
#include <variant>

#include "ad/dualrev/api.h"

using namespace adlab;
using namespace adlab::ad::dualrev;

namespace {

const Variant kVariants[] = {Variant::Tape, Variant::StagedMap, Variant::Naive};

template <class F>
std::vector<double> grad(F f, const std::vector<double>& x, Variant v = Variant::Tape) {
  Tape t(TapeOptions{1, v != Variant::Naive});  // stage 1 records every operand use
  return gradient(t, f, x, v).gradient;
}

// Checks the gradient of f at x on every variant against `want`, with relative tolerance.
template <class F>
void check_all(F f, const std::vector<double>& x, const std::vector<double>& want,
               double tol = 1e-13) {
  for (Variant v : kVariants) {
    INFO("variant " << variant_name(v));
    auto g = grad(f, x, v);
    REQUIRE(g.size() == want.size());
    for (std::size_t i = 0; i < g.size(); ++i)
      CHECK(g[i] == Approx(want[i]).epsilon(tol).margin(tol));
  }
}

}  // namespace

TEST_CASE("003 section 4 running example: gradient (37, 12) exactly, staged map {0: 25, 2: 12}",
          "[dualrev]") {
  auto f = [](const std::vector<Dual>& x) {
    Dual z = x[0] + x[1];
    return x[0] * z;
  };
  for (Variant v : kVariants) {
    auto g = grad(f, {12, 13}, v);
    CHECK(g[0] == 37.0);
    CHECK(g[1] == 12.0);
  }
  // The output node's contributions are the staged calls {0 -> 25, 2 -> 12} of paper 003 section 6.
  Tape t;
  gradient(t, f, {12, 13});
  const auto out = t.job(0).nodes.edges_of(3);
  REQUIRE(out.size() == 2);
  CHECK(out[0].target == NodeId{t.job(0).id, 0});
  CHECK(out[0].partial == 25.0);
  CHECK(out[1].target == NodeId{t.job(0).id, 2});
  CHECK(out[1].partial == 12.0);
}

TEST_CASE("003 section 9 (repo): id, dup, plus, times", "[dualrev]") {
  check_all([](const std::vector<Dual>& x) { return x[0]; }, {2.5}, {1});
  Tape t;
  auto dup = vjp(t,
                 [](const std::vector<Dual>& x) {
                   return std::vector<Dual>{x[0], x[0]};
                 },
                 {2.5}, {3, 4});
  CHECK(dup[0] == 7.0);  // d1 + d2
  check_all([](const std::vector<Dual>& x) { return x[0] + x[1]; }, {2, 5}, {1, 1});
  check_all([](const std::vector<Dual>& x) { return x[0] * x[1]; }, {2, 5}, {5, 2});
}

TEST_CASE("003 section 9 (repo): sqrt, log, more math", "[dualrev]") {
  double x = 1.7, y = 0.6;
  check_all([](const std::vector<Dual>& v) { return sqrt(v[0] * v[0] + 1); }, {x},
            {x / std::sqrt(x * x + 1)});
  check_all([](const std::vector<Dual>& v) { return log(v[0]); }, {x}, {1 / x});
  check_all(
      [](const std::vector<Dual>& v) { return log(v[0]) + exp(v[1]) + exp(log(v[0] * v[1])); },
      {x, y}, {1 / x + y, std::exp(y) + x});
}

TEST_CASE("003 section 9 (repo): let and the let-order cases", "[dualrev]") {
  double x = 1.3;
  check_all(
      [](const std::vector<Dual>& v) {
        Dual y = 3 + v[0];
        return v[0] * y;
      },
      {x}, {2 * x + 3});
  auto order1 = [](const std::vector<Dual>& v) {
    Dual x1 = 2 * v[0];
    Dual x2 = x1 * (v[0] + x1);
    Dual x3 = x1 + x2 - 1;
    return v[0] * x3 - x2;
  };
  check_all(order1, {x}, {18 * x * x - 8 * x - 1});
  auto order2 = [](const std::vector<Dual>& v) {  // the same lets, bound in another order
    Dual x1 = 2 * v[0];
    Dual s = v[0] + x1;
    Dual x2 = x1 * s;
    Dual x3 = x2 - 1 + x1;
    return v[0] * x3 - x2;
  };
  check_all(order2, {x}, {18 * x * x - 8 * x - 1});
  auto order3 = [](const std::vector<Dual>& v) {
    Dual x1 = 2 * v[0];
    Dual x2 = x1 * (v[0] + x1);
    Dual x3 = x1 + x2 - 1;
    Dual x4 = x3 + x2;
    return v[0] * x3 - x4;
  };
  check_all(order3, {x}, {18 * x * x - 20 * x - 3});
  auto order4 = [](const std::vector<Dual>& v) {
    auto g = [](Dual a) { return 2 * a; };
    auto f = [](Dual a) { return a + 1; };
    Dual x1 = f(g(v[0]));
    Dual x2 = g(x1) + 1;
    return x1 + x2;
  };
  check_all(order4, {x}, {6});
}

TEST_CASE("003 section 9 (repo): higher-order and composition", "[dualrev]") {
  double x = 0.7, y = 1.9;
  check_all(
      [](const std::vector<Dual>& v) {
        auto f = [&](Dual z) { return v[0] * z + v[1]; };
        return f(v[1]) * f(v[0]);
      },
      {x, y}, {3 * x * x * y + 2 * x * y + y * y, x * x * x + x * x + 2 * x * y + 2 * y});
  check_all(
      [](const std::vector<Dual>& v) {
        auto f = [](Dual z) { return z * z; };
        auto g = [&](Dual z) { return 2 * (v[0] - z) + v[1]; };
        return g(f(v[1])) + f(g(v[0]));
      },
      {x, y}, {2, 1 - 2 * y});  // (g . f) y + (f . g) x
}

TEST_CASE("003 section 9 (repo): Fibonacci sharing and complexity2", "[dualrev]") {
  double x = 0.3, y = -0.2;
  auto fib = [](const std::vector<Dual>& v) {
    Dual a = v[0], b = v[0] + v[1];  // x0 = x, x1 = x + y
    for (int k = 2; k <= 10; ++k) {
      Dual c = b + a;
      a = b;
      b = c;
    }
    return b * b;  // x10 = 89 x + 55 y
  };
  double x10 = 89 * x + 55 * y;
  check_all(fib, {x, y}, {2 * 89 * x10, 2 * 55 * x10});
  CHECK(2 * 89 * x10 == Approx(2 * 7921 * x + 9790 * y));
  auto c2 = [](const std::vector<Dual>& v) {
    Dual xk = v[0];
    for (int k = 0; k < 10; ++k) xk = xk + xk + xk + xk + xk - xk - xk - xk;
    return 1e-6 * xk * xk;
  };
  // Staged variants resolve about 74 nodes once each; naive would make 8^10 calls.
  for (Variant v : {Variant::Tape, Variant::StagedMap}) {
    Tape t;
    ResolveOptions o;
    o.instrument = true;
    auto r = gradient(t, c2, {x}, v, o);
    CHECK(r.gradient[0] == Approx(1e-6 * std::ldexp(1.0, 21) * x).epsilon(1e-13));
    CHECK(r.stats.nodes_revisited == 0);
    CHECK(t.num_nodes() <= 75);
  }
  // Stage 1 keeps every operand use: with record-time factoring a statement's eight uses of xk
  // would be one edge (decision 116) and naive would be linear here.
  Tape t(TapeOptions{1, false});
  ResolveOptions limited;
  limited.call_limit = 1'000'000;
  CHECK_THROWS_WITH(gradient(t, c2, {x}, Variant::Naive, limited),
                    Catch::Contains("more than 1000000 backpropagator calls"));
}

TEST_CASE("003 section 9 (repo): conditional, recursion, lists, sum types", "[dualrev]") {
  auto cond = [](const std::vector<Dual>& v) { return v[0] > v[1] ? v[0] * v[1] : v[0] + v[1]; };
  check_all(cond, {3, 2}, {2, 3});
  check_all(cond, {1, 2}, {1, 1});
  // Mutually recursive f/g (paper 003 section 11: recursion costs nothing extra).
  std::function<Dual(Dual)> f, g;
  f = [&](Dual x) { return x < 10 ? f(x * 1.5 + 1) : g(x); };
  g = [&](Dual x) { return x < 1 ? x : sin(x) * x; };
  auto rec = [&](const std::vector<Dual>& v) { return f(v[0]); };
  // x -> 1.5 x + 1 applied while x < 10: from 2: 4, 7, 11.5 (three times), then sin(u) u.
  double u = ((2 * 1.5 + 1) * 1.5 + 1) * 1.5 + 1;
  check_all(rec, {2}, {1.5 * 1.5 * 1.5 * (std::cos(u) * u + std::sin(u))});
  Tape t;
  auto lists = vjp(t,
                   [](const std::vector<Dual>& v) {
                     return std::vector<Dual>{2 * v[0], 3 * v[0], v[0], v[0] + 1};
                   },
                   {0.4}, {1, 10, 100, 1000});
  CHECK(lists[0] == 2 + 30 + 100 + 1000);
  // Sum types: integer fields pass through, only the scalars are differentiated.
  using WS = std::variant<std::tuple<Dual, int, Dual>, std::pair<int, Dual>>;
  auto ws = [](const WS& w) -> Dual {
    if (auto* one = std::get_if<0>(&w))
      return static_cast<double>(std::get<1>(*one)) * std::get<0>(*one) * std::get<2>(*one);
    auto& two = std::get<1>(w);
    return static_cast<double>(two.first) + two.second;
  };
  auto g1 = grad(
      [&](const std::vector<Dual>& v) {
        return ws(WS{std::tuple{v[0], 3, v[1]}});
      },
      {0.5, 2.0});
  CHECK(g1[0] == 3 * 2.0);
  CHECK(g1[1] == 3 * 0.5);
  auto g2 = grad([&](const std::vector<Dual>& v) { return ws(WS{std::pair{4, v[0]}}); }, {0.5});
  CHECK(g2[0] == 1.0);
}

TEST_CASE("003 section 9 (repo): rotate_vec_by_quat Jacobian, 3 reverse passes", "[dualrev]") {
  // u = quaternion vector part, s = scalar part: 2 (u.v) u + (s^2 - u.u) v + 2 s (u x v)
  auto rot = [](const std::vector<Dual>& a) {
    Dual v[3] = {a[0], a[1], a[2]}, s = a[3], u[3] = {a[4], a[5], a[6]};
    Dual uv = u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
    Dual uu = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
    Dual c[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
    std::vector<Dual> r;
    for (int i = 0; i < 3; ++i) r.push_back(2 * uv * u[i] + (s * s - uu) * v[i] + 2 * s * c[i]);
    return r;
  };
  std::vector<double> x = {1, 2, 3, 4, 5, 6, 7};
  Tape t;
  for (Variant var : kVariants) {
    auto J = jacobian(t, rot, x, var);
    REQUIRE(J.size() == 3);
    // Against central differences in long double.
    for (std::size_t j = 0; j < 7; ++j) {
      auto eval = [&](long double h) {
        std::vector<long double> a(x.begin(), x.end());
        a[j] += h;
        long double v[3] = {a[0], a[1], a[2]}, s = a[3], u[3] = {a[4], a[5], a[6]};
        long double uv = u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
        long double uu = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
        long double c[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2],
                            u[0] * v[1] - u[1] * v[0]};
        std::vector<long double> r;
        for (int i = 0; i < 3; ++i) r.push_back(2 * uv * u[i] + (s * s - uu) * v[i] + 2 * s * c[i]);
        return r;
      };
      auto p = eval(1e-4L), m = eval(-1e-4L);
      for (int i = 0; i < 3; ++i)
        CHECK(J[static_cast<std::size_t>(i)][j] ==
              Approx(static_cast<double>(
                         (p[static_cast<std::size_t>(i)] - m[static_cast<std::size_t>(i)]) / 2e-4L))
                  .epsilon(1e-9)
                  .margin(1e-9));
    }
  }
}

TEST_CASE("dualrev errors: a Dual operation with no recording is an adlab::Error", "[dualrev]") {
  Tape t;
  Dual x;
  {
    Recording r(t);
    x = make_input(2.0);
  }
  CHECK_THROWS_AS(Dual(x * x), Error);  // a statement is recorded when it becomes a Dual
  CHECK_THROWS_WITH(make_input(1.0), Catch::Contains("no tape records"));
  CHECK((Dual(2.0) * Dual(3.0)).value() == 6.0);  // constants need no tape
  CHECK_THROWS_WITH(t.seed(NodeId{t.tag() | 7, 0}, 1.0),
                    Catch::Contains("not recorded on this tape"));
  CHECK_THROWS_WITH(parse_variant("fast"), Catch::Contains("unknown variant"));
}

TEST_CASE("dualrev pow: partials (y x^(y-1), x^y log x) and at y = 0 the x partial is 0, not NaN",
          "[dualrev]") {
  check_all([](const std::vector<Dual>& v) { return pow(v[0], v[1]); }, {2.0, 3.0},
            {12.0, 8.0 * std::log(2.0)});
  // x^0 = 1 for every x: before, 0 * 0^-1 made the gradient NaN at x = 0.
  check_all([](const std::vector<Dual>& v) { return pow(v[0], Dual(0.0)) * v[0]; }, {0.0}, {1.0});
  check_all([](const std::vector<Dual>& v) { return pow(v[0], v[1] * 0.0); }, {0.0, 2.0},
            {0.0, 0.0});
}

TEST_CASE("dualrev: recordings on one thread nest and stopping the outer one first is an error",
          "[dualrev]") {
  Tape outer, inner;
  outer.start();
  inner.start();
  CHECK_THROWS_WITH(outer.stop(), Catch::Contains("stop the inner one first"));
  CHECK(outer.recording());
  inner.stop();
  outer.stop();
  CHECK(tl_job == nullptr);
  Dual x, y;
  {
    Recording r(outer);
    x = make_input(2.0);
    y = x * x;
    CHECK_THROWS_WITH(outer.seed(y.id(), 1.0), Catch::Contains("still recording"));
  }
  outer.seed(y.id(), 1.0);
  outer.resolve();
  CHECK(outer.adjoint(x.id()) == 4.0);
  // An outer tape destroyed while the inner one records: the inner stop() restores what came
  // before the outer one (nothing here), not a job of the destroyed tape (ASan: use after free).
  auto doomed = std::make_unique<Tape>();
  doomed->start();
  inner.start();
  doomed.reset();
  inner.stop();
  CHECK(tl_job == nullptr);
  CHECK_THROWS_WITH(make_input(1.0), Catch::Contains("no tape records"));
}

namespace {
// A C++ user's function, once in double (for central differences) and once in Dual.
template <class F>
void check_against_differences(const char* what, F f, const std::vector<double>& x) {
  INFO(what);
  auto in_dual = [&f](const std::vector<Dual>& v) { return f(v[0], v[1]); };
  const double h = 1e-6;
  for (Variant v : kVariants) {
    INFO("variant " << variant_name(v));
    const auto g = grad(in_dual, x, v);
    REQUIRE(g.size() == 2);
    for (std::size_t i = 0; i < 2; ++i) {
      std::vector<double> up = x, down = x;
      up[i] += h;
      down[i] -= h;
      const double want = (f(up[0], up[1]) - f(down[0], down[1])) / (2 * h);
      INFO("d/dx" << i << ": got " << g[i] << ", central difference " << want);
      CHECK(g[i] == Approx(want).epsilon(1e-7).margin(1e-7));
    }
  }
}
}  // namespace

TEST_CASE("every operator and function of the C++ Dual against central differences", "[dualrev]") {
  // The IR never calls the mixed double/Dual overloads (literals become Duals), so only C++
  // users reach them: a sign error in `double / Dual` passed every suite (a mutation audit,
  // /work/stage/audit30_mutation DR19; decision 243).
  const std::vector<double> at = {0.7, 1.3};
  using std::cos, std::exp, std::expm1, std::fabs, std::floor, std::fmax, std::fmin, std::lgamma,
      std::log, std::log1p, std::pow, std::round, std::sin, std::sqrt, std::tan, std::tanh;
  check_against_differences(
      "a + b", [](auto a, auto b) { return a + b; }, at);
  check_against_differences(
      "a - b", [](auto a, auto b) { return a - b; }, at);
  check_against_differences(
      "a * b", [](auto a, auto b) { return a * b; }, at);
  check_against_differences(
      "a / b", [](auto a, auto b) { return a / b; }, at);
  check_against_differences(
      "-a * b", [](auto a, auto b) { return -a * b; }, at);
  check_against_differences(
      "2.5 + a, a + 2.5", [](auto a, auto b) { return (2.5 + a) * (b + 2.5); }, at);
  check_against_differences(
      "2.5 - a, a - 2.5", [](auto a, auto b) { return (2.5 - a) * (b - 2.5); }, at);
  check_against_differences(
      "2.5 * a, a * 2.5", [](auto a, auto b) { return (2.5 * a) * (b * 2.5); }, at);
  check_against_differences(
      "2.5 / a, a / 2.5", [](auto a, auto b) { return (2.5 / a) * (b / 2.5); }, at);
  check_against_differences(
      "compound assignments",
      [](auto a, auto b) {
        decltype(a) z = a * b;  // a Dual, not the expression template of a * b
        z += a;
        z -= b * b;
        z *= a;
        z /= b;
        return z;
      },
      at);
  check_against_differences(
      "exp, log, log1p, expm1",
      [](auto a, auto b) { return exp(a) * log(b) + log1p(a * b) - expm1(b); }, at);
  check_against_differences(
      "sin, cos, tan, tanh", [](auto a, auto b) { return sin(a) * cos(b) + tan(a) - tanh(a * b); },
      at);
  check_against_differences(
      "sqrt, fabs, pow", [](auto a, auto b) { return sqrt(a * b) + fabs(a - b) * pow(a, b); }, at);
  check_against_differences(
      "lgamma, fmin, fmax", [](auto a, auto b) { return lgamma(a + b) * fmin(a, b) + fmax(a, b); },
      at);
  check_against_differences(
      "floor and round pass no derivative",
      [](auto a, auto b) { return floor(a * 3) * b + round(b * 3) * a; }, at);
}
