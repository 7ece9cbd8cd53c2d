// Parser and printer: every construct parses, prints canonically, and reads back to the same nodes.
#include <catch2/catch.hpp>

#include "ir/context.h"
#include "ir/syntax/parser.h"
#include "ir/syntax/printer.h"

using namespace adlab::ir;

namespace {
// Parses, prints, re-parses and re-prints; the two prints and the two node graphs must agree.
std::string round_trip(const std::string& src) {
  Module a = parse_module(src, "a.adl");
  std::string pa = module_str(a);
  Module b = parse_module(pa, "b.adl");
  std::string pb = module_str(b);
  CHECK(pa == pb);
  REQUIRE(a.functions.size() == b.functions.size());
  for (std::size_t k = 0; k < a.functions.size(); ++k) {
    const auto& fa = *a.functions[k];
    const auto& fb = *b.functions[k];
    CHECK(fa.params == fb.params);
    REQUIRE(fa.stmts.size() == fb.stmts.size());
    for (std::size_t s = 0; s < fa.stmts.size(); ++s)
      CHECK(same_modulo_callees(fa.stmts[s].value, fb.stmts[s].value));
    REQUIRE(fa.results.size() == fb.results.size());
    for (std::size_t r = 0; r < fa.results.size(); ++r)
      CHECK(same_modulo_callees(fa.results[r], fb.results[r]));
  }
  return pa;
}

// The canonical print of a one-function program's single result expression.
std::string body_of(const std::string& params, const std::string& ret, const std::string& expr) {
  std::string src = "func f" + params + " -> " + ret + " {\n  return " + expr + "\n}\n";
  std::string printed = round_trip(src);
  auto b = printed.find("return ");
  return printed.substr(b + 7, printed.rfind("\n}") - b - 7);
}
}  // namespace

TEST_CASE("scalar arithmetic, precedence and literals", "[unit]") {
  CHECK(body_of("(a: f64, b: f64)", "f64", "a + b * 2") == "a + b * 2");
  CHECK(body_of("(a: f64, b: f64)", "f64", "(a + b) * 2") == "(a + b) * 2");
  CHECK(body_of("(a: f64, b: f64)", "f64", "a - (b - 1)") == "a - (b - 1)");
  CHECK(body_of("(a: f64, b: f64)", "f64", "a - b - 1") == "a - b - 1");
  CHECK(body_of("(a: f64, b: f64)", "f64", "a + (b + 1)") == "a + (b + 1)");
  CHECK(body_of("(a: f64)", "f64", "-a * -2.5") == "-a * -2.5");
  CHECK(body_of("(a: f64)", "f64", "- -a") == "- -a");
  CHECK(body_of("(a: f64)", "f64", "a * 1e-3 + pi") == "a * 0.001 + 3.141592653589793");
  CHECK(body_of("(a: f64)", "f64", "a / 3 / 7") == "a / 3 / 7");
}

TEST_CASE("every primitive and conversion", "[unit]") {
  for (const char* p : {"exp", "log", "log1p", "expm1", "sin", "cos", "tan", "tanh", "sigmoid",
                        "sqrt", "abs", "lgamma", "floor", "round"})
    CHECK(body_of("(a: f64)", "f64", std::string(p) + "(a)") == std::string(p) + "(a)");
  CHECK(body_of("(a: f64, b: f64)", "f64", "pow(a, b) + min(a, b) + max(a, 2)") ==
        "pow(a, b) + min(a, b) + max(a, 2)");
  CHECK(body_of("(a: f64, i: i64)", "f64", "f64(i) + f64(i64(floor(a)))") ==
        "f64(i) + f64(i64(floor(a)))");
  CHECK(
      body_of("(i: i64, j: i64)", "i64", "band(i, j) + bxor(i, 3) + min(i, j) + (i - 3) / 2 % 5") ==
      "band(i, j) + bxor(i, 3) + min(i, j) + (i - 3) / 2 % 5");
  CHECK(body_of("(a: f32)", "f32", "a * 2") == "a * 2");
}

TEST_CASE("gen, sum, max, min, brackets and chained comparisons", "[unit]") {
  CHECK(body_of("(x: f64[n])", "f64[n, n]", "gen[i < n, j < n] [i == j] * x[i]") ==
        "gen[i < n, j < n] [i == j] * x[i]");
  CHECK(body_of("(x: f64[n], c: f64[m])", "f64[n]",
                "gen[i < n] sum[j < m] [0 <= i - j < n] * x[i - j] * c[j]") ==
        "gen[i < n] sum[j < m] [0 <= i - j && i - j < n] * x[i - j] * c[j]");
  CHECK(
      body_of("(x: f64[n])", "f64", "(sum[i < n] x[i]) + (max[i < n] x[i]) - (min[i < n] x[i])") ==
      "(sum[i < n] x[i]) + (max[i < n] x[i]) - (min[i < n] x[i])");
  CHECK(body_of("(x: f64[n])", "f64", "sum[i < n, j < i] x[i] * x[j]") ==
        "sum[i < n, j < i] x[i] * x[j]");
  CHECK(body_of("(x: f64[n])", "f64",
                "sum[i < n] [i < 2 || !(i == 3) && i != 4] * [i >= 1] * (x[i] * 2)") ==
        "sum[i < n] [i < 2 || !(i == 3) && i != 4] * [i >= 1] * (x[i] * 2)");
  CHECK(body_of("(x: f64[n])", "f64", "sum[i < n] [exists[k < n] k * 2 == i] * x[i]") ==
        "sum[i < n] [exists[k < n] k * 2 == i] * x[i]");
}

TEST_CASE("sparse iteration, nz and scatter", "[unit]") {
  CHECK(body_of("(A: f64[n, m] @csr, x: f64[m])", "f64", "sum[(i, j) in A] A[i, j] * x[j]") ==
        "sum[(i, j) in A] A[i, j] * x[j]");
  CHECK(body_of("(A: f64[n, m] @csr, x: f64[m])", "f64[n]",
                "gen[i < n] sum[(j) in A[i]] A[i, j] * x[j]") ==
        "gen[i < n] sum[(j) in A[i]] A[i, j] * x[j]");
  CHECK(body_of("(v: f64[n] @coo)", "f64", "sum[(i) in v] v[i]") == "sum[(i) in v] v[i]");
  CHECK(body_of("(A: f64[n, m] @coo)", "f64", "sum[i < n, j < m] [nz(A, i, j)] * 1") ==
        "sum[i < n, j < m] [nz(A, i, j)] * 1");
  CHECK(body_of("[m](g: f64[n], idx: i64[n])", "f64[m]",
                "scatter[i < n] to f64[m] at (idx[i]) add g[i]") ==
        "scatter[i < n] to f64[m] at (idx[i]) add g[i]");
  CHECK(body_of("(A: f64[n, m] @csr)", "f64[n, m] @coo",
                "scatter[(i, j) in A] to f64[n, m] @coo at (i, j) add A[i, j] * 2") ==
        "scatter[(i, j) in A] to f64[n, m] @coo at (i, j) add A[i, j] * 2");
}

TEST_CASE("scan, loop with tuple state, select, blocks, tuples and calls", "[unit]") {
  CHECK(body_of("(x: f64[n])", "f64[n]", "scan[i < n] (+) x[i]") == "scan[i < n] (+) x[i]");
  CHECK(body_of("(x: f64[n])", "f64[n]", "scan[i < n] (max) x[i] * 2") ==
        "scan[i < n] (max) x[i] * 2");
  CHECK(body_of("(x: f64[n])", "f64[n]", "scan[i < n] (*) x[i]") == "scan[i < n] (*) x[i]");
  std::string printed = round_trip(R"(
func rot(T: i64, c: f64, s: f64) -> (f64, f64) {
  let (a, b) = loop[t < T] (a = 1.0, b = 0.0) {
    let a2 = c * a - s * b
    next (a2, s * a + c * b)
  }
  return (a, b)
}
)");
  CHECK(printed.find("loop[t < T] (a = 1, b = 0) {\n    let a2 = c * a - s * b\n    next (a2, s * "
                     "a + c * b)\n  }") != std::string::npos);
  CHECK(body_of("(x: f64[n])", "f64[n]", "gen[i < n] select(x[i] > 0, x[i], 0)") ==
        "gen[i < n] select(x[i] > 0, x[i], 0)");
  CHECK(body_of("(x: f64)", "f64", "{ let a = x * x; let b = a + 1; a * b }") ==
        "{\n    let a = x * x\n    let b = a + 1\n    a * b\n  }");
  CHECK(body_of("(x: f64[n])", "f64",
                "sum[i < n] { let z = gen[k < 2] (x[i], x[i] * 2); z[1].0 * z[0].1 }") ==
        "sum[i < n] {\n    let z = gen[k < 2] (x[i], x[i] * 2)\n    z[1].0 * z[0].1\n  }");
  std::string calls = round_trip(R"(
func lse(v: f64[k]) -> f64 {
  let mx = max[i < k] v[i]
  return log(sum[i < k] exp(v[i] - mx)) + mx
}
func rows(S: f64[n, k]) -> f64[n] {
  return gen[r < n] lse(S[r])
}
)");
  CHECK(calls.find("gen[r < n] lse(S[r])") != std::string::npos);
}

TEST_CASE("types: storage, tuples, arrays of tuples, declared and implied sizes", "[unit]") {
  std::string p = round_trip(R"(
func f[m](A: f64[n, m] @csr, B: f64[n, n + 1], p: (f64, f64[n]), k: i64) -> (f64, f64[k]) {
  let z = gen[i < n] (A[i, 0], B[i, n])
  let w = z.1
  return (p.0 + w[0], gen[i < k] p.1[0])
}
)");
  CHECK(p.find("func f[m](A: f64[n, m] @csr, B: f64[n, n + 1], p: (f64, f64[n]), k: i64) -> (f64, "
               "f64[k])") != std::string::npos);
  Module m = parse_module(p);
  const auto& f = *m.functions[0];
  CHECK(f.sizes.size() ==
        3);  // m declared, n implied, k a rank-0 i64 parameter used in a dimension
  CHECK(type_str(f.stmts[0].vars[0]->type) == "(f64, f64)[n]");
  CHECK(f.results.size() == 2);
}

TEST_CASE("comments, semicolons and line continuation", "[unit]") {
  std::string p = round_trip(
      "# leading comment\nfunc f(x: f64[n]) -> f64 {  # trailing\n  let a = sum[i < n] x[i] *\n    "
      "2; let b = a +\n  1\n  return a * (b\n  + 1)\n}\n");
  CHECK(p ==
        "func f(x: f64[n]) -> f64 {\n  let a = sum[i < n] x[i] * 2\n  let b = a + 1\n  return a * "
        "(b + 1)\n}\n");
}
