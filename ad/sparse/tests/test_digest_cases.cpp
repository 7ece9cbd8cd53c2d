// Every gradient test case of digest 004 section 9.1, through the registered `sparse` strategy
// (A = [[1,0,2],[0,3,0],[4,0,5]] as CSR pos [0,2,3,5], idx [0,2,1,0,2], val [1,2,3,4,5]).
#include <catch2/catch.hpp>
#include <cmath>

#include "ad/sparse/tangent_engine.h"
#include "ad/strategy.h"
#include "ir/interp/interpreter.h"
#include "ir/syntax/parser.h"
#include "ir/tensor/tensor_ops.h"

using namespace adlab;
using namespace adlab::ad;

namespace {

const char* kPrograms = R"(
func vvd(v1: f64[n], v2: f64[n] @coo) -> f64 {
  return sum[(i) in v2] v1[i] * v2[i]
}
func vvd_other_order(v1: f64[n], v2: f64[n] @coo) -> f64 {
  return sum[i < n] v1[i] * v2[i]
}
func vvd_sparse(v1: f64[n] @coo, v2: f64[n] @coo) -> f64 {
  return sum[(i) in v1] v1[i] * v2[i]
}
func vva(v1: f64[n], v2: f64[n] @coo) -> f64[n] {
  return gen[i < n] v1[i] + v2[i]
}
func vsm(v: f64[n] @coo, s: f64) -> f64[n] @coo {
  return scatter[(i) in v] to f64[n] @coo at (i) add v[i] * s * s
}
func vsm_anf(v: f64[n] @coo, s: f64) -> f64[n] @coo {
  let t1 = scatter[(i) in v] to f64[n] @coo at (i) add v[i] * s
  return scatter[(k) in t1] to f64[n] @coo at (k) add t1[k] * s
}
func smvm(A: f64[n, m] @csr, x: f64[m]) -> f64 {
  return sum[(i, j) in A] A[i, j] * x[j]
}
func smmm(A: f64[n, p] @csr, B: f64[p, m]) -> f64 {
  return sum[(i, k) in A] A[i, k] * sum[j < m] B[k, j]
}
func smmm_sparse(A: f64[n, p] @csr, B: f64[p, m] @csr) -> f64 {
  return sum[(i, k) in A] A[i, k] * sum[(j) in B[k]] B[k, j]
}
func batax(A: f64[n, m] @csr, x: f64[m], beta: f64) -> f64[m] {
  let r = gen[i < n] sum[(k) in A[i]] A[i, k] * x[k]
  return scatter[(i2, j) in A] to f64[m] at (j) add beta * A[i2, j] * r[i2]
}
func batax_normalised(A: f64[n, m] @csr, beta: f64) -> f64[m, m] {
  return gen[j < m, k < m] beta * sum[i < n] A[i, j] * A[i, k]
}
func trace(M: f64[n, n] @csr) -> f64 {
  return sum[(i, j) in M] [i == j] * M[i, j]
}
func scale(s: f64, v: f64[n] @coo) -> f64[n] @coo {
  return scatter[(i) in v] to f64[n] @coo at (i) add s * v[i]
}
func unary_exp(v: f64[n] @coo) -> f64 {
  return sum[(i) in v] exp(v[i])
}
func unary_sin(v: f64[n] @coo) -> f64 {
  return sum[(i) in v] sin(v[i])
}
func unary_cos(v: f64[n] @coo) -> f64 {
  return sum[(i) in v] cos(v[i])
}
func outer(u: f64[p], w: f64[q]) -> f64[p, q] {
  return gen[i < p, j < q] u[i] * w[j]
}
func iverson_let(v: f64[n] @coo) -> f64 {
  return sum[(i) in v] {
    let sq = v[i] * v[i]
    [i == 2] * sq
  }
}
func iverson_inline(v: f64[n] @coo) -> f64 {
  return sum[(i) in v] [i == 2] * (v[i] * v[i])
}
func matmul_sum(M1: f64[n, p], M2: f64[p, m] @csr) -> f64 {
  let P = gen[i < n, k < m] sum[j < p] M1[i, j] * M2[j, k]
  return sum[i2 < n, k2 < m] P[i2, k2]
}
func scalar_f(x: f64, y: f64) -> f64 {
  return sin(x) * y + x * x
}
func rounds(x: f64[n]) -> f64 {
  return sum[i < n] f64(f32(x[i]))
}
)";

ir::FunctionPtr program(const std::string& name) {
  static ir::Module m = ir::parse_module(kPrograms, "sparse_digest_cases.adl");
  return m.entry(name);
}

std::vector<ir::Tensor> run(const std::string& strategy, const std::string& fn, Mode mode,
                            const std::vector<ir::Tensor>& in, std::vector<std::string> wrt) {
  auto [s, variant] = StrategyRegistry::instance().resolve(strategy);
  auto d = s->differentiate(program(fn), Request{wrt, mode, variant});
  backends::Options o;
  o.count_ops = true;
  return d.executable("interp", o)->run(in);
}

ir::Tensor matrix_a() {
  return ir::make_csr(3, 3, {0, 2, 3, 5}, {0, 2, 1, 0, 2}, {1, 2, 3, 4, 5});
}
ir::Tensor v2_digest() {  // V2 = {1: 5, 3: 7}
  return ir::make_coo({4}, {1, 3}, {5, 7});
}

}  // namespace

TEST_CASE("digest 004 9.1 test 1: VVD w.r.t. dense V1 is V2, w.r.t. V2 {1:2, 3:4}, both orders",
          "[sparse]") {
  std::vector<ir::Tensor> in = {ir::dense_f64({4}, {1, 2, 3, 4}), v2_digest()};
  for (std::string fn : {"vvd", "vvd_other_order"}) {
    INFO(fn);
    auto g1 = run("sparse", fn, Mode::Gradient, in, {"v1"});
    REQUIRE(g1.size() == 2);
    CHECK(g1[0].values[0] == 38);
    CHECK(g1[1].values == std::vector<double>{0, 5, 0, 7});
    auto g2 = run("sparse", fn, Mode::Gradient, in, {"v2"});
    CHECK(g2[1].storage == ir::Storage::Coo);
    CHECK(g2[1].coords == std::vector<std::int64_t>{1, 3});
    CHECK(g2[1].values == std::vector<double>{2, 4});
  }
}

TEST_CASE("digest 004 9.1 test 2: VVD w.r.t. sparse V1 is restricted to supp(V1), key 3 absent",
          "[sparse]") {
  std::vector<ir::Tensor> in = {ir::make_coo({4}, {0, 1}, {1, 2}), v2_digest()};
  auto g = run("sparse", "vvd_sparse", Mode::Gradient, in, {"v1"});
  CHECK(g[0].values[0] == 10);
  CHECK(g[1].storage == ir::Storage::Coo);
  CHECK(g[1].coords == std::vector<std::int64_t>{0, 1});  // the pattern of V1: no key 3
  CHECK(g[1].values == std::vector<double>{0, 5});        // explicit 0 at key 0
}

TEST_CASE("digest 004 9.1 test 3: VVA w.r.t. dense V1 is the identity {i:{i:1}}", "[sparse]") {
  std::vector<ir::Tensor> in = {ir::dense_f64({4}, {1, 2, 3, 4}), v2_digest()};
  auto j = run("sparse", "vva", Mode::Jacobian, in, {"v1"});
  REQUIRE(j.size() == 2);
  CHECK(j[0].values == std::vector<double>{1, 7, 3, 11});
  CHECK(j[1].values == std::vector<double>{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1});
  auto c = run("sparse/coo", "vva", Mode::Jacobian, in, {"v1"});
  CHECK(c[1].storage == ir::Storage::Coo);  // exactly the stored diagonal, never densified
  CHECK(c[1].coords == std::vector<std::int64_t>{0, 0, 1, 1, 2, 2, 3, 3});
  CHECK(c[1].values == std::vector<double>{1, 1, 1, 1});
}

TEST_CASE("digest 004 9.1 test 4: VSM V * s * s w.r.t. s is 2 s V = {0:4, 2:12}", "[sparse]") {
  std::vector<ir::Tensor> in = {ir::make_coo({3}, {0, 2}, {1, 3}), ir::scalar(2)};
  for (std::string fn : {"vsm", "vsm_anf"}) {
    INFO(fn);
    auto j = run("sparse", fn, Mode::Jacobian, in, {"s"});
    REQUIRE(j.size() == 2);
    CHECK(j[0].storage == ir::Storage::Coo);
    CHECK(j[0].values == std::vector<double>{4, 12});
    // DESIGN 2.3: one dim per stored output entry, then the scalar s's (none)
    CHECK(j[1].shape == std::vector<std::int64_t>{2});
    CHECK(j[1].values == std::vector<double>{4, 12});
  }
}

TEST_CASE("digest 004 9.1 test 5: SMVM w.r.t. dense x is {0:5, 1:3, 2:7}", "[sparse]") {
  auto g =
      run("sparse", "smvm", Mode::Gradient, {matrix_a(), ir::dense_f64({3}, {1, 2, 3})}, {"x"});
  CHECK(g[0].values[0] == 32);
  CHECK(g[1].values == std::vector<double>{5, 3, 7});
}

TEST_CASE("digest 004 9.1 test 6: SMMM w.r.t. dense B is [[5,5],[3,3],[7,7]], sparse B: stored",
          "[sparse]") {
  auto g = run("sparse", "smmm", Mode::Gradient,
               {matrix_a(), ir::dense_f64({3, 2}, {1, 2, 3, 4, 5, 6})}, {"B"});
  CHECK(g[0].values[0] == 113);
  CHECK(g[1].values == std::vector<double>{5, 5, 3, 3, 7, 7});
  ir::Tensor b = ir::make_csr(3, 2, {0, 1, 1, 3}, {1, 0, 1}, {1, 2, 3});  // (0,1),(2,0),(2,1)
  auto s = run("sparse", "smmm_sparse", Mode::Gradient, {matrix_a(), b}, {"B"});
  CHECK(s[1].storage == ir::Storage::Csr);
  CHECK(s[1].col_idx == b.col_idx);
  CHECK(s[1].values == std::vector<double>{5, 7, 7});
}

TEST_CASE("digest 004 9.1 test 7: BATAx beta = 2 gives 2 A^T A = [[34,0,44],[0,18,0],[44,0,58]]",
          "[sparse]") {
  std::vector<ir::Tensor> in = {matrix_a(), ir::dense_f64({3}, {1, 1, 1}), ir::scalar(2)};
  auto j = run("sparse", "batax", Mode::Jacobian, in, {"x"});
  REQUIRE(j.size() == 2);
  CHECK(j[0].values == std::vector<double>{78, 18, 102});
  CHECK(j[1].values == std::vector<double>{34, 0, 44, 0, 18, 0, 44, 0, 58});
  // The stored keys are exactly the union of the rows' outer-product patterns.
  auto c = run("sparse/coo", "batax", Mode::Jacobian, in, {"x"});
  CHECK(c[1].coords == std::vector<std::int64_t>{0, 0, 0, 2, 1, 1, 2, 0, 2, 2});
  CHECK(c[1].values == std::vector<double>{34, 44, 18, 44, 58});
  // The normalised form beta * sum(<i,r> in A) r * r gives the same numbers.
  ir::Interpreter<double> interp;
  auto norm = interp.run_tensors(*program("batax_normalised"), {matrix_a(), ir::scalar(2)});
  CHECK(norm[0].values == j[1].values);
}

TEST_CASE("digest 004 9.1 test 8: trace w.r.t. M (tau = tensor 2) is 1 on the stored diagonal",
          "[sparse]") {
  // M stores (0,0), (0,2), (1,1), (2,0): the diagonal (2,2) is absent
  ir::Tensor m = ir::make_csr(3, 3, {0, 2, 3, 4}, {0, 2, 1, 0}, {1, 2, 3, 4});
  auto g = run("sparse", "trace", Mode::Gradient, {m}, {"M"});
  CHECK(g[0].values[0] == 4);
  CHECK(g[1].storage == ir::Storage::Csr);
  CHECK(g[1].values == std::vector<double>{1, 0, 1, 0});
}

TEST_CASE("digest 004 9.1 test 9: s * V w.r.t. V is s I on supp(V), w.r.t. s it is V", "[sparse]") {
  std::vector<ir::Tensor> in = {ir::scalar(3), ir::make_coo({5}, {1, 4}, {2, -1})};
  auto jv = run("sparse", "scale", Mode::Jacobian, in, {"v"});
  CHECK(jv[1].values == std::vector<double>{3, 0, 0, 3});
  auto js = run("sparse", "scale", Mode::Jacobian, in, {"s"});
  CHECK(js[1].values == std::vector<double>{2, -1});
}

TEST_CASE("digest 004 9.1 test 10: unary ops exp, sin, cos over stored entries", "[sparse]") {
  std::vector<ir::Tensor> in = {ir::make_coo({6}, {1, 4}, {0.5, -1.5})};
  auto e = run("sparse", "unary_exp", Mode::Gradient, in, {"v"});
  CHECK(e[1].values[0] == Approx(std::exp(0.5)));
  CHECK(e[1].values[1] == Approx(std::exp(-1.5)));
  auto s = run("sparse", "unary_sin", Mode::Gradient, in, {"v"});
  CHECK(s[1].values[1] == Approx(std::cos(-1.5)));
  auto c = run("sparse", "unary_cos", Mode::Gradient, in, {"v"});
  CHECK(c[1].values[1] == Approx(-1 * std::sin(-1.5)));
}

TEST_CASE("digest 004 9.1 test 11: u * w w.r.t. u is J(i)(j)(k) = [i == k] w(j), not (i,k,j)",
          "[sparse]") {
  auto j = run("sparse", "outer", Mode::Jacobian,
               {ir::dense_f64({2}, {1, 2}), ir::dense_f64({3}, {3, 4, 5})}, {"u"});
  REQUIRE(j[1].shape == std::vector<std::int64_t>{2, 3, 2});  // J(i)(j)(k): the result's dims first
  for (std::int64_t i = 0; i < 2; ++i)
    for (std::int64_t jj = 0; jj < 3; ++jj)
      for (std::int64_t k = 0; k < 2; ++k) {
        double want = i == k ? 3.0 + static_cast<double>(jj) : 0.0;
        CHECK(j[1].values[static_cast<std::size_t>((i * 3 + jj) * 2 + k)] == want);
      }
}

TEST_CASE("digest 004 9.1 test 12: if i = 2 then v * v gives {2: 2 V(2)}, let = inlined",
          "[sparse]") {
  std::vector<ir::Tensor> in = {ir::make_coo({5}, {0, 2, 3}, {1.5, -2, 4})};
  auto a = run("sparse", "iverson_let", Mode::Gradient, in, {"v"});
  auto b = run("sparse", "iverson_inline", Mode::Gradient, in, {"v"});
  CHECK(a[1].values == std::vector<double>{0, -4, 0});
  CHECK(b[1].values == a[1].values);
}

TEST_CASE("digest 004 9.1 test 13: sum of M1 M2 w.r.t. sparse M2 is sum_i M1(i, j) on supp(M2)",
          "[sparse]") {
  ir::Tensor m1 = ir::dense_f64({2, 3}, {1, 2, 3, 4, 5, 6});  // column sums 5, 7, 9
  ir::Tensor m2 = ir::make_csr(3, 2, {0, 1, 1, 3}, {1, 0, 1}, {1, 1, 1});
  auto g = run("sparse", "matmul_sum", Mode::Gradient, {m1, m2}, {"M2"});
  CHECK(g[1].values == std::vector<double>{5, 9, 9});
}

TEST_CASE("digest 004 9.1 test 14: finite differences agree on the stored coordinates",
          "[sparse]") {
  struct Case {
    std::string fn;
    std::vector<ir::Tensor> in;
    std::string wrt;
  };
  std::vector<Case> cases = {
      {"smvm", {matrix_a(), ir::dense_f64({3}, {0.3, -1.2, 2.5})}, "x"},
      {"smvm", {matrix_a(), ir::dense_f64({3}, {0.3, -1.2, 2.5})}, "A"},
      {"smmm_sparse", {matrix_a(), ir::make_csr(3, 2, {0, 1, 1, 3}, {1, 0, 1}, {1, 2, 3})}, "B"},
      {"unary_exp", {ir::make_coo({6}, {1, 4}, {0.5, -1.5})}, "v"},
      {"vvd_sparse", {ir::make_coo({4}, {0, 1}, {1, 2}), v2_digest()}, "v1"},
  };
  for (const auto& c : cases) {
    INFO(c.fn << " w.r.t. " << c.wrt);
    auto got = run("sparse", c.fn, Mode::Gradient, c.in, {c.wrt});
    auto fd = run("fd", c.fn, Mode::Gradient, c.in, {c.wrt});
    REQUIRE(got[1].values.size() == fd[1].values.size());
    for (std::size_t i = 0; i < got[1].values.size(); ++i)
      CHECK(got[1].values[i] == Approx(fd[1].values[i]).epsilon(1e-6).margin(1e-7));
  }
}

TEST_CASE("digest 004 9.1 test 15: D_tau types, ingrad of a real is zero[real (x) tau], F = D_real",
          "[sparse]") {
  // D_tau[[e]] : tensor (m + n): BATAx (m = 1) w.r.t. x (n = 1) gives a rank-2 block.
  std::vector<ir::Tensor> in = {matrix_a(), ir::dense_f64({3}, {1, 1, 1}), ir::scalar(2)};
  auto pass = sparse::tangent_pass(*program("batax"), in, {1}, {});
  REQUIRE(pass.results.size() == 1);
  CHECK(pass.tau.size() == 3);
  // beta's tangent is zero[real (x) tau] = {}: it contributes no entry (only x's coordinates).
  for (const auto& y : pass.results[0].values)
    for (const auto& e : y.tangent()) CHECK(e.coord < 3);
  CHECK(pass.tangent_entries() == 5);
  // F = D_real: the gradient w.r.t. a scalar equals the jvp with direction 1.
  std::vector<ir::Tensor> xy = {ir::scalar(0.4), ir::scalar(1.5)};
  auto g = run("sparse", "scalar_f", Mode::Gradient, xy, {"x"});
  auto jv_in = xy;
  jv_in.push_back(ir::scalar(1));
  auto jv = run("sparse", "scalar_f", Mode::Jvp, jv_in, {"x"});
  CHECK(jv[1].values[0] == g[1].values[0]);
  CHECK(g[1].values[0] == Approx(std::cos(0.4) * 1.5 + 0.8));
}

TEST_CASE("sparse: vjp contracts the tensorised tangent (BATAx, digest 004 section 7.2)",
          "[sparse]") {
  std::vector<ir::Tensor> in = {matrix_a(), ir::dense_f64({3}, {1, 1, 1}), ir::scalar(2),
                                ir::dense_f64({3}, {1, -1, 2})};
  auto v = run("sparse", "batax", Mode::Vjp, in, {"x"});
  // ybar^T (2 A^T A) = [34 + 88, -18, 44 + 116]
  CHECK(v[1].values == std::vector<double>{122, -18, 160});
}

TEST_CASE("sparse: unsupported modes and constructs are declined, bad requests are errors",
          "[sparse]") {
  const Strategy* s = StrategyRegistry::instance().find("sparse");
  REQUIRE(s != nullptr);
  CHECK_THROWS_AS(s->differentiate(program("smvm"), Request{{"x"}, Mode::Hvp, ""}), Unsupported);
  CHECK_THROWS_WITH(s->differentiate(program("rounds"), Request{{"x"}, Mode::Gradient, ""}),
                    Catch::Contains("f32") && Catch::Contains("sparse_digest_cases.adl"));
  CHECK_THROWS_WITH(s->differentiate(program("smvm"), Request{{"y"}, Mode::Gradient, ""}),
                    Catch::Contains("no parameter `y`"));
  CHECK_THROWS_WITH(s->differentiate(program("smvm"), Request{{"x"}, Mode::Gradient, "csc"}),
                    Catch::Contains("no variant"));
  auto d = s->differentiate(program("smvm"), Request{{"x"}, Mode::Gradient, ""});
  backends::Options o;
  CHECK_THROWS_WITH(d.executable("interp", o)->run({matrix_a()}), Catch::Contains("takes 2"));
  // declined when differentiated, at the function's position (decision 222)
  CHECK_THROWS_WITH(s->differentiate(program("vva"), Request{{"v1"}, Mode::Gradient, ""}),
                    Catch::Contains("sparse_digest_cases.adl:") && Catch::Contains("scalar"));
}
