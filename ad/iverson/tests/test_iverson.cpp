// The iverson strategy on paper 000's test cases (digest 000 section 12, TC1-TC20).
#include <catch2/catch.hpp>

#include <cmath>
#include <iostream>

#include "ad/iverson/normal_form.h"
#include "ad/iverson/normalise.h"
#include "ad/iverson/tests/iverson_test_util.h"
#include "checker/complexity/complexity.h"
#include "checker/harness/harness.h"
#include "ir/builder.h"
#include "ir/interp/interpreter.h"
#include "ir/syntax/printer.h"
#include "ir/tensor/tensor_ops.h"

using namespace adlab;
using namespace adlab::ad;
using namespace adlab::ad::iverson::testing;

namespace {

ir::Suite iverson_suite() {
  return ir::load_manifest(suites_root() + "/papers/iverson/manifest.json", suites_root());
}

const ir::SuiteEntry& entry(const ir::Suite& s, const std::string& name) {
  for (const auto& e : s.entries)
    if (e.name == name) return e;
  FAIL("no entry " << name);
  return s.entries[0];
}

ir::Tensor scalar(double v) {
  ir::Tensor t;
  t.values = {v};
  return t;
}

ir::Tensor matrix(std::int64_t r, std::int64_t c, double seed) {
  ir::Tensor t;
  t.shape = {r, c};
  for (std::int64_t k = 0; k < r * c; ++k)
    t.values.push_back(std::sin(seed + 0.7 * static_cast<double>(k)) * 1.3);
  return t;
}

ir::FunctionPtr parse_one(const std::string& text, const std::string& func) {
  static std::vector<ir::Module> keep;
  keep.push_back(ir::parse_module(text, "bad.adl"));
  return keep.back().entry(func);
}

std::string unsupported_message(const std::string& text, const std::string& func) {
  auto f = parse_one(text, func);
  try {
    strategy().differentiate(f, Request{{}, Mode::Gradient, ""});
  } catch (const Unsupported& u) {
    return u.pos().str() + ": " + u.message();
  }
  return "no error";
}

// Paper cost (all counted operations) of the primal, evaluated literally, and of the derivative.
struct CostRow {
  double size = 0;
  std::int64_t primal = 0, derivative = 0;
};

std::vector<CostRow> cost_sweep(const ir::SuiteEntry& e, const std::vector<ir::SizeMap>& sweep,
                                const std::string& variant = "") {
  auto f = load(e);
  auto d = strategy().differentiate(f, Request{e.wrt, Mode::Gradient, variant});
  std::vector<CostRow> rows;
  for (const auto& sizes : sweep) {
    ir::SuiteEntry at = e;
    at.sizes["small"] = sizes;
    auto inputs = ir::entry_inputs(*f, at, "small");
    ir::Interpreter<double> interp(ir::EvalOptions{sizes, true, false});
    interp.run_tensors(*f, inputs);
    CostRow r;
    for (const auto& t : inputs)
      if (ir::is_float(t.elem)) r.size += static_cast<double>(t.nnz());
    r.primal = interp.counts().total();
    r.derivative = run_counted(d.function, inputs, sizes).counts.total();
    rows.push_back(r);
  }
  return rows;
}

double slope(const std::vector<CostRow>& rows, bool derivative) {
  std::vector<std::pair<double, double>> xy;
  for (const auto& r : rows)
    xy.emplace_back(r.size, static_cast<double>(derivative ? r.derivative : r.primal));
  return checker::loglog_slope(xy);
}

}  // namespace

TEST_CASE("digest 000 section 12 TC1-TC20: adlab check passes on papers/iverson", "[slow]") {
  checker::HarnessOptions o;
  o.strategies = {"iverson"};
  o.backends = {"interp"};
  auto r = checker::run_harness({iverson_suite()}, o);
  std::size_t pass = 0;
  for (const auto& c : r.cells) {
    INFO(c.entry << " " << c.mode << ": " << c.detail);
    CHECK((c.status == checker::Status::Pass || c.status == checker::Status::Unsupported));
    if (c.status == checker::Status::Pass) ++pass;
    // only the Jacobian mode is declined on paper 000's own programs
    if (c.status == checker::Status::Unsupported) CHECK(c.mode == "jacobian");
  }
  CHECK(pass >= 70);
  CHECK(r.closed_forms.size() >= 20);
  for (const auto& c : r.closed_forms) {
    INFO(c.entry << ": " << c.detail);
    CHECK(c.status == checker::Status::Pass);
  }
  // the adjoint test: <y', J x'> by the forward rules against <J^T y', x'> by transposition
  CHECK(r.adjoints.size() == iverson_suite().entries.size());
  for (const auto& a : r.adjoints) {
    INFO(a.entry << ": " << a.lhs << " vs " << a.rhs << " " << a.detail);
    CHECK(a.status == checker::Status::Pass);
  }
}

TEST_CASE("digest 000 TC11: the linear DAG's vjp is the paper's transposed DAG, exactly",
          "[unit]") {
  auto s = iverson_suite();
  const auto& e = entry(s, "tc11_linear_dag");
  auto f = load(e);
  auto expected = ir::parse_file(e.program).entry("tc11_grad");
  auto d = strategy().differentiate(f, Request{{}, Mode::Vjp, ""});
  for (double x : {0.5, -1.25}) {
    for (double zb : {1.0, 0.0, -3.5}) {
      std::vector<ir::Tensor> in = {scalar(x), scalar(2.0), scalar(zb), scalar(0.75)};
      auto got = run_counted(d.function, in, {}).out;
      auto want = run_counted(expected, in, {}).out;
      REQUIRE(got.size() == 4);  // (z, w, x', y')
      CHECK(got[2].values[0] == want[0].values[0]);
      CHECK(got[3].values[0] == want[1].values[0]);
      CHECK(got[3].values[0] == 33 * 0.75);
    }
  }
  // additions and scalings of the transposed DAG: 3 + 6 in the paper; here 8 with the seed
  // scalings of z' and w' (8 z', 46 w' and 33 w' are folded by the paper's figure)
  std::vector<ir::Tensor> in = {scalar(1), scalar(2), scalar(3), scalar(4)};
  auto primal = run_counted(f, {scalar(1), scalar(2)}, {}).counts.total();
  auto deriv = run_counted(d.function, in, {}).counts.total();
  CHECK(deriv - primal <= 10);
}

TEST_CASE("digest 000 TC13: the matmul vjp is (dC B^T, A^T dC) exactly", "[unit]") {
  auto s = iverson_suite();
  const auto& e = entry(s, "tc13_matmul");
  auto f = load(e);
  auto expected = ir::parse_file(e.program).entry("tc13_grad");
  auto d = strategy().differentiate(f, Request{{}, Mode::Vjp, ""});
  std::vector<ir::Tensor> in = {matrix(3, 4, 0.1), matrix(4, 5, 0.2), matrix(3, 5, 0.3)};
  auto got = run_counted(d.function, in, {}).out;
  auto want = run_counted(expected, in, {}).out;
  REQUIRE(got.size() == 3);
  CHECK(got[1].values == want[0].values);  // bitwise: the same products summed in the same order
  CHECK(got[2].values == want[1].values);
  // no bracket sum survives: the derivative is sum[j1] dC[i0, j1] * B[j0, j1], not 4 nested sums
  std::string text = ir::function_str(*d.function);
  INFO(text);
  CHECK(text.find("==") == std::string::npos);
}

TEST_CASE("digest 000 TC2, TC3: gradients are O(n), the naive transposition of TC3 is O(n^2)",
          "[unit]") {
  auto s = iverson_suite();
  std::vector<ir::SizeMap> sweep = {
      {{"n", 16}, {"k", 3}}, {{"n", 32}, {"k", 3}}, {{"n", 64}, {"k", 3}}};
  auto without_k = [](std::vector<ir::SizeMap> points) {
    for (auto& m : points) m.erase("k");
    return points;
  };
  for (const char* name : {"tc02_k_traces", "tc02_k_traces_let", "tc03_diag_dot"}) {
    auto sizes = std::string(name) == "tc03_diag_dot" ? without_k(sweep) : sweep;  // TC3 has no k
    auto rows = cost_sweep(entry(s, name), sizes);
    INFO(name << " derivative counts " << rows[0].derivative << " " << rows[1].derivative << " "
              << rows[2].derivative);
    CHECK(slope(rows, true) < 1.1);
    for (const auto& r : rows) CHECK(r.derivative <= 4 * r.primal);
  }
  auto naive = cost_sweep(entry(s, "tc03_diag_dot"), without_k(sweep), "naive");
  INFO("naive tc03 counts " << naive[0].derivative << " " << naive[1].derivative << " "
                            << naive[2].derivative);
  CHECK(slope(naive, true) > 1.9);  // n^2 additions of dense zero contributions
  CHECK(naive[2].derivative > 4 * naive[2].primal);
}

TEST_CASE(
    "paper 000 Theorem 6.35: cost ratio <= 4 at three sizes on every supported suite "
    "program, slope no steeper than the primal's",
    "[slow]") {
  std::size_t measured = 0;
  for (const auto& suite : ir::find_suites(suites_root())) {
    for (const auto& e : suite.entries) {
      if (std::find(e.modes.begin(), e.modes.end(), "gradient") == e.modes.end()) continue;
      try {
        strategy().differentiate(load(e), Request{e.wrt, Mode::Gradient, ""});
      } catch (const Unsupported&) {
        continue;
      }
      auto rows = cost_sweep(e, checker::sweep_sizes(e, "small", {1, 2, 4}));
      REQUIRE(rows.size() == 3);
      ++measured;
      for (const auto& r : rows) {
        INFO(e.id() << " at " << r.size << " inputs: primal " << r.primal << ", derivative "
                    << r.derivative);
        if (e.id() == "papers/dftilde/d_pow") {
          // pow(x, y) by both arguments: the primal is one black box, its two partials need two
          // more (pow(x, y - 1) and log x) plus 3 arithmetic operations and the two comparisons
          // of their limits at 0 (y == 0, x == 0: ad/pow_partials.h, decision 157); the
          // operation count charges every black box 1, so the ratio is 8
          // (docs/strategies/iverson.md)
          CHECK(r.derivative == 8 * r.primal);
          continue;
        }
        // The same wherever pow or sigmoid is differentiated (suites/primitives, decisions 243,
        // 247): their partials are IR expressions, pow's with its limits and sigmoid's with the
        // select between (1 - tanh(x/2)^2) / 4 and s sigmoid(-x) (ad/saturating_partials.h), not
        // the unit black boxes of Theorem 6.1's proof; measured 4.05-4.21 on sum_pow and
        // sum_sigmoid, 6.3 on pow_of_square and 4.5 on root_of_square (primals of 2-3 operations)
        const std::string text = ir::function_str(*load(e));
        const bool composite_partials =
            text.find("pow(") != std::string::npos || text.find("sigmoid(") != std::string::npos;
        // and pow_at_zero, d_pow at y = 0: the base's guard also tests |x| (decision 244): 10
        const double bound = e.id() == "primitives/pow_at_zero" ? 10.0
                             : composite_partials               ? 8.0
                                                                : 4.0;
        CHECK(static_cast<double>(r.derivative) <= bound * static_cast<double>(r.primal) + 1e-9);
      }
      double ps = slope(rows, false), ds = slope(rows, true);
      std::cout << e.id() << ": ratios";
      for (const auto& r : rows)
        std::cout << " " << static_cast<double>(r.derivative) / static_cast<double>(r.primal);
      std::cout << "; slopes primal " << ps << " gradient " << ds << "\n";
      if (std::isnan(ps)) continue;  // fixed-size programs (TC10, TC11, TC20)
      INFO(e.id() << ": primal slope " << ps << ", gradient slope " << ds);
      // Normalisation can make the derivative asymptotically cheaper than the literal primal
      // (TC1: the n x n gen under the access is never built); never steeper.
      CHECK(ds <= ps + 0.1);
    }
  }
  CHECK(measured >= 20);
}

TEST_CASE("digest 000 section 12 (all suites): every derivative is gathers only", "[slow]") {
  std::size_t derived = 0, declined = 0;
  for (const auto& suite : ir::find_suites(suites_root())) {
    for (const auto& e : suite.entries) {
      for (Mode m : {Mode::Gradient, Mode::Vjp, Mode::Jvp, Mode::Hvp}) {
        if (std::find(e.modes.begin(), e.modes.end(), mode_name(m)) == e.modes.end()) continue;
        Derivative d;
        try {
          d = strategy().differentiate(load(e), Request{e.wrt, m, ""});
        } catch (const Unsupported& u) {
          ++declined;
          INFO(e.id() << " " << mode_name(m) << ": " << u.message());
          CHECK(u.pos().valid());  // a declined program names the position of the construct
          continue;
        }
        ++derived;
        GatherOnly g;
        g.visit(d.function->body_expr());
        INFO(e.id() << " " << mode_name(m) << "\n" << ir::function_str(*d.function));
        CHECK(g.scatters == 0);
        CHECK(g.nested_lets == 0);
        // a derivative prints as a callable .adl function (DESIGN 2.3)
        std::string text = ir::function_str(*d.function);
        auto again = ir::parse_module(text, "derivative.adl");
        CHECK(ir::function_str(*again.functions.back()) == text);
      }
    }
  }
  std::cout << "gather-only: " << derived << " derivatives checked, " << declined << " declined\n";
  CHECK(derived >= 70);
}

TEST_CASE("digest 000 section 4 P9: normalised programs are Tensor SSA, the validator can fail",
          "[unit]") {
  for (const auto& e : iverson_suite().entries) {
    auto f = load(e);
    iverson::FreshNames names;
    names.reserve_all(*f);
    ir::logic::PredicateService logic;
    auto p = iverson::normalise(*f, names, logic);
    auto v = iverson::is_tensor_ssa(p);
    INFO(e.id() << ": " << v.reason);
    CHECK(v.ok);
  }
  // a let under a gen is not Tensor SSA (TC17 before let-lifting)
  using namespace ir::dsl;
  ir::Expr x = f64("x", {index("n")});
  ir::Expr i = index("i"), t = f64("t");
  iverson::SsaProgram bad;
  ir::Expr y = ir::Var::make("y", ir::Type::tensor(ir::ElemType::F64, {index("n")}));
  bad.stmts.push_back(
      ir::Stmt{{y}, gen({{i, index("n")}}, let(t, at(x, {i}) * at(x, {i}), t * t))});
  bad.results.push_back(y);
  auto v = iverson::is_tensor_ssa(bad);
  CHECK_FALSE(v.ok);
  CHECK(v.reason.find("a let in a body") != std::string::npos);
}

TEST_CASE("digest 000 bad input: constructs outside paper 000 are UNSUPPORTED with position",
          "[unit]") {
  CHECK(unsupported_message("func f(x: f64[n]) -> f64 {\n  return max[i < n] x[i]\n}\n", "f") ==
        "bad.adl:2:10: iverson: a `max` reduction is outside paper 000's language");
  CHECK(unsupported_message("func f(x: f64[n], idx: i64[n]) -> f64 {\n"
                            "  return sum[i < n] x[idx[i]]\n}\n",
                            "f")
            .find("bad.adl:2:") == 0);
  CHECK(unsupported_message("func f(x: f64[n], idx: i64[n]) -> f64 {\n"
                            "  return sum[i < n] x[idx[i]]\n}\n",
                            "f")
            .find("a data-dependent index") != std::string::npos);
  CHECK(unsupported_message("func f(x: f64) -> f64 {\n"
                            "  let h = loop[t < 3] (s = x) { next s * s }\n  return h\n}\n",
                            "f") ==
        "bad.adl:2:11: iverson: `loop` is outside paper 000's language");
  CHECK(unsupported_message("func f(x: f64[n]) -> f64 {\n"
                            "  let c = scan[i < n] (+) x[i]\n  return c[0]\n}\n",
                            "f")
            .find("`scan` is outside paper 000's language") != std::string::npos);
  // a scatter whose body lets a non-trivial value (an audit fuzz: "unknown name `i`")
  CHECK(unsupported_message(
            "func f(x: f64[n], y: f64[n], k: i64[n]) -> f64 {\n"
            "  let v = scatter[i < n] to f64[n] at (k[i]) add { let b = min(y[i], y[i]) ; "
            "sin(b) }\n  return x[0] + v[0]\n}\n",
            "f")
            .find("`scatter` is outside paper 000's language") != std::string::npos);
  CHECK(unsupported_message("func f(x: f64[n]) -> f64 {\n  return sum[i < n, j < i] x[j]\n}\n",
                            "f") ==
        "bad.adl:2:10: iverson: a triangular sum bound is outside paper 000's language");
}

TEST_CASE(
    "extension select: the adjoint goes to the taken branch, the untaken one is not "
    "evaluated (digest 000 section 4, lazy forms)",
    "[unit]") {
  // select(i > 0, x[i - 1], 0) reads x[-1] in its untaken branch: a lifted or adjoint statement
  // that evaluated it eagerly would fail; relu-like selects on data pick the branch per element
  auto f = parse_one(
      "func f(x: f64[n]) -> f64 {\n"
      "  let y = gen[i < n] select(i > 0, exp(x[i - 1]) * x[i], 0)\n"
      "  return sum[j < n] select(y[j] > 1, y[j] * y[j], 2 * y[j])\n}\n",
      "f");
  auto d = strategy().differentiate(f, Request{{}, Mode::Gradient, ""});
  std::vector<double> x = {0.3, -0.2, 1.5, 0.1};
  ir::Tensor xt;
  xt.shape = {4};
  xt.values = x;
  auto out = run_counted(d.function, {xt}, {}).out;
  REQUIRE(out.size() == 2);
  // by hand: y = [0, e^.3 * -.2, e^-.2 * 1.5, e^1.5 * .1]; dL/dy = 2y where y > 1, else 2
  std::vector<double> y = {0, std::exp(0.3) * -0.2, std::exp(-0.2) * 1.5, std::exp(1.5) * 0.1};
  std::vector<double> dy(4);
  for (int i = 0; i < 4; ++i) dy[i] = y[i] > 1 ? 2 * y[i] : 2;
  std::vector<double> want(4, 0.0);
  for (int i = 1; i < 4; ++i) {
    want[i] += dy[i] * std::exp(x[i - 1]);             // d y_i / d x_i
    want[i - 1] += dy[i] * std::exp(x[i - 1]) * x[i];  // d y_i / d x_{i-1}
  }
  for (int i = 0; i < 4; ++i) CHECK(out[1].values[i] == Approx(want[i]).epsilon(1e-14));
  GatherOnly g;
  g.visit(d.function->body_expr());
  CHECK(g.scatters == 0);
  CHECK(g.nested_lets == 0);
}

TEST_CASE("iverson hvp: a decline met in its own gradient program says so (decision 250)",
          "[unit]") {
  // the gradient program of a select under a sum reads its flag `taken[i]` in a bracket, a
  // data-dependent index that the forward pass declines; the user's program has no such read
  ir::Module m = ir::parse_module(
      "func f(x: f64[n]) -> f64 { return sum[i < n] select(x[i] > 0, x[i] * x[i], 0) }");
  try {
    strategy().differentiate(m.functions.back(), Request{{}, Mode::Hvp, ""});
    FAIL("expected a decline");
  } catch (const Unsupported& u) {
    REQUIRE(u.notes().size() == 1);
    CHECK_THAT(u.notes()[0], Catch::Contains("iverson's own gradient program"));
  }
}

TEST_CASE("iverson hvp through a scalar select: the flag `taken` compares numbers (decision 250)",
          "[unit]") {
  // f = select(y > 10, y, 0) * x: H = [[0, 1], [1, 0]] where y > 10, 0 elsewhere; the scalar
  // flag of the gradient program was declined as "an index computed by a `let`"
  ir::Module m =
      ir::parse_module("func f(x: f64, y: f64) -> f64 { return select(y > 10, y, 0) * x }");
  Derivative d = strategy().differentiate(m.functions.back(), Request{{}, Mode::Hvp, ""});
  for (double y : {11.0, 0.5}) {
    INFO("y = " << y);
    auto out = d.executable("interp", {})
                   ->run({ir::dense_f64({}, {-2.0}), ir::dense_f64({}, {y}),
                          ir::dense_f64({}, {1.0}), ir::dense_f64({}, {3.0})});
    REQUIRE(out.size() >= 2);
    CHECK(out[out.size() - 2].values.at(0) == (y > 10 ? 3.0 : 0.0));  // (H v)_x = v_y
    CHECK(out.back().values.at(0) == (y > 10 ? 1.0 : 0.0));           // (H v)_y = v_x
  }
}
