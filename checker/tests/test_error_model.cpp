// Tests of the checker's error model (DESIGN 4.2): per-entry relative errors with row and primal
// scales, the worst entry, non-finite results, and the derived float64 tolerance.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "checker/gradcheck/error_model.h"
#include "checker/gradcheck/magnitude.h"
#include "checker/harness/cell_check.h"
#include "ir/syntax/parser.h"

namespace adlab::checker {
namespace {

using ir::mp50;

constexpr double kU = 1.1102230246251565e-16;  // 2^-53
const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

std::vector<mp50> mp(const std::vector<double>& v) {
  return {v.begin(), v.end()};
}

TEST_CASE("compare finds the worst entry and its values", "[unit]") {
  std::vector<double> want = {1, 2, 3, 4};
  std::vector<double> got = {1, 2 * (1 + 1e-10), 3 * (1 + 1e-8), 4 * (1 - 1e-9)};
  Comparison c = compare(got, mp(want), 1e-7);
  CHECK(c.pass);
  CHECK(c.worst_index == 2);
  CHECK(c.worst_error == Approx(1e-8).epsilon(1e-6));
  CHECK(c.got == got[2]);
  CHECK(c.want == 3);
  CHECK_FALSE(compare(got, mp(want), 1e-9).pass);
  CHECK(compare(got, mp(want), 1e-9).worst_index == 2);
}

TEST_CASE("compare passes exact agreement at tolerance 0, and empty vectors", "[unit]") {
  Comparison c = compare({1.5, -2, 0}, mp({1.5, -2, 0}), 0);
  CHECK(c.pass);
  CHECK(c.worst_error == 0);
  CHECK(compare({}, {}, 0).pass);
}

TEST_CASE("compare fails a NaN or an infinity in got, whatever the tolerance", "[unit]") {
  std::vector<double> want = {1, 2, 3};
  SECTION("NaN in the middle, later entries finite") {
    Comparison c = compare({1, kNaN, 3 * 1.5}, mp(want), 1e300);
    CHECK_FALSE(c.pass);
    CHECK(c.worst_index == 1);
    CHECK(std::isinf(c.worst_error));
    CHECK(std::isnan(c.got));
    CHECK(c.want == 2);
  }
  SECTION("NaN first") {
    Comparison c = compare({kNaN, 2, 3}, mp(want), 1e300);
    CHECK_FALSE(c.pass);
    CHECK(c.worst_index == 0);
  }
  SECTION("NaN last") {
    Comparison c = compare({1, 2, kNaN}, mp(want), 1e300);
    CHECK_FALSE(c.pass);
    CHECK(c.worst_index == 2);
  }
  SECTION("infinity") {
    Comparison c = compare({1, -kInf, 3}, mp(want), 1e300);
    CHECK_FALSE(c.pass);
    CHECK(c.worst_index == 1);
  }
  SECTION("every entry NaN") {
    CHECK_FALSE(compare({kNaN, kNaN, kNaN}, mp(want), std::numeric_limits<double>::max()).pass);
  }
}

TEST_CASE("compare fails vectors of different sizes", "[unit]") {
  Comparison c = compare({1, 2}, mp({1, 2, 3}), 1e300);
  CHECK_FALSE(c.pass);
  CHECK(std::isinf(c.worst_error));
}

TEST_CASE("compare judges small entries against their row's largest entry", "[unit]") {
  // Rows [1e-6, 1] and [1000, 2]; entry 0 is off by 1e-9.
  std::vector<double> want = {1e-6, 1, 1000, 2};
  std::vector<double> got = {1e-6 + 1e-9, 1, 1000, 2};
  SECTION("rows of 2: against 1e-3 * 1") {
    Comparison c = compare(got, mp(want), 1, {2, 2});
    CHECK(c.worst_index == 0);
    CHECK(c.worst_error == Approx(1e-6).epsilon(1e-6));
  }
  SECTION("one row: against 1e-3 * 1000") {
    Comparison c = compare(got, mp(want), 1, {});
    CHECK(c.worst_index == 0);
    CHECK(c.worst_error == Approx(1e-9).epsilon(1e-6));
  }
  SECTION("rows of 1: against the entry itself") {
    Comparison c = compare(got, mp(want), 1, {1, 1, 1, 1});
    CHECK(c.worst_error == Approx(1e-3).epsilon(1e-6));
  }
  SECTION("the row scale decides pass or fail") {
    CHECK(compare(got, mp(want), 1e-8, {}).pass);
    CHECK_FALSE(compare(got, mp(want), 1e-8, {2, 2}).pass);
  }
}

TEST_CASE("compare judges exact zeros against the floor scale (the primal)", "[unit]") {
  std::vector<double> want = {0, 0};
  std::vector<double> got = {1e-12, 0};
  SECTION("without a floor scale a tiny error on a zero is enormous") {
    Comparison c = compare(got, mp(want), 1e-8);
    CHECK_FALSE(c.pass);
    CHECK(c.worst_error > 1e100);
  }
  SECTION("with floor scale 2: 1e-12 / 2") {
    Comparison c = compare(got, mp(want), 1e-8, {}, 2);
    CHECK(c.pass);
    CHECK(c.worst_error == Approx(5e-13).epsilon(1e-6));
  }
  SECTION("a zero derivative computed as 1e-10 of the function's magnitude fails") {
    Comparison c = compare({1e-10, 0}, mp(want), 1e-12, {}, 1);
    CHECK_FALSE(c.pass);
  }
  SECTION("a group that is not zero is judged against itself, however large the function") {
    // f = x + 1e20 has derivative 1: a huge primal must not hide a wrong derivative.
    Comparison c = compare({10 * (1 + 1e-6)}, mp({10}), 1e-8, {}, 1e20);
    CHECK(c.worst_error == Approx(1e-6).epsilon(1e-6));
    CHECK_FALSE(c.pass);
  }
}

// Parses `src` and returns its function `name`; the modules stay alive.
ir::FunctionPtr parse(const std::string& src, const std::string& name) {
  static std::vector<ir::Module> modules;
  modules.push_back(ir::parse_module(src, "test_error_model.adl"));
  return modules.back().entry(name);
}

ir::Tensor vec(std::vector<double> v) {
  ir::Tensor t;
  t.shape = {static_cast<std::int64_t>(v.size())};
  t.values = std::move(v);
  return t;
}

Tolerance tolerance_of(const ir::FunctionPtr& f, const std::vector<ir::Tensor>& inputs,
                       double floor, const std::vector<std::string>& wrt = {}) {
  Reference ref = reference_jacobian(*f, inputs, wrt);
  return derive_tolerance(*f, inputs, ref, {}, floor, wrt);
}

double model(const Tolerance& t) {
  return 64 * kU * std::sqrt(static_cast<double>(t.ops) + 1) * std::max(1.0, t.rho / kU);
}

const char* kSumExp = R"(
func f(x: f64[n]) -> f64 {
  return sum[i < n] exp(x[i])
}
)";

TEST_CASE("derive_tolerance grows with the operation count", "[unit]") {
  auto f = parse(kSumExp, "f");
  std::vector<double> small(4), large(64);
  for (std::size_t k = 0; k < small.size(); ++k) small[k] = 0.1 + 0.01 * static_cast<double>(k);
  for (std::size_t k = 0; k < large.size(); ++k) large[k] = 0.1 + 0.004 * static_cast<double>(k);
  Tolerance a = tolerance_of(f, {vec(small)}, 0), b = tolerance_of(f, {vec(large)}, 0);
  INFO(a.basis() << "\n" << b.basis());
  CHECK(a.ops > 0);
  CHECK(b.ops > 8 * a.ops);
  CHECK(b.value > a.value);
  CHECK(a.value == Approx(model(a)).epsilon(1e-12));
  CHECK(b.value == Approx(model(b)).epsilon(1e-12));
  // A well-conditioned sum of positive terms: the primal is accurate to a few ulps.
  CHECK(a.rho < 16 * kU);
  CHECK(b.rho < 64 * kU);
  CHECK(a.value >= 64 * kU);
}

TEST_CASE("a derivative program's operation count widens the tolerance up to 16 primals",
          "[unit]") {
  // Decision 216: the rounding model counted a derivative program's whole operation count, so a
  // bloated program loosened its own tolerance without bound (64 u sqrt(ops + 1)).
  auto f = parse(kSumExp, "f");
  Tolerance t = tolerance_of(f, {vec({0.1, 0.2, 0.3, 0.4})}, 0);
  REQUIRE(t.ops > 0);
  Tolerance within = t.allowing_ops(4 * t.ops), cap = t.allowing_ops(16 * t.ops),
            bloated = t.allowing_ops(1000000 * t.ops);
  CHECK(within.ops == 4 * t.ops);
  CHECK(within.value > t.value);
  CHECK(cap.value > within.value);
  CHECK(bloated.ops == 16 * t.ops);
  CHECK(bloated.value == cap.value);
  CHECK(t.allowing_ops(t.ops / 2).value == t.value);  // never below the primal's own model
}

TEST_CASE("derive_tolerance never goes below the strategy's declared accuracy", "[unit]") {
  auto f = parse(kSumExp, "f");
  Tolerance t = tolerance_of(f, {vec({0.1, 0.2, 0.3})}, 1e-5);
  CHECK(t.floor == 1e-5);
  CHECK(t.value == 1e-5);  // the model is far below it
  CHECK(model(t) < 1e-5);
  CHECK(t.basis().find("floor 1e-05") != std::string::npos);
  CHECK(t.basis().find("ops=" + std::to_string(t.ops)) != std::string::npos);
  Tolerance huge = tolerance_of(f, {vec({0.1, 0.2, 0.3})}, 0.5);
  CHECK(huge.value == 0.5);
}

TEST_CASE("derive_tolerance grows with the primal's measured rounding error", "[unit]") {
  // (x + 1) - 1 at x = 1e-10 loses about 8 digits in double.
  auto f = parse("func g(x: f64) -> f64 {\n  return (x + 1) - 1\n}\n", "g");
  ir::Tensor x;
  x.values = {1e-10};
  Tolerance t = tolerance_of(f, {x}, 0);
  INFO(t.basis());
  CHECK(t.rho > 1e-9);
  CHECK(t.rho < 1e-6);
  // The model (about 1e-7 here) is capped: an ill-conditioned primal must not let anything pass
  // (1e-8 let a derivative 2e-9 wrong pass beside such a term, decision 188).
  CHECK(64 * std::sqrt(static_cast<double>(t.ops) + 1) * t.rho > 1e-8);
  CHECK(t.value == 1e-10);
}

TEST_CASE("an f32 parameter read into f64 arithmetic keeps the f64 error model", "[unit]") {
  // Any f32 anywhere gave every block u = 2^-24, so a gradient wrt the f64 x 4e-5 wrong passed,
  // and with an ill-conditioned primal the cap scaled by 2^29 to 5.4: 400 % wrong passed
  // (an audit helper; decision 188).
  auto f = parse(
      "func m(x: f64[n], w: f32[n]) -> f64 {\n  return sum[i < n] f64(w[i]) * x[i] * "
      "x[i]\n}\n",
      "m");
  ir::Tensor w;
  w.elem = ir::ElemType::F32;
  w.shape = {3};
  w.values = {0.5, 1.5, 2};
  Tolerance t = tolerance_of(f, {vec({0.1, 0.2, 0.3}), w}, 0, {"x"});
  INFO(t.basis());
  CHECK(t.unit_roundoff == 0x1p-53);
  CHECK(t.value < 1e-13);
  // Differentiated wrt w, the gradient block is f32: f32's unit.
  CHECK(tolerance_of(f, {vec({0.1, 0.2, 0.3}), w}, 0, {"w"}).unit_roundoff == 0x1p-24);
  // An f32 operation anywhere: f32's unit, and an ill-conditioned primal cannot widen it further.
  auto g = parse(
      "func g(x: f64, s: f32, c: f64) -> f64 {\n  return x * x * x + f64(s * s) + ((c + "
      "1e16) - 1e16)\n}\n",
      "g");
  ir::Tensor s32;
  s32.elem = ir::ElemType::F32;
  s32.values = {0.5};
  ir::Tensor one, c;
  one.values = {1};
  c.values = {0.3};
  Tolerance t32 = tolerance_of(g, {one, s32, c}, 0, {"x"});
  INFO(t32.basis());
  CHECK(t32.unit_roundoff == 0x1p-24);
  CHECK(t32.rho > 0.01);
  CHECK(t32.value == 64 * 0x1p-24 * std::sqrt(static_cast<double>(t32.ops) + 1));
  // f32 arithmetic in a callee, and an f32 scatter, count too (children() of a call are its
  // arguments only).
  auto h = parse(
      "func sq(s: f32) -> f32 {\n  return s * s\n}\nfunc h(x: f64, s: f32) -> f64 {\n"
      "  return x * f64(sq(s))\n}\n",
      "h");
  CHECK(tolerance_of(h, {one, s32}, 0, {"x"}).unit_roundoff == 0x1p-24);
}

TEST_CASE("derive_tolerance caps the model when the double primal is not finite", "[unit]") {
  // exp(800) overflows in double but not in 50 digits: rho counts as 1, the tolerance stays 1e-10.
  auto f = parse("func g(x: f64) -> f64 {\n  return exp(x) * exp(-x)\n}\n", "g");
  ir::Tensor x;
  x.values = {800};
  Tolerance t = tolerance_of(f, {x}, 0);
  INFO(t.basis());
  CHECK(t.rho >= 1.0);
  CHECK(t.value == 1e-10);
}

TEST_CASE("a zero Jacobian row is judged against its own result's magnitude (decision 188)",
          "[unit]") {
  // (1e20 + sum x, 1e-11 x^2): the second result's row (2e-11) is below 1e-30 of 1e20, so it
  // was a "zero group" judged against 1e20, and 1e6 passed there (an audit helper).
  std::vector<double> got = {1, 1e6};
  std::vector<mp50> want = {mp50(1), mp50(2e-11)};
  CHECK(compare(got, want, 1e-8, {1, 1}, 1e20).pass);
  CHECK_FALSE(compare(got, want, 1e-8, {1, 1}, 1e20, {1e20, 1e-11}).pass);
  CHECK(compare({1, 2e-11}, want, 1e-8, {1, 1}, 1e20, {1e20, 1e-11}).pass);
}

TEST_CASE("an ill-conditioned result excuses its own primal rounding and not that of another",
          "[unit]") {
  // An audit helper's case (decision 192): result 1 is 0.01 exactly, but -0.29 in double (rho
  // about 30); every primal entry was allowed 4 rho = 120, so a result 0 100 times too large
  // passed. Result 1's own rounding stays allowed; result 0 is judged strictly.
  auto f = parse(
      "func k(x: f64[n], c: f64) -> (f64, f64) {\n"
      "  return (sum[i < n] x[i] * x[i] * x[i], ((c + 1e16) - 1e16) - c + 0.01)\n}\n",
      "k");
  ir::Tensor c;
  c.values = {0.3};
  const std::vector<ir::Tensor> in = {vec({0.5, 0.75, 1.25}), c};
  Reference ref = reference_jacobian(*f, in, {"x"});
  Tolerance t = derive_tolerance(*f, in, ref, {}, 0, {"x"});
  REQUIRE(t.rho > 10);
  const double r0 = 0.125 + 0.421875 + 1.953125;
  const double r1_double = t.double_primal.at(1);
  CHECK(compare_primal({r0, r1_double}, ref, t).pass);  // the interpreter's own primal
  CHECK_FALSE(compare_primal({100 * r0, r1_double}, ref, t).pass);
  CHECK_FALSE(compare_primal({r0 * (1 + 1e-9), r1_double}, ref, t).pass);
  // a result whose reference is 0 is judged against the function's magnitude, not 1e-300
  auto h = parse(
      "func h(x: f64[n], c: f64) -> (f64, f64) {\n"
      "  return (sum[i < n] x[i] * x[i] * x[i], ((c + 1e16) - 1e16) - c)\n}\n",
      "h");
  Reference href = reference_jacobian(*h, in, {"x"});
  Tolerance ht = derive_tolerance(*h, in, href, {}, 0, {"x"});
  CHECK(compare_primal({r0, ht.double_primal.at(1)}, href, ht).pass);
}

TEST_CASE("an equilibrated jvp direction shows a dropped small column that a random one hides",
          "[unit]") {
  // a * b at a = 1e12, b = 1e-3 (an audit helper; decision 193): J = (b, a) = (1e-3, 1e12). A
  // jvp with d/da dropped is off by 1e-3 * v_a beside 1e12 * v_b: hidden at a 1e-10 tolerance
  // with a random direction, visible when each column contributes alike.
  auto f = parse("func p(a: f64, b: f64) -> f64 {\n  return a * b\n}\n", "p");
  ir::Tensor a, b;
  a.values = {1e12};
  b.values = {1e-3};
  Reference ref = reference_jacobian(*f, {a, b}, {});
  auto jvp = [&](const std::vector<double>& v, bool drop_a) {
    return std::vector<double>{(drop_a ? 0.0 : 1e-3) * v[0] + 1e12 * v[1]};
  };
  auto exact = [&](const std::vector<double>& v) {
    return std::vector<mp50>{mp50(1e-3) * mp50(v[0]) + mp50(1e12) * mp50(v[1])};
  };
  const auto plain = random_direction(2, 17);
  CHECK(compare(jvp(plain, true), exact(plain), 1e-10).pass);  // the blind spot
  const auto eq = equilibrated_direction(ref, Along::Columns, 17);
  CHECK(std::fabs(eq[0]) <= 1);
  CHECK(std::fabs(eq[1]) <= 1e-15 * 1.0001);
  CHECK(compare(jvp(eq, false), exact(eq), 1e-10).pass);
  CHECK_FALSE(compare(jvp(eq, true), exact(eq), 1e-10).pass);
}

TEST_CASE("an f32 parameter's unit roundoff applies to its own block only", "[unit]") {
  // sum f64(w) x^2 with w: f32, differentiated by both: the x block is f64 arithmetic and gets
  // 2^-53, the w block (an f32 gradient) 2^-24. One model for both passed a d/dx 1e-5 wrong (an
  // audit helper; decision 199).
  auto f = parse(
      "func f(x: f64[n], w: f32) -> f64 {\n  return sum[i < n] f64(w) * x[i] * x[i]\n}\n", "f");
  ir::Tensor w;
  w.elem = ir::ElemType::F32;
  w.values = {0.75};
  const std::vector<ir::Tensor> in = {vec({0.5, 1.25}), w};
  Tolerance t = tolerance_of(f, in, 0);
  CHECK(t.unit_roundoff == 0x1p-24);
  CHECK_FALSE(t.computes_f32());
  const Tolerance t64 = t.for_f64_block();
  CHECK(t64.unit_roundoff == 0x1p-53);
  CHECK(t64.value < 1e-12);
  // gradient (2 w x0, 2 w x1, sum x^2) with d/dx1 off by half the f32 model (about 5e-6)
  REQUIRE(t.value > 1e-6);
  const std::vector<mp50> want = {mp50(0.75), mp50(1.875), mp50(0.25 + 1.5625)};
  const std::vector<double> got = {0.75, 1.875 * (1 + t.value / 2), 1.8125};
  CHECK(compare(got, want, t.value, {2, 1}).pass);  // the whole function's model
  const Comparison c = compare(got, want, t.value, {2, 1}, 0, {}, {t64.value, t.value});
  CHECK_FALSE(c.pass);
  CHECK(c.worst_index == 1);
  CHECK(c.tolerance == t64.value);
}

TEST_CASE("a cancelling primal entry excuses its own rounding and not its neighbours", "[unit]") {
  // x^2 + [i == 0] ((c + 1e16) - 1e16) at c = 0.3 (an audit helper; decision 202): entry 0 is 0
  // in double and 0.3 exactly, and its allowance (4 rho) covered the whole result, so entries 1
  // and 2 passed at twice their value. The allowance is now per entry.
  auto f = parse(
      "func m(x: f64[n], c: f64) -> f64[n] {\n"
      "  return gen[i < n] x[i] * x[i] + [i == 0] * ((c + 1e16) - 1e16)\n}\n",
      "m");
  ir::Tensor c;
  c.values = {0.3};
  const std::vector<ir::Tensor> in = {vec({0.5, 0.75, 1.25}), c};
  Reference ref = reference_jacobian(*f, in, {"x"});
  Tolerance t = derive_tolerance(*f, in, ref, {}, 0, {"x"});
  const std::vector<double> d = t.double_primal;
  REQUIRE(d.size() == 3);
  CHECK(compare_primal(d, ref, t).pass);  // the interpreter's own primal
  const Comparison doubled = compare_primal({d[0], 2 * d[1], d[2]}, ref, t);
  CHECK_FALSE(doubled.pass);
  CHECK(doubled.worst_index == 1);
  CHECK_FALSE(compare_primal({d[0], d[1], d[2] * (1 + 1e-9)}, ref, t).pass);
  CHECK(compare_primal({0.3 + 0.25, d[1], d[2]}, ref, t).pass);  // entry 0 exact
}

TEST_CASE("a primal entry whose double run is NaN excuses nothing", "[unit]") {
  // sqrt((c + 1e16) - 1e16 - 0.3 + 1e-20) at c = 0.3: NaN in double, 1e-10 exactly (an audit
  // helper; decision 202). Its allowance was infinite, so any value passed there and, with the
  // allowance per result, at every other entry of the result too.
  auto f = parse(
      "func g(x: f64[n], c: f64) -> f64[n] {\n"
      "  return gen[i < n] x[i] * x[i] + [i == 0] * sqrt((c + 1e16) - 1e16 - 0.3 + 1e-20)\n}\n",
      "g");
  ir::Tensor c;
  c.values = {0.3};
  const std::vector<ir::Tensor> in = {vec({0.5, 0.75, 1.25}), c};
  Reference ref = reference_jacobian(*f, in, {"x"});
  Tolerance t = derive_tolerance(*f, in, ref, {}, 0, {"x"});
  REQUIRE(std::isnan(t.double_primal.at(0)));
  const double e0 = 0.25 + 1e-10;
  CHECK(compare_primal({e0, 0.5625, 1.5625}, ref, t).pass);  // right everywhere
  CHECK_FALSE(compare_primal({12345, 0.5625, 1.5625}, ref, t).pass);
  const Comparison c1 = compare_primal({e0, 1000 * 0.5625, 1.5625}, ref, t);
  CHECK_FALSE(c1.pass);
  CHECK(c1.worst_index == 1);
  CHECK_FALSE(compare_primal(t.double_primal, ref, t).pass);  // NaN itself fails
}

TEST_CASE("an f32 block of a function without f32 arithmetic gets the rounding to f32 only",
          "[unit]") {
  // sum f64(w) x^3, w: f32 (decision 202): the f32 gradient block carries the roundings of f64
  // values to f32, 4 2^-24 sqrt(ops + 1), not the whole f32 model 64 2^-24 sqrt(ops + 1).
  auto f = parse(
      "func f(x: f64[n], w: f32) -> f64 {\n  return sum[i < n] f64(w) * x[i] * x[i] * x[i]\n}\n",
      "f");
  ir::Tensor w;
  w.elem = ir::ElemType::F32;
  w.values = {0.75};
  Tolerance t = tolerance_of(f, {vec({0.5, 1.25, 0.875}), w}, 0);
  REQUIRE_FALSE(t.computes_f32());
  const double root = std::sqrt(static_cast<double>(t.ops) + 1);
  CHECK(t.value == 64 * 0x1p-24 * root);
  CHECK(t.for_f32_block().value == 4 * 0x1p-24 * root);
  CHECK(t.for_f64_block().value < 1e-13);
  // f32 arithmetic gets the whole model (for the blocks it lies on: decision 206)
  auto g =
      parse("func g(x: f64[n], w: f32) -> f64 {\n  return sum[i < n] f64(w * w) * x[i]\n}\n", "g");
  Tolerance t32 = tolerance_of(g, {vec({0.5, 1.25, 0.875}), w}, 0);
  REQUIRE(t32.computes_f32());
  CHECK(t32.for_f32_arithmetic().value == t32.value);
}

TEST_CASE("representable rounds the f32 blocks of a direction and keeps the f64 ones", "[unit]") {
  auto f = parse("func f(x: f64[n], w: f32) -> f64 {\n  return sum[i < n] f64(w) * x[i]\n}\n", "f");
  ir::Tensor w;
  w.elem = ir::ElemType::F32;
  w.values = {0.75};
  const std::vector<ir::Tensor> in = {vec({0.5, 1.25}), w};
  const Layout layout = input_layout(*f, {}, in);
  const std::vector<double> dir = {0.1, 0.2, 0.3};
  const std::vector<double> r = representable(layout, in, dir);
  CHECK(r[0] == 0.1);
  CHECK(r[1] == 0.2);
  CHECK(r[2] == static_cast<double>(0.3f));
  CHECK(r[2] != 0.3);
}

TEST_CASE("a primal result that is zero is judged against itself, not the other results",
          "[unit]") {
  // (c + x, x - x) at c = 1e16 (an audit helper; decision 205): result 1 = 50 passed, judged
  // against 1e16.
  auto f = parse("func z(x: f64, c: f64) -> (f64, f64) {\n  return (c + x, x - x)\n}\n", "z");
  ir::Tensor x, c;
  x.values = {0.75};
  c.values = {1e16};
  Reference ref = reference_jacobian(*f, {x, c}, {"x"});
  Tolerance t = derive_tolerance(*f, {x, c}, ref, {}, 0, {"x"});
  CHECK(compare_primal(t.double_primal, ref, t).pass);
  const Comparison z = compare_primal({t.double_primal[0], 50}, ref, t);
  CHECK_FALSE(z.pass);
  CHECK(z.worst_index == 1);
}

TEST_CASE("magnitudes sum the absolute chain-rule terms of each Jacobian entry", "[unit]") {
  // x y - y x: J = (0, 0), |J| = (2 |y|, 2 |x|); sin(x)^2 + cos(x)^2: J = 0, |J| = 4 |sin cos|;
  // 0 * w: no path, |J| = 0 (decision 205).
  auto f = parse(
      "func g(x: f64, y: f64, w: f64) -> (f64, f64) {\n"
      "  return (x * y - y * x + 0.0 * w, sin(x) * sin(x) + cos(x) * cos(x))\n}\n",
      "g");
  ir::Tensor x, y, w;
  x.values = {0.5};
  y.values = {-2};
  w.values = {3};
  Reference ref = reference_jacobian(*f, {x, y, w}, {});
  const auto mag = reference_magnitudes(*f, {x, y, w}, ref);
  REQUIRE(mag.size() == 6);
  CHECK(mag[0] == Approx(4));  // d f0 / dx: |y| + |y|
  CHECK(mag[1] == Approx(1));  // d f0 / dy: |x| + |x|
  CHECK(mag[2] == 0);          // d f0 / dw: 0 * w
  CHECK(mag[3] == Approx(4 * std::fabs(std::sin(0.5) * std::cos(0.5))));
  CHECK(mag[4] == 0);
  CHECK(mag[5] == 0);
}

TEST_CASE("an entry below the reference's resolution passes within it and is counted", "[unit]") {
  // A saturated sigmoid's derivative (5e-46 beside f = 1) reads as 0 in 50-digit differences
  // (decision 205): judged against its magnitude alone it would fail a correct strategy.
  const std::vector<mp50> want = {mp50(0)};
  CHECK_FALSE(compare({5e-46}, want, 1e-14, {}, 1, {}, {}, {5e-46}).pass);
  const Comparison c = compare({5e-46}, want, 1e-14, {}, 1, {}, {}, {5e-46}, {1e-38});
  CHECK(c.pass);
  CHECK(c.unresolved == 1);
  CHECK(c.unresolved_error == Approx(1e-38 / 5e-46));  // the resolution relative to the entry
  CHECK_FALSE(compare({2e-38}, want, 1e-14, {}, 1, {}, {}, {5e-46}, {1e-38}).pass);
  // A wrong 0 passes as well, since the reference reads 0: it was silent (expm1'(-100) as 0;
  // an audit helper, decision 224). It is counted now, as the right value is.
  const Comparison zero = compare({0.0}, want, 1e-14, {}, 1, {}, {}, {5e-46}, {1e-38});
  CHECK(zero.pass);
  CHECK(zero.unresolved == 1);
  // a structural zero (magnitude 0) that reads 0 is checked exactly, not counted
  CHECK(compare({0.0}, want, 1e-14, {}, 1, {}, {}, {0.0}, {1e-38}).unresolved == 0);
}

TEST_CASE("an entry whose terms cancel far below its tolerance is counted as admitting 0",
          "[unit]") {
  // 40 steps of a chaotic map: d f / d r = 9.8e8 beside chain-rule terms of 3e22, so at a
  // tolerance of 1e-10 any value within 3e12 passes, 0 included (an audit helper; decision 226).
  const std::vector<mp50> want = {mp50(9.8e8), mp50(2.0)};
  const Comparison loose = compare({0.0, 2.0}, want, 1e-10, {}, 1, {}, {}, {3e22, 2.0});
  CHECK(loose.pass);
  CHECK(loose.admits_zero == 1);
  CHECK(loose.spread == Approx(3e22 / 9.8e8));
  // terms of the entry's own size: checked as tightly as the tolerance says, and 0 fails
  CHECK(compare({9.8e8, 2.0}, want, 1e-10, {}, 1, {}, {}, {1e9, 2.0}).admits_zero == 0);
  CHECK_FALSE(compare({0.0, 2.0}, want, 1e-10, {}, 1, {}, {}, {1e9, 2.0}).pass);
}

TEST_CASE("f32_paths finds the f32 arithmetic between each parameter and result", "[unit]") {
  // decision 206: result 0 rounds k * k in f32 (k reaches it through f32 arithmetic, x does
  // not); result 1 reads w as f64 only; result 2 calls a helper that computes in f32.
  auto f = parse(
      "func sq(s: f32) -> f32 {\n  return s * s\n}\n"
      "func g(x: f64[n], k: f32, w: f32) -> (f64, f64, f64) {\n"
      "  let t = 1e-30 * f64(k * k)\n"
      "  return (sum[i < n] x[i] * x[i] + t, f64(w) * x[0], f64(sq(w)))\n}\n",
      "g");
  const F32Paths p = f32_paths(*f);
  REQUIRE(p.result.size() == 3);
  CHECK(p.result[0]);
  CHECK(p.through[0] == std::vector<bool>{false, true, false});
  CHECK_FALSE(p.result[1]);
  CHECK(p.through[1] == std::vector<bool>{false, false, false});
  CHECK(p.result[2]);
  CHECK(p.through[2] == std::vector<bool>{false, false, true});
}

TEST_CASE("a primal entry beside a much larger one of its result is judged against itself",
          "[unit]") {
  // [i == 0] c x_i + [i == 1] x_i^2 at c = 1e20 (an audit helper; decision 208): entry 1 at
  // 1000 times its value was judged against 1e-3 of entry 0 and passed.
  auto f = parse(
      "func pv(x: f64[n], c: f64) -> f64[n] {\n"
      "  return gen[i < n] [i == 0] * (c * x[i]) + [i == 1] * (x[i] * x[i])\n}\n",
      "pv");
  ir::Tensor c;
  c.values = {1e20};
  const std::vector<ir::Tensor> in = {vec({0.5, 0.75}), c};
  Reference ref = reference_jacobian(*f, in, {"x"});
  Tolerance t = derive_tolerance(*f, in, ref, {}, 0, {"x"});
  CHECK(compare_primal(t.double_primal, ref, t).pass);
  const Comparison p = compare_primal({t.double_primal[0], 1000 * t.double_primal[1]}, ref, t);
  CHECK_FALSE(p.pass);
  CHECK(p.worst_index == 1);
}

}  // namespace
}  // namespace adlab::checker
