// The 50-digit interpreter the checker's reference runs (DESIGN 4.2) keeps double's semantics
// apart from precision: its range, its special values and its conversions (found by an audit
// helper; each case fails on the old scalar math).
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "ir/interp/interpreter.h"
#include "ir/interp/interpreter_mp.h"
#include "ir/syntax/parser.h"
#include "ir/tensor/tensor_ops.h"

using namespace adlab;
using namespace adlab::ir;

namespace {

// The results of `body` (a tuple expression of x: f64[n]) in double and in mp50.
std::pair<std::vector<double>, std::vector<double>> both(const std::string& results,
                                                         const std::string& body,
                                                         std::vector<double> x) {
  Module m =
      parse_module("func f(x: f64[n]) -> " + results + " {\n  return " + body + "\n}\n", "t.adl");
  Tensor t = dense_f64({static_cast<std::int64_t>(x.size())}, x);
  std::vector<double> d, p;
  for (const auto& r : Interpreter<double>().run_tensors(*m.entry("f"), {t})) {
    for (double v : r.values) d.push_back(v);
    for (auto v : r.ints) d.push_back(static_cast<double>(v));
  }
  for (const auto& r : Interpreter<mp50>().run_tensors(*m.entry("f"), {convert_scalar<mp50>(t)})) {
    for (const auto& v : r.values) p.push_back(math::to_double(v));
    for (auto v : r.ints) p.push_back(static_cast<double>(v));
  }
  return {d, p};
}

bool same(double a, double b) {
  return (std::isnan(a) && std::isnan(b)) || a == b;
}

}  // namespace

TEST_CASE("mp50 overflows and underflows where double does", "[unit]") {
  // exp(800) is inf in double; mp50 kept 2.7e347, so log(exp(800)) was 800 and
  // exp(800) * exp(-800) was 1: the checker failed right strategies on the primal.
  auto [d, p] = both("(f64, f64, f64, f64)",
                     "(log(exp(x[0])), exp(x[0]) * exp(0 - x[0]), x[1] * 1e-300 * 1e-300, "
                     "(x[0] * 1e300) / 1e300)",
                     {800, 3});
  REQUIRE(p.size() == 4);
  CHECK(p[0] == std::numeric_limits<double>::infinity());
  CHECK(std::isnan(p[1]));
  CHECK(p[2] == 0);
  CHECK(p[3] == 800);
  for (std::size_t k = 0; k < 4; ++k) CHECK(same(d[k], p[k]));
}

TEST_CASE("mp50 gives inf and NaN at poles and outside domains, as std:: does for double",
          "[unit]") {
  // boost's default policy threw ("Error in function boost::math::log1p<...>") without a
  // position where double has a value.
  auto [d, p] = both("(f64[n], f64[n], f64[n])",
                     "(gen[i < n] log1p(x[i]), gen[i < n] lgamma(x[i]), "
                     "gen[i < n] expm1(x[i] * 800))",
                     {-1, 0, -3, 2.5});
  const double inf = std::numeric_limits<double>::infinity();
  REQUIRE(p.size() == 12);
  CHECK(p[0] == -inf);  // log1p(-1)
  CHECK(p[4] == inf);   // lgamma(-1)... poles are +inf
  CHECK(p[5] == inf);
  CHECK(p[6] == inf);
  CHECK(p[8] == -1);    // expm1(-800)
  CHECK(p[11] == inf);  // expm1(2000)
  for (std::size_t k = 0; k < 12; ++k) {
    INFO(k);
    CHECK(same(d[k], p[k]));
  }
}

TEST_CASE("mp50 i64(x) truncates the 50-digit value, not its double rounding", "[unit]") {
  // y = 0.3333333333333333 * 3 is 0.99999999999999998... in mp50: i64(y) is 0, as floor(y);
  // it was 1 (rounded to double first).
  auto [d, p] = both("(i64, i64, f64)", "(i64(x[0] * 3), i64(floor(x[0] * 3)), floor(x[0] * 3))",
                     {0.3333333333333333});
  REQUIRE(p.size() == 3);
  CHECK(p[0] == 0);
  CHECK(p[1] == 0);
  CHECK(p[2] == 0);
  CHECK(d[0] == 1);  // double rounds the product to 1.0 first: a precision difference
  // negative values truncate toward zero
  auto [dn, pn] = both("i64", "i64(x[0] * 3)", {-0.3333333333333333});
  CHECK(pn == std::vector<double>{0});
  CHECK(dn == std::vector<double>{-1});
}
