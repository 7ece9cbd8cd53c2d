// The fwdvec strategy on paper 001's test cases (digest 001 section 8).
#include <catch2/catch.hpp>

#include <cmath>
#include <iostream>
#include <map>

#include "ad/fwdvec/fuse.h"
#include "ad/fwdvec/fwdvec_strategy.h"
#include "ad/fwdvec/licm.h"
#include "checker/complexity/complexity.h"
#include "checker/smt/translation_validation.h"
#include "ir/builder.h"
#include "ir/interp/op_counts.h"
#include "ir/substitute.h"
#include "ir/suite/inputs.h"
#include "ir/suite/manifest.h"
#include "ir/syntax/parser.h"
#include "ir/syntax/printer.h"
#include "ir/tensor/tensor_ops.h"

using namespace adlab;
using namespace adlab::ad;

#include "ad/fwdvec/tests/fwdvec_test_util.h"

using namespace adlab::test;

// ---- digest 001 section 8.1: AD rules on scalar functions ----

TEST_CASE("digest 001 test 1: d cos a / da = -sin a at 0 and pi/2", "[fwdvec]") {
  auto g = diff(load("scalar_rules.adl", "d_cos"), Mode::Gradient).function;
  CHECK(run(g, {scalar(0)}).out[1].values[0] == Approx(0).margin(1e-15));
  CHECK(run(g, {scalar(M_PI / 2)}).out[1].values[0] == Approx(-1).epsilon(1e-15));
}

TEST_CASE("digest 001 tests 2-6: scalar rules against their closed forms", "[fwdvec]") {
  for (auto [func, name] :
       std::vector<std::pair<std::string, std::string>>{{"d_mul", "d_mul"},
                                                        {"d_div", "d_div"},
                                                        {"d_sin", "d_sin"},
                                                        {"d_tan", "d_tan"},
                                                        {"d_log", "d_log"},
                                                        {"d_exp", "d_exp"},
                                                        {"d_pow", "d_pow"},
                                                        {"d_sin_square", "d_sin_square"}}) {
    INFO(func);
    check_against_expected("scalar_rules.adl", func, func + "_grad", name, {}, {});
  }
}

TEST_CASE("digest 001 test 2 (Example 3): d(a*b)/da is exactly the variable b", "[fwdvec]") {
  auto g = diff(load("scalar_rules.adl", "d_mul"), Mode::Gradient, {"a"}).function;
  auto out = run(g, {scalar(3), scalar(-5)}).out;
  CHECK(out[1].values[0] == -5);
}

TEST_CASE("digest 001 test 5: D-Pow hazard, d x**2 / dx at x = -1 is -2, not NaN", "[fwdvec]") {
  auto f = load("scalar_rules.adl", "d_pow_square");
  auto out = run(diff(f, Mode::Gradient).function, {scalar(-1)}).out;
  CHECK(out[1].values[0] == -2);
}

TEST_CASE("digest 001 test 7 (Example 4): no perturbation confusion under nesting", "[fwdvec]") {
  using namespace ir::dsl;
  // inner: d/dy (x + y) by jvp; outer: d/dx (x * inner) by forward mode again
  ir::dsl::FunctionBuilder fb("plus");
  ir::Expr x = fb.param("x", ir::Type::scalar(ir::ElemType::F64));
  ir::Expr y = fb.param("y", ir::Type::scalar(ir::ElemType::F64));
  auto plus = fb.finish({x + y}, ir::Type::scalar(ir::ElemType::F64));
  auto inner = diff(plus, Mode::Jvp, {"y"}).function;  // (x, y, t_y) -> (x + y, t_y)
  ir::dsl::FunctionBuilder hb("outer");
  ir::Expr hx = hb.param("x", ir::Type::scalar(ir::ElemType::F64));
  ir::Expr hy = hb.param("y", ir::Type::scalar(ir::ElemType::F64));
  ir::Expr dy = proj(ir::Call::make(inner, {hx, hy, lit(1)}), 1);
  auto outer = hb.finish({hx * dy}, ir::Type::scalar(ir::ElemType::F64));
  for (const char* variant : {"opt", "naive"}) {
    auto g = diff(outer, Mode::Gradient, {"x"}, variant).function;
    auto out = run(g, {scalar(2.5), scalar(-4)}).out;
    CHECK(out[0].values[0] == 2.5);
    CHECK(out[1].values[0] == 1);  // a tool that confuses the perturbations gives 2
  }
}

TEST_CASE("digest 001 test 8: the tangent of an f64[n, m] statement is f64[n, m, k]", "[fwdvec]") {
  auto m = ir::parse_module(
      "func f[n, m](X: f64[n, m]) -> f64 {\n  let A = gen[i < n, j < m] X[i, j] * max[l < m] X[i, "
      "l]\n"
      "  return sum[i2 < n, j2 < m] A[i2, j2] * A[i2, j2]\n}\n",
      "types.adl");
  auto g = diff(m.entry("f"), Mode::Gradient).function;  // one pass: k = n * m directions
  bool found = false;
  for (const auto& s : g->stmts) {
    const std::string& name = ir::var_name(s.vars[0]);
    if (name.rfind("d_A", 0) != 0) continue;
    found = true;
    const ir::Type& t = s.vars[0]->type;  // D_T[Array<Array<Double>>]: k lanes per scalar
    REQUIRE(t.rank() == 3);
    CHECK(ir::expr_str(t.dims[0]) == "n");
    CHECK(ir::expr_str(t.dims[1]) == "m");
    CHECK(ir::expr_str(t.dims[2]) == "n * m");
  }
  CHECK(found);
}

TEST_CASE("digest 001 test 9: D[[vectorSum]] gives the gradient ones", "[fwdvec]") {
  check_against_expected("vector_sum.adl", "vector_sum", "vector_sum_grad", "vector_sum", {},
                         {{"n", 7}});
}

// ---- digest 001 section 8.3 / 8.4: gradients against closed forms, then their costs ----

TEST_CASE("digest 001 tests 15/20, 16, 17, 18, 19, 21: gradients equal the closed forms",
          "[fwdvec]") {
  check_against_expected("micro_dot.adl", "vector_dot", "vector_dot_grad", "micro_dot", {"v1"},
                         {{"n", 9}});
  check_against_expected("micro_max.adl", "vector_max", "vector_max_grad", "micro_max", {},
                         {{"n", 9}});
  check_against_expected("micro_max.adl", "vector_max_fold", "vector_max_grad", "micro_max", {},
                         {{"n", 9}});
  check_against_expected("matrix_trace.adl", "matrix_trace", "matrix_trace_grad", "matrix_trace",
                         {}, {{"n", 5}});
  check_against_expected("trace_matmul.adl", "trace_matmul", "trace_matmul_grad", "trace_matmul",
                         {"M"}, {{"n", 3}, {"k", 4}});
  check_against_expected("umv.adl", "umv", "umv_grad", "umv", {"M"}, {{"r", 3}, {"c", 4}});
  check_against_expected("nnmf.adl", "nnmf_rank1", "nnmf_rank1_grad", "nnmf_rank1", {"v"},
                         {{"m", 4}, {"n", 5}});
  check_against_expected("nnmf.adl", "nnmf", "nnmf_grad", "nnmf", {"H"},
                         {{"m", 4}, {"n", 5}, {"k", 2}});
}

TEST_CASE("digest 001 test 20: gradient of dot is O(n) optimised, O(n^2) naive", "[fwdvec]") {
  auto s = sweep("n", {16, 32, 64, 128});
  double opt = gradient_slope("micro_dot.adl", "vector_dot", "micro_dot", {"v1"}, "opt", s);
  double naive = gradient_slope("micro_dot.adl", "vector_dot", "micro_dot", {"v1"}, "naive", s);
  std::cout << "dot gradient slopes: opt " << opt << ", naive " << naive << "\n";
  CHECK(opt == Approx(1).margin(0.1));
  CHECK(naive == Approx(2).margin(0.1));
}

TEST_CASE("digest 001 test 21: gradient of vectorMax is O(n) optimised, O(n^2) naive", "[fwdvec]") {
  auto s = sweep("n", {16, 32, 64, 128});
  double opt = gradient_slope("micro_max.adl", "vector_max", "micro_max", {}, "opt", s);
  double naive = gradient_slope("micro_max.adl", "vector_max", "micro_max", {}, "naive", s);
  std::cout << "vectorMax gradient slopes: opt " << opt << ", naive " << naive << "\n";
  CHECK(opt == Approx(1).margin(0.1));
  CHECK(naive == Approx(2).margin(0.1));
  // vectorMax as the M~ ifold: the running extremum's tangent is read at its last improvement
  double fold = gradient_slope("micro_max.adl", "vector_max_fold", "micro_max", {}, "opt", s);
  double fold_naive =
      gradient_slope("micro_max.adl", "vector_max_fold", "micro_max", {}, "naive", s);
  std::cout << "vectorMax (ifold) gradient slopes: opt " << fold << ", naive " << fold_naive
            << "\n";
  CHECK(fold == Approx(1).margin(0.1));
  CHECK(fold_naive == Approx(2).margin(0.1));
}

TEST_CASE("digest 001 test 19: NNMF's gradient loses its extra factor n", "[fwdvec]") {
  // m = 8 fixed, n swept: the primal is O(mn); naive forward O(n * mn); optimised O(mn)
  auto s = sweep("n", {8, 16, 32, 64}, {{"m", 8}});
  double opt = gradient_slope("nnmf.adl", "nnmf_rank1", "nnmf_rank1", {"v"}, "opt", s);
  double naive = gradient_slope("nnmf.adl", "nnmf_rank1", "nnmf_rank1", {"v"}, "naive", s);
  std::cout << "nnmf_rank1 gradient (wrt v) slopes in n: opt " << opt << ", naive " << naive
            << "\n";
  CHECK(opt == Approx(1).margin(0.15));
  CHECK(naive == Approx(2).margin(0.15));
}

TEST_CASE("digest 001 test 16: mgrad of trace is O(n^2) optimised, O(n^3) naive", "[fwdvec]") {
  auto s = sweep("n", {4, 8, 16, 32});
  double opt = gradient_slope("matrix_trace.adl", "matrix_trace", "matrix_trace", {}, "opt", s);
  std::cout << "mgrad trace slope: opt " << opt << "\n";
  CHECK(opt <= 2.1);
  auto s2 = sweep("n", {4, 8, 16});
  double naive =
      gradient_slope("matrix_trace.adl", "matrix_trace", "matrix_trace", {}, "naive", s2);
  std::cout << "mgrad trace slope: naive " << naive << "\n";
  CHECK(naive >= 2.8);
}

// ---- digest 001 tests 22-25: Jacobians, widths, layouts ----

TEST_CASE("digest 001 test 22/23: Jacobians of vectorAdd and vectorSMul, layout [out, in]",
          "[fwdvec]") {
  ir::SizeMap s{{"n", 6}};
  auto add = load("micro_vec_add.adl", "vector_add");
  auto in = inputs(add, "micro_vec_add", s);
  for (std::size_t w : {0, 1, 4, 6}) {
    auto j = run(diff(add, Mode::Jacobian, {"v1"}, "", w).function, in, s).out;
    require_close(j[1], run(load("micro_vec_add.adl", "vector_add_jacobian"), in, s).out[0]);
  }
  auto smul = load("micro_vec_smul.adl", "vector_smul");
  auto in2 = inputs(smul, "micro_vec_smul", s);
  auto j = run(diff(smul, Mode::Jacobian, {"s"}).function, in2, s);
  require_close(j.out[1], run(load("micro_vec_smul.adl", "vector_smul_jacobian"), in2, s).out[0]);
}

TEST_CASE("digest 001 tests 24/25: BA project Jacobian (2N x 11) equal for every width k",
          "[fwdvec]") {
  ir::SizeMap s{{"N", 4}};
  auto f = load("ba_project.adl", "project");
  auto in = inputs(f, "ba_project", s);
  auto ref = run(diff(f, Mode::Jacobian, {"cam"}).function, in, s).out[1];
  REQUIRE(ref.values.size() == 4 * 2 * 11);
  for (std::size_t w : {1, 3, 4, 11}) {
    INFO("width " << w);
    require_close(run(diff(f, Mode::Jacobian, {"cam"}, "", w).function, in, s).out[1], ref, 1e-13);
  }
  require_close(run(diff(f, Mode::Jacobian, {"cam"}, "naive").function, in, s).out[1], ref, 1e-13);
  // and against every reverse strategy present
  for (const char* other : {"scatter", "dualrev"}) {
    const Strategy* st = StrategyRegistry::instance().find(other);
    if (!st) continue;
    INFO(other);
    auto d = st->differentiate(f, Request{{"cam"}, Mode::Jacobian, ""});
    backends::Options o;
    o.sizes = s;
    auto out = d.executable("interp", o)->run(in);
    require_close(out[1], ref, 1e-10);
  }
}

TEST_CASE("digest 001 test 25: jvp equals the Jacobian times the direction", "[fwdvec]") {
  ir::SizeMap s{{"N", 3}};
  auto f = load("ba_project.adl", "project");
  auto in = inputs(f, "ba_project", s);
  auto jac = run(diff(f, Mode::Jacobian, {"cam"}).function, in, s).out[1];
  ir::Tensor dir;
  dir.shape = {11};
  for (int k = 0; k < 11; ++k) dir.values.push_back(0.1 * (k + 1) - 0.5);
  auto args = in;
  args.push_back(dir);
  auto jv = run(diff(f, Mode::Jvp, {"cam"}).function, args, s).out[1];
  REQUIRE(jv.values.size() == 6);
  for (std::size_t o = 0; o < 6; ++o) {
    double want = 0;
    for (std::size_t k = 0; k < 11; ++k) want += jac.values[o * 11 + k] * dir.values[k];
    CHECK(jv.values[o] == Approx(want).epsilon(1e-12));
  }
}

// ---- errors ----

TEST_CASE("fwdvec errors: unknown parameter, unsupported constructs with positions", "[fwdvec]") {
  auto f = load("micro_dot.adl", "vector_dot");
  CHECK_THROWS_WITH(diff(f, Mode::Gradient, {"w"}), Catch::Contains("has no parameter `w`"));
  CHECK_THROWS_AS(diff(f, Mode::Gradient, {}, "fancy"), Error);
  auto m = ir::parse_module(
      "func g(x: f64) -> f64 {\n  return lgamma(x)\n}\n"
      "func h[n](A: f64[n, n]) -> f64 {\n  return max[i < n, j < n] A[i, j]\n}\n",
      "bad.adl");
  try {
    diff(m.entry("g"), Mode::Gradient);
    FAIL("lgamma must be unsupported");
  } catch (const Unsupported& e) {
    CHECK(std::string(e.what()).find("lgamma") != std::string::npos);
    CHECK(e.pos().line == 2);
  }
  CHECK_THROWS_AS(diff(m.entry("h"), Mode::Gradient), Unsupported);
}

// Decision 238 (an audit fuzz's finding F3): the naive variant repeats the primal after the
// original statements, and a loop whose states share the let's names (one interned variable
// each) rebound them there; `unknown name` came from every such program.
TEST_CASE("fwdvec naive: a loop whose states have its let's names (decision 238)", "[fwdvec]") {
  auto m = ir::parse_module(
      "func f(s: f64) -> f64 {\n"
      "  let (a, b) = loop[t < 2] (a = s, b = 0.5) { next (b * a, a * a) }\n"
      "  return b\n}\n",
      "states.adl");
  // (a, b): (s, 0.5) -> (0.5 s, s^2) -> (0.5 s^3, 0.25 s^2), so f = 0.25 s^2
  for (const char* variant : {"opt", "naive"}) {
    INFO(variant);
    auto out = run(diff(m.entry("f"), Mode::Gradient, {}, variant).function, {scalar(3)}).out;
    CHECK(out[0].values[0] == 2.25);
    CHECK(out[1].values[0] == 1.5);
    auto h = run(diff(m.entry("f"), Mode::Hvp, {}, variant).function, {scalar(3), scalar(2)}).out;
    CHECK(h.back().values[0] == 1);  // f'' = 0.5, direction 2
  }
}
// Decision 238, a reviewing helper: the tangent statements follow the primal ones and copy its
// bodies' block lets; a later primal statement binding the same name (`let t` below) was refused
// ("already in scope") or, before the type check was strict, called unknown.
TEST_CASE("fwdvec: a block let's name bound again by a later statement (decision 238)",
          "[fwdvec]") {
  auto m = ir::parse_module(
      "func f(x: f64[n]) -> f64 {\n  let q = gen[j < n] { let t = x[j] * x[j]; sin(t) }\n"
      "  let t = sum[j < n] q[j]\n  return t\n}\n"
      "func g(x: f64[n]) -> f64 {\n  let s = sum[j < n] { let t = x[j] * x[j]; sin(t) }\n"
      "  let t = s * 3\n  return t * 2\n}\n",
      "blocks.adl");
  const ir::Tensor x = ir::dense_f64({3}, {0.5, -1.25, 2.0});
  for (const char* func : {"f", "g"})
    for (const char* variant : {"opt", "naive"})
      for (Mode mode : {Mode::Gradient, Mode::Jvp, Mode::Hvp}) {
        INFO(func << " " << variant << " " << mode_name(mode));
        const double scale = std::string(func) == "f" ? 1 : 6;
        auto d = diff(m.entry(func), mode, {}, variant).function;
        std::vector<ir::Tensor> in{x};
        if (mode != Mode::Gradient) in.push_back(ir::dense_f64({3}, {1, 1, 1}));
        auto out = run(d, in).out;
        // f = sum sin(x_j^2): f' = 2 x cos(x^2), f'' = 2 cos(x^2) - 4 x^2 sin(x^2)
        double want = 0;
        for (double v : x.values)
          want += mode == Mode::Hvp ? 2 * std::cos(v * v) - 4 * v * v * std::sin(v * v)
                                    : 2 * v * std::cos(v * v);
        if (mode == Mode::Gradient) {
          for (std::size_t k = 0; k < 3; ++k) {
            const double v = x.values[k];
            CHECK(out[1].values[k] == Approx(scale * 2 * v * std::cos(v * v)).epsilon(1e-14));
          }
        } else {
          double got = 0;
          for (double v : out.back().values) got += v;
          CHECK(got == Approx(scale * want).epsilon(1e-13));
        }
      }
}

TEST_CASE("fwdvec scans (*), (max), (min) agree with the reverse strategies", "[fwdvec]") {
  auto m = ir::parse_module(
      "func f[n](a: f64[n]) -> f64 {\n"
      "  let p = scan[i < n] (*) a[i]\n"
      "  let q = scan[j < n] (max) sin(a[j])\n"
      "  let r = scan[k < n] (min) a[k] * a[k]\n"
      "  return sum[l < n] p[l] + q[l] * r[l]\n}\n",
      "scans.adl");
  ir::Tensor a;
  a.shape = {5};
  a.values = {0.7, -1.3, 2.1, 0.4, -0.9};
  ir::SizeMap s{{"n", 5}};
  auto g = run(diff(m.entry("f"), Mode::Gradient).function, {a}, s).out;
  const Strategy* other = StrategyRegistry::instance().find("scatter");
  REQUIRE(other);
  backends::Options o;
  o.sizes = s;
  auto want = other->differentiate(m.entry("f"), Request{{}, Mode::Gradient, ""})
                  .executable("interp", o)
                  ->run({a});
  require_close(g[1], want[1], 1e-12);
}

TEST_CASE("digest 001 section 4.8: LICM out of an empty per-point loop evaluates nothing",
          "[fwdvec]") {
  // camera-only work leaves BA's gen[o < N] under select(0 < N, ...): with N = 0 the hoisted
  // 1 / theta of a zero rotation is never evaluated, and an out-of-range read would not be either
  auto m = ir::parse_module(
      "func f[n](cam: f64[3], X: f64[N, 2]) -> f64[N] {\n"
      "  return gen[o < N] { let s = cam[n]; let t = sqrt(cam[0] * cam[0]); X[o, 0] * s / t }\n}\n",
      "licm.adl");
  ir::Tensor cam;
  cam.shape = {3};
  cam.values = {0.5, 2, 3};
  ir::Tensor X;
  X.shape = {0, 2};
  auto g = diff(m.entry("f"), Mode::Jacobian, {"cam"}).function;
  // n = 7 makes cam[n] out of range: fine while N = 0, an error once a point exists
  auto out = run(g, {cam, X}, {{"n", 7}}).out;
  CHECK(out[1].values.empty());
  X.shape = {1, 2};
  X.values = {1, 1};
  CHECK_THROWS_WITH(run(g, {cam, X}, {{"n", 7}}), Catch::Contains("out of range"));
  auto ok = run(g, {cam, X}, {{"n", 1}}).out;  // d/dcam (X s / t) with s = cam[1], t = |cam[0]|
  REQUIRE(ok[1].values.size() == 3);
  CHECK(ok[1].values[0] == Approx(-2 / (0.5 * 0.5)));
  CHECK(ok[1].values[1] == Approx(1 / 0.5));
  CHECK(ok[1].values[2] == 0);
}

TEST_CASE("LICM moves a whole direction-invariant select out of the direction loop", "[fwdvec]") {
  // tanh' and sigmoid' are selects on the argument's size (decision 223); left in gen[dir < k]
  // they were evaluated once per direction (neural's fwdvec ratio 21 -> 112).
  auto m = ir::parse_module(
      "func f(v: f64[n], x: f64) -> f64[n] {\n"
      "  return gen[d < n] v[d] * select(x * x < 1, tanh(x), sigmoid(x))\n}\n",
      "licm_select.adl");
  const auto* gen = m.entry("f")->results.at(0).as<ir::Gen>();
  REQUIRE(gen != nullptr);
  std::vector<ir::Stmt> hoisted;
  ir::Expr body = fwdvec::hoist_invariants(gen->body, gen->dom.vars.at(0), hoisted);
  REQUIRE(hoisted.size() == 1);
  CHECK(hoisted[0].value->kind == ir::NodeKind::Select);
  CHECK(ir::expr_str(body).find("select") == std::string::npos);
}

TEST_CASE("digest 001 test 21: vectorMax ifold, tangent at the last strict improvement",
          "[fwdvec]") {
  auto g = diff(load("micro_max.adl", "vector_max_fold"), Mode::Gradient).function;
  ir::Tensor v;
  v.shape = {4};
  v.values = {5, 1, 2, 5};  // no strict improvement over v[0]: the initial state's tangent
  auto out = run(g, {v}, {{"n", 4}}).out;
  CHECK(out[1].values == std::vector<double>{1, 0, 0, 0});
  v.values = {1, 5, 3, 5};  // `>` keeps the first of equal maxima
  out = run(g, {v}, {{"n", 4}}).out;
  CHECK(out[1].values == std::vector<double>{0, 1, 0, 0});
}

TEST_CASE("fwdvec derivatives print as callable .adl programs (DESIGN 2.3)", "[fwdvec]") {
  struct Case {
    std::string file, func, entry_name;
    Mode mode;
    std::vector<std::string> wrt;
    std::size_t width;
    ir::SizeMap sizes;
  };
  for (const auto& c : std::vector<Case>{
           {"micro_max.adl", "vector_max", "micro_max", Mode::Gradient, {}, 0, {{"n", 5}}},
           {"micro_max.adl", "vector_max_fold", "micro_max", Mode::Gradient, {}, 2, {{"n", 5}}},
           {"nnmf.adl", "nnmf", "nnmf", Mode::Gradient, {"H"}, 3, {{"m", 3}, {"n", 4}, {"k", 2}}},
           {"ba_project.adl", "project", "ba_project", Mode::Jacobian, {"cam"}, 4, {{"N", 2}}},
           {"scalar_rules.adl", "d_sin_square", "d_sin_square", Mode::Hvp, {}, 0, {}}}) {
    INFO(c.func << " " << mode_name(c.mode));
    auto f = load(c.file, c.func);
    auto d = diff(f, c.mode, c.wrt, "", c.width).function;
    std::string text = ir::function_str(*d);
    auto reparsed = ir::parse_module(text, "emitted.adl").functions.back();
    CHECK(ir::function_str(*reparsed) == text);
    auto in = inputs(f, c.entry_name, c.sizes);
    if (c.mode == Mode::Hvp) in.push_back(scalar(0.3));
    auto a = run(d, in, c.sizes).out, b = run(reparsed, in, c.sizes).out;
    REQUIRE(a.size() == b.size());
    for (std::size_t k = 0; k < a.size(); ++k) CHECK(a[k].values == b[k].values);
  }
}
