// The worked example of docs/adding-a-strategy.md: `dualfwd` registered from outside ad/, then
// checked the way any strategy is (step 5 of the tutorial).
#include <catch2/catch.hpp>
#include <cmath>

#include "checker/harness/harness.h"
#include "examples/dualfwd/dual.h"
#include "examples/dualfwd/dualfwd_strategy.h"
#include "ir/suite/manifest.h"
#include "ir/syntax/parser.h"

using namespace adlab;
using examples::dualfwd::Dual;

namespace {

// A strategy is registered once per process; the CLI's are in ad/strategy.cpp.
const ad::Strategy& registered() {
  static const ad::Strategy* s = [] {
    ad::StrategyRegistry::instance().add(examples::dualfwd::make_dualfwd_strategy());
    return ad::StrategyRegistry::instance().find("dualfwd");
  }();
  return *s;
}

std::string suites_root() {
  return std::string(ADLAB_SOURCE_DIR) + "/suites";
}

// Every supported cell PASSes (or is a kink its entry expects), closed forms and adjoint tests
// pass, and every UNSUPPORTED cell says it was dualfwd that declined and why.
void check_never_wrong(const checker::HarnessResult& r, std::size_t min_pass) {
  std::size_t pass = 0;
  for (const auto& c : r.cells) {
    INFO(c.entry << " " << c.mode << ": " << c.detail);
    if (c.status == checker::Status::Pass) ++pass;
    if (c.status == checker::Status::AtKink) CHECK(c.expected_kink);
    if (c.status == checker::Status::Unsupported)
      CHECK(c.detail.find("dualfwd") != std::string::npos);
    CHECK((c.status == checker::Status::Pass || c.status == checker::Status::Unsupported ||
           c.status == checker::Status::AtKink));
  }
  CHECK(pass >= min_pass);
  for (const auto& cf : r.closed_forms) {
    INFO(cf.entry << ": " << cf.detail);
    CHECK(cf.status == checker::Status::Pass);
  }
  for (const auto& a : r.adjoints) {
    INFO(a.entry << ": " << a.lhs << " vs " << a.rhs << " " << a.detail);
    CHECK(a.status == checker::Status::Pass);
  }
}

}  // namespace

TEST_CASE("dualfwd's Dual: the product and chain rules, and a zero tangent through sqrt at 0",
          "[unit]") {
  const Dual x(1.0, 1.0), y(2.0);  // d/dx of sin(x) y at (1, 2): 2 cos(1)
  const Dual f = sin(x) * y;
  CHECK(f.value() == std::sin(1.0) * 2.0);
  CHECK(f.tangent() == std::cos(1.0) * 2.0);
  // sqrt(max(x, 0)) at x = -1: the tangent entering sqrt is 0, its partial infinite; 0, not NaN
  const Dual z = sqrt(Dual(0.0, 0.0));
  CHECK(z.tangent() == 0.0);
  CHECK(std::isinf(sqrt(Dual(0.0, 1.0)).tangent()));  // |x|'s cusp: the checker's AT-KINK
}

TEST_CASE("dualfwd through the registry: gradient, jvp and jacobian of a small function",
          "[unit]") {
  const ad::Strategy& s = registered();
  auto m = ir::parse_module(
      "func f(x: f64[2]) -> f64[2] {\n"
      "  return gen[i < 2] x[i] * x[1 - i] + sin(x[i])\n"
      "}\n",
      "f.adl");
  ad::Request req;
  req.mode = ad::Mode::Jacobian;
  auto exe = s.differentiate(m.functions.at(0), req).executable("interp", {});
  ir::Tensor x;
  x.shape = {2};
  x.values = {0.5, 3.0};
  auto out = exe->run({x});
  REQUIRE(out.size() == 2);
  // J = [[x1 + cos x0, x0], [x1, x0 + cos x1]]
  CHECK(out[1].shape == std::vector<std::int64_t>{2, 2});
  CHECK(out[1].values == std::vector<double>{3.0 + std::cos(0.5), 0.5, 3.0, 0.5 + std::cos(3.0)});
  // a backend it cannot run on is declined, not silently replaced
  CHECK_THROWS_AS(s.differentiate(m.functions.at(0), req).executable("cpu", {}),
                  backends::Unsupported);
  // bad inputs are errors that say what was expected, before anything is computed
  CHECK_THROWS_WITH(exe->run({x, x}), Catch::Contains("takes the 1 parameters of `f` only"));
  req.mode = ad::Mode::Vjp;
  auto vjp = s.differentiate(m.functions.at(0), req).executable("interp", {});
  ir::Tensor three;
  three.shape = {3};
  three.values = {1, 2, 3};
  CHECK_THROWS_WITH(vjp->run({x, three}),
                    Catch::Contains("the cotangent of result 0 has 3 floating entries"));
  CHECK_THROWS_WITH(vjp->run({x}), Catch::Contains("vjp takes one cotangent per result (1)"));
  // an integer result's cotangent is checked too, though nothing reads it
  auto g =
      ir::parse_module("func g(x: f64, k: i64) -> (f64, i64) {\n  return (x * x, k)\n}\n", "g.adl");
  auto gvjp = s.differentiate(g.functions.at(0), req).executable("interp", {});
  ir::Tensor x0, one, ints;
  x0.values = {2.0};
  one.values = {1.0};
  ints.elem = ir::ElemType::I64;
  ints.shape = {3};
  ints.ints = {0, 0, 0};
  ir::Tensor k = ints;  // g's parameter k = 3
  k.shape = {};
  k.ints = {3};
  CHECK_THROWS_WITH(
      gvjp->run({x0, k, one, ints}),
      Catch::Contains("the cotangent of result 1 has 0 floating entries of shape [3]"));
  ints.shape = {};
  ints.ints = {0};
  CHECK(gvjp->run({x0, k, one, ints}).at(2).values == std::vector<double>{4.0});
  req.mode = ad::Mode::Jvp;
  auto jvp = s.differentiate(m.functions.at(0), req).executable("interp", {});
  CHECK_THROWS_WITH(jvp->run({x, three}), Catch::Contains("the tangent of `x` has 3 entries"));
}

TEST_CASE("dualfwd on the primitives suite: PASS or a declared decline, never a wrong value",
          "[unit]") {
  registered();
  checker::HarnessOptions o;
  o.strategies = {"dualfwd"};
  o.backends = {"interp"};
  o.complexity = false;
  auto r =
      checker::run_harness({ir::load_manifest(suites_root() + "/primitives/manifest.json")}, o);
  check_never_wrong(r, 100);
}

TEST_CASE("dualfwd on every suite: PASS or a declared decline, never a wrong value", "[slow]") {
  registered();
  checker::HarnessOptions o;
  // with fwdvec beside it, adjoint tests also pair dualfwd's jvp with fwdvec's vjp and the
  // reverse: its own jvp and vjp come from the same Jacobian columns and would agree even if wrong
  o.strategies = {"dualfwd", "fwdvec"};
  o.backends = {"interp"};
  o.complexity = false;
  auto r = checker::run_harness(ir::find_suites(suites_root()), o);
  std::erase_if(r.cells, [](const checker::Cell& c) { return c.strategy != "dualfwd"; });
  check_never_wrong(r, 400);
  for (const auto& c : r.cells)  // the one mode it does not offer is its only decline
    if (c.status == checker::Status::Unsupported) CHECK(c.mode == "hvp");
  std::size_t crossed = 0;  // adjoint tests between the two strategies
  for (const auto& a : r.adjoints) crossed += a.forward != a.reverse;
  CHECK(crossed >= 200);
}
