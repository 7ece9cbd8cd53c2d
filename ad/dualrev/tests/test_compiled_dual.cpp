// dualrev on backend cpu (issue 10 item 4, issue 6 item 1): the generated unit instantiated with
// T = Dual records the tape; its gradients are those of Interpreter<Dual>.
#include <catch2/catch.hpp>
#include <cmath>

#include "ad/dualrev/ir_engine.h"
#include "ad/strategy.h"
#include "ir/syntax/parser.h"
#include "ir/tensor/tensor_ops.h"

using namespace adlab;
using namespace adlab::ad;

namespace {

const char* kPrograms = R"(
func running_example(x: f64, y: f64) -> f64 {
  let z = x + y
  return x * z
}

func constructs(x: f64[n], idx: i64[m], k: i64, A: f64[n, n] @csr) -> f64 {
  let s = scan[i < n] (+) x[i] * x[i]
  let h = loop[r < k] (acc = x) { next gen[i < n] tanh(acc[i] + 0.5 * x[i]) }
  let g = sum[j < m] x[idx[j]] * h[idx[j]]
  let c = sum[i < n] select(x[i] < 0, -x[i], exp(x[i]) / (1 + x[i] * x[i]))
  let sp = sum[(i, j) in A] A[i, j] * x[j] * sigmoid(x[i])
  let t = scatter[j < m] to f64[n] at (idx[j]) add x[j] * x[j]
  let w = (max[i5 < n] sin(x[i5])) + sum[i6 < n, j6 < i6] [i6 + j6 < n] * log1p(x[i6] * x[i6]) * x[j6]
  return s[n - 1] + g + c + sp + sum[i < n] t[i] + w + pow(1.5 + x[0] * x[0], x[1]) + f64(i64(x[2] * 10))
}

func two_results(x: f64[3], y: f64) -> (f64[3], f64) {
  return (gen[i < 3] x[i] * y, sum[i < 3] x[i] * x[i])
}

func matvec(m: f64[r, c], v: f64[c]) -> f64 {
  let d = gen[i < r] sum[j < c] v[j] * m[i, j]
  return sum[i < r] d[i] * d[i]
}

func cross3(a: f64[3], b: f64[3]) -> f64[3] {
  return gen[e < 3] a[(e + 1) % 3] * b[(e + 2) % 3] - a[(e + 2) % 3] * b[(e + 1) % 3]
}

func rotated_rows(A: f64[n, 3], r: f64[3]) -> f64 {
  let y = gen[i < n] cross3(r, A[i])
  let z = select(r[0] > 0, cross3(r, A[0]), gen[e < 3] r[e] * r[e])
  return sum[i < n, j < 3] y[i, j] * y[i, j] * z[j]
}

func f32_constants(x: f32) -> f32 {
  let s = loop[t < 3] (a = x) { next a * f32(t + 1) }
  return s * f32(2)
}

func shifted(x: f64[n]) -> f64 {
  let y = gen[i < n] x[i + 1] * 2
  return sum[j < n] y[j]
}
)";

ir::FunctionPtr program(const std::string& name) {
  static ir::Module m = ir::parse_module(kPrograms, "compiled_dual_test.adl");
  return m.entry(name);
}

std::unique_ptr<backends::Executable> engine(const std::string& strategy, const std::string& fn,
                                             Mode mode, const std::string& backend,
                                             std::vector<std::string> wrt = {}) {
  auto [s, variant] = StrategyRegistry::instance().resolve(strategy);
  auto d = s->differentiate(program(fn), Request{std::move(wrt), mode, variant});
  backends::Options o;
  o.count_ops = true;
  return d.executable(backend, o);
}

std::vector<ir::Tensor> constructs_inputs() {
  ir::Tensor x = ir::dense_f64({5}, {0.3, -0.4, 0.7, 0.2, -0.9});
  ir::Tensor idx = ir::dense_i64({4}, {2, 0, 2, 4});
  ir::Tensor k = ir::dense_i64({}, {3});
  ir::Tensor A =
      ir::make_csr(5, 5, {0, 2, 3, 3, 5, 6}, {0, 3, 2, 1, 4, 0}, {1.5, -0.5, 2.0, 0.25, 1.0, -1.0});
  return {x, idx, k, A};
}

}  // namespace

TEST_CASE("003 section 4 running example compiled with T = Dual: (37, 12) exactly, same tape",
          "[dualrev][cpu]") {
  for (std::string s : {"dualrev/tape", "dualrev/staged-map", "dualrev/naive"}) {
    INFO(s);
    auto cpu = engine(s, "running_example", Mode::Gradient, "cpu");
    auto out = cpu->run({ir::scalar(12), ir::scalar(13)});
    REQUIRE(out.size() == 3);
    CHECK(out[0].values[0] == 12.0 * 25.0);
    CHECK(out[1].values[0] == 37.0);
    CHECK(out[2].values[0] == 12.0);
    // The compiled unit recorded the nodes the interpreter records: 2 leaves, z and x * z.
    auto interp = engine(s, "running_example", Mode::Gradient, "interp");
    interp->run({ir::scalar(12), ir::scalar(13)});
    REQUIRE(dualrev::last_resolve_stats(*cpu));
    CHECK(dualrev::last_resolve_stats(*cpu)->nodes_resolved ==
          dualrev::last_resolve_stats(*interp)->nodes_resolved);
    CHECK(cpu->counts() == nullptr);  // the compiled unit counts no operations (as backend cpu)
    CHECK(interp->counts() != nullptr);
  }
}

TEST_CASE("dualrev on cpu: f32 of a constant or an index compiles for T = Dual", "[dualrev][cpu]") {
  // `T(static_cast<float>(x))` did not compile for a Dual (an audit helper; decision 225):
  // d/dx (x * 1 * 2 * 3) * 2 = 12 at any x.
  ir::Tensor x = ir::dense_f64({}, {0.5});
  x.elem = ir::ElemType::F32;
  for (const char* backend : {"interp", "cpu"}) {
    INFO(backend);
    auto out = engine("dualrev", "f32_constants", Mode::Gradient, backend)->run({x});
    REQUIRE(out.size() == 2);
    CHECK(out[0].values.at(0) == 6.0);
    CHECK(out[1].values.at(0) == 12.0);
  }
}

TEST_CASE("dualrev on cpu: scan, loop, gathers, select, CSR, scatter, max, pow agree with interp",
          "[dualrev][cpu]") {
  auto in = constructs_inputs();
  auto want = engine("dualrev", "constructs", Mode::Gradient, "interp", {"x", "A"})->run(in);
  auto cpu = engine("dualrev", "constructs", Mode::Gradient, "cpu", {"x", "A"});
  auto got = cpu->run(in);
  REQUIRE(got.size() == want.size());
  for (std::size_t r = 0; r < got.size(); ++r) {
    INFO("result " << r);
    REQUIRE(got[r].values.size() == want[r].values.size());
    CHECK(got[r].storage == want[r].storage);
    for (std::size_t i = 0; i < got[r].values.size(); ++i)
      CHECK(got[r].values[i] ==
            Approx(want[r].values[i]).epsilon(1e-12).margin(1e-14 * std::fabs(want[0].values[0])));
  }
  CHECK(got[2].storage == ir::Storage::Csr);  // the gradient keeps A's stored pattern
  CHECK(dualrev::last_job_count(*cpu) == 1);  // the unit runs in the root job (no OpenMP)
  // A second run reuses the loaded unit and the tape: the same bits.
  auto again = cpu->run(in);
  for (std::size_t r = 0; r < got.size(); ++r) CHECK(again[r].values == got[r].values);
}

TEST_CASE(
    "dualrev on cpu: literal shapes (Fixed<Dual, 3>, pointer parameters, rows) agree with interp "
    "(digest section 7.1, BA's cross3)",
    "[dualrev][cpu]") {
  std::vector<ir::Tensor> in = {
      ir::dense_f64({4, 3}, {0.3, -0.4, 0.7, 0.2, -0.9, 1.1, -0.5, 0.6, 0.1, 0.8, -0.2, 0.4}),
      ir::dense_f64({3}, {0.25, -1.5, 0.75})};
  for (double r0 : {0.25, -0.25}) {  // both branches of the select
    INFO("r0 = " << r0);
    in[1].values[0] = r0;
    auto want = engine("dualrev", "rotated_rows", Mode::Gradient, "interp")->run(in);
    auto got = engine("dualrev", "rotated_rows", Mode::Gradient, "cpu")->run(in);
    REQUIRE(got.size() == want.size());
    for (std::size_t r = 0; r < got.size(); ++r) {
      INFO("result " << r);
      REQUIRE(got[r].values.size() == want[r].values.size());
      for (std::size_t i = 0; i < got[r].values.size(); ++i)
        CHECK(got[r].values[i] == Approx(want[r].values[i]).epsilon(1e-12).margin(1e-14));
    }
  }
}

TEST_CASE("dualrev on cpu: a contraction keeps its loops for T = Dual (Eigen takes double)",
          "[dualrev][cpu]") {
  // digest 003 section 7 `summatvec`: sum of squares of a matrix-vector product
  std::vector<ir::Tensor> in = {ir::dense_f64({2, 3}, {1, 2, 3, 4, 5, 6}),
                                ir::dense_f64({3}, {0.5, -1, 2})};
  auto got = engine("dualrev", "matvec", Mode::Gradient, "cpu")->run(in);
  // d = m v = (4.5, 9); f = |d|^2; df/dm[i, j] = 2 d[i] v[j], df/dv[j] = 2 sum_i d[i] m[i, j]
  REQUIRE(got.size() == 3);
  CHECK(got[0].values == std::vector<double>{4.5 * 4.5 + 9 * 9});
  CHECK(got[1].values == std::vector<double>{4.5, -9, 18, 9, -18, 36});
  CHECK(got[2].values == std::vector<double>{2 * (4.5 + 36), 2 * (9 + 45), 2 * (13.5 + 54)});
}

TEST_CASE("dualrev on cpu: vjp and jacobian with two results", "[dualrev][cpu]") {
  std::vector<ir::Tensor> in = {ir::dense_f64({3}, {1, 2, 3}), ir::scalar(0.5)};
  auto jac = engine("dualrev", "two_results", Mode::Jacobian, "cpu")->run(in);
  REQUIRE(jac.size() == 2 + 4);
  CHECK(jac[0].values == std::vector<double>{0.5, 1, 1.5});
  CHECK(jac[1].values == std::vector<double>{14});
  CHECK(jac[2].values == std::vector<double>{0.5, 0, 0, 0, 0.5, 0, 0, 0, 0.5});
  CHECK(jac[3].values == std::vector<double>{1, 2, 3});
  CHECK(jac[4].values == std::vector<double>{2, 4, 6});
  CHECK(jac[5].values == std::vector<double>{0});
  auto in_vjp = in;
  in_vjp.push_back(ir::dense_f64({3}, {1, -1, 2}));
  in_vjp.push_back(ir::scalar(3));
  auto v = engine("dualrev", "two_results", Mode::Vjp, "cpu")->run(in_vjp);
  REQUIRE(v.size() == 4);
  CHECK(v[2].values == std::vector<double>{0.5 + 6, -0.5 + 12, 1 + 18});
  CHECK(v[3].values == std::vector<double>{1 - 2 + 6});
}

TEST_CASE("dualrev on cpu: an out-of-range read is an error at its IR position, other backends",
          "[dualrev][cpu]") {
  auto cpu = engine("dualrev", "shifted", Mode::Gradient, "cpu");
  CHECK_THROWS_WITH(
      cpu->run({ir::dense_f64({3}, {1, 2, 3})}),
      Catch::Contains("compiled_dual_test.adl:") && Catch::Contains("= 3 is outside [0, 3)"));
  auto [s, variant] = StrategyRegistry::instance().resolve("dualrev");
  auto d = s->differentiate(program("running_example"), Request{});
  CHECK_THROWS_WITH(d.executable("gpu", {}), Catch::StartsWith("error: unknown backend `gpu`"));
}
