// The cpu backend's fast paths (issue 10 performance items): results written into adlab's
// buffers, bounds checks the loop bounds prove, reordered top-level sums, shifts for powers of two.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "backends/backend.h"
#include "backends/cpu/codegen.h"
#include "backends/cpu/tests/compile_for_test.h"
#include "ir/syntax/parser.h"
#include "ir/tensor/random.h"

using namespace adlab;
using namespace adlab::backends;

namespace {
const char* kFastPaths = R"(func axpy(x: f64[n], y: f64[n]) -> f64[n] {
  return gen[i < n] 2 * x[i] + y[i]
}

func twice(x: f64[n]) -> (f64[n], f64[n]) {
  let g = gen[i < n] 2 * x[i]
  return (g, g)
}

func triangle(x: f64[n]) -> f64 {
  return sum[i < n] sum[j < i] x[j] * x[i]
}

func overrun(x: f64[n]) -> f64[n + 1] {
  return gen[i < n + 1] x[i]
}

func other_size(x: f64[n], y: f64[m]) -> f64[m] {
  return gen[i < m] x[i] + y[i]
}

func dot(x: f64[n], y: f64[n]) -> f64 {
  return sum[i < n] x[i] * y[i]
}

func shifted_dot(x: f64[n]) -> f64 {
  return sum[i < n] x[i] * x[i + 1 - 1]
}

func matvec(A: f64[n, p], x: f64[p]) -> f64[n] {
  return gen[i < n] sum[k < p] A[i, k] * x[k]
}

func floors(a: i64[n]) -> i64[n] {
  return gen[i < n] a[i] / 4 + 10 * (a[i] % 8) + 100 * (a[i] / 3)
}
)";

ir::FunctionPtr fast_path(const std::string& name) {
  static ir::Module m = ir::parse_module(kFastPaths, "cpu_fast_paths.adl");
  return m.entry(name);
}

std::unique_ptr<Executable> compiled(const std::string& backend, const std::string& f) {
  return test::compile_for_test(backend, fast_path(f));
}

ir::Tensor normal(std::int64_t n, std::uint64_t seed) {
  return ir::random_normal({n}, 0, 1, seed);
}
}  // namespace

TEST_CASE("cpu: run_into writes into the caller's previous result buffer (issue 10 item 1, axpy)",
          "[cpu]") {
  auto cpu = compiled("cpu", "axpy");
  auto interp = compiled("interp", "axpy");
  std::vector<ir::Tensor> in = {normal(5000, 1), normal(5000, 2)}, out;
  cpu->run_into(in, out);
  REQUIRE(out.size() == 1);
  const double* first = out[0].values.data();
  in[0].values[7] = 100;  // a second run with other values reuses the same buffer
  cpu->run_into(in, out);
  CHECK(out[0].values.data() == first);
  auto want = interp->run(in);
  CHECK(out[0].values == want[0].values);  // gen keeps the reference's bits
  in = {normal(3, 3), normal(3, 4)};       // another size: a fresh buffer, right shape
  cpu->run_into(in, out);
  CHECK(out[0].shape == std::vector<std::int64_t>{3});
  CHECK(out[0].values == interp->run(in)[0].values);
  CHECK(out[0].elem == ir::ElemType::F64);
}

TEST_CASE("cpu: a result returned twice is copied, not aliased (issue 10 item 1)", "[cpu]") {
  std::vector<ir::Tensor> in = {normal(10, 5)}, out;
  compiled("cpu", "twice")->run_into(in, out);
  REQUIRE(out.size() == 2);
  CHECK(out[0].values == out[1].values);
  CHECK(out[0].values.data() != out[1].values.data());
  CHECK(out[0].values == compiled("interp", "twice")->run(in)[0].values);
}

TEST_CASE("cpu: bounds checks are dropped only where the loop bounds prove them (issue 10 item 3)",
          "[cpu]") {
  std::vector<ir::Tensor> in = {normal(50, 6)};
  // j < i < n: both accesses provably in range, the values are the interpreter's
  CHECK(compiled("cpu", "triangle")->run(in)[0].values ==
        compiled("interp", "triangle")->run(in)[0].values);
  auto source = cpu::generate(*fast_path("triangle")).source;
  CHECK(source.find("adlab_rt::check(") == std::string::npos);
  // i < n + 1 is not the dimension n: the check stays and fails at the last point
  CHECK_THROWS_WITH(
      compiled("cpu", "overrun")->run(in),
      Catch::Contains("index out of range: `i` = 50 is outside [0, 50) in `x[i]` (dimension 0)"));
  // i < m says nothing about x's dimension n
  CHECK_THROWS_WITH(compiled("cpu", "other_size")->run({normal(2, 7), normal(3, 8)}),
                    Catch::Contains("`i` = 2 is outside [0, 2) in `x[i]`"));
}

TEST_CASE("cpu: top-level sums reorder only above 65,536 terms (issue 10 item 2, decision 92)",
          "[cpu]") {
  auto cpu = compiled("cpu", "dot");
  auto interp = compiled("interp", "dot");
  std::vector<ir::Tensor> small = {normal(65535, 9), normal(65535, 10)};
  CHECK(cpu->run(small)[0].values[0] == interp->run(small)[0].values[0]);  // the same bits
  std::vector<ir::Tensor> large = {normal(300000, 11), normal(300000, 12)};
  double got = cpu->run(large)[0].values[0], want = interp->run(large)[0].values[0];
  double abs_terms = 0;  // DESIGN 2.3: sums are compared relative to the sum of absolute terms
  for (std::size_t i = 0; i < large[0].values.size(); ++i)
    abs_terms += std::fabs(large[0].values[i] * large[1].values[i]);
  CHECK(std::fabs(got - want) <= 1e-12 * abs_terms);
  CHECK(cpu::generate(*fast_path("dot")).source.find("#pragma omp simd") != std::string::npos);
  // a body that can fail (a checked index) keeps the sequential order within each thread
  auto shifted = cpu::generate(*fast_path("shifted_dot")).source;
  CHECK(shifted.find("#pragma omp simd") == std::string::npos);
  CHECK(shifted.find("adlab_rt::check(") != std::string::npos);
}

TEST_CASE("cpu: the matrix-vector contraction sums each row in order (decision 212)", "[cpu]") {
  // An audit helper's rows: Eigen's gemv kept several partial sums per row, so
  // 1e308 - 1e308 + 1e308 - 1e308 was NaN (the interpreter's 0) and 1 + 1e20 + 2 - 1e20 was 3
  // (the interpreter's 0). 5 rows: one block of four and the remainder row.
  ir::Tensor A, x;
  A.shape = {5, 4};
  A.values = {1e308,  -1e308, 1e308, -1e308, 1,   1e20, 2, -1e20, 1e308, 1e308,
              -1e308, -1e308, 0.1,   0.2,    0.3, 0.4,  1, 1e20,  2,     -1e20};
  x.shape = {4};
  x.values = {1, 1, 1, 1};
  CHECK(cpu::generate(*fast_path("matvec")).source.find("adlab_rt::gemv(") != std::string::npos);
  auto got = compiled("cpu", "matvec")->run({A, x})[0].values;
  auto want = compiled("interp", "matvec")->run({A, x})[0].values;
  REQUIRE(got.size() == 5);
  CHECK(got[0] == 0);
  CHECK(got[1] == 0);
  CHECK(std::isinf(got[2]));
  CHECK(got[4] == 0);
  for (std::size_t i = 0; i < got.size(); ++i) CHECK(got[i] == want[i]);  // the same bits
  // and on random rows of several lengths, bit for bit
  for (std::int64_t p : {1, 7, 64}) {
    ir::Tensor B = ir::random_normal({6, p}, 0, 1, 21), y = normal(p, 22);
    CHECK(compiled("cpu", "matvec")->run({B, y})[0].values ==
          compiled("interp", "matvec")->run({B, y})[0].values);
  }
}

TEST_CASE("cpu: floor division and remainder by literals, negative values (issue 10 item 3)",
          "[cpu]") {
  ir::Tensor a;
  a.elem = ir::ElemType::I64;
  for (std::int64_t v = -17; v <= 17; ++v) a.ints.push_back(v);
  a.shape = {static_cast<std::int64_t>(a.ints.size())};
  auto got = compiled("cpu", "floors")->run({a});
  auto want = compiled("interp", "floors")->run({a});
  CHECK(got[0].ints == want[0].ints);
  CHECK(got[0].ints[0] == -5 + 10 * 7 + 100 * -6);  // -17 / 4 = -5, -17 % 8 = 7, -17 / 3 = -6
}
