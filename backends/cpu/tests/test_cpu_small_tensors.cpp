// The cpu runtime's tensor storage (decisions 110-113): small dense tensors inline, dense rows as
// views, fresh tensors moved, multi-result entries written into adlab's buffers; every case is
// checked bit for bit against the interpreter, the reference.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>

#include "backends/backend.h"
#include "backends/cpu/tests/compile_for_test.h"
#include "ir/syntax/parser.h"
#include "ir/tensor/random.h"

using namespace adlab;
using namespace adlab::backends;

namespace {
// `row` returns a row of its argument: a view of the caller's local matrix, which must be copied
// out before that matrix dies (in double: inline storage for 2 x 3, the heap for 8 x 4).
const char* kSmallTensors = R"(func row(M: f64[r, c], k: i64) -> f64[c] {
  return M[k]
}

func local_row_small(x: f64[3]) -> f64[3] {
  let M = gen[i < 2, j < 3] x[j] * f64(1 + i)
  return row(M, 1)
}

func local_row_heap(x: f64[4]) -> f64[4] {
  let M = gen[i < 8, j < 4] x[j] * f64(1 + i)
  return row(M, 7)
}

func cross3(a: f64[3], b: f64[3]) -> f64[3] {
  return gen[e < 3] a[(e + 1) % 3] * b[(e + 2) % 3] - a[(e + 2) % 3] * b[(e + 1) % 3]
}

func pick(a: f64[3], b: f64[3]) -> f64[3] {
  let s = sum[e < 3] a[e]
  return select(s > 0, cross3(a, b), cross3(b, a))
}

func rows_through_callees(A: f64[n, 3], B: f64[n, 3]) -> f64[n, 3] {
  return gen[i < n] pick(A[i], B[(i + 1) % n])
}

func rotate_rows(A: f64[4, 3], steps: i64) -> f64[4, 3] {
  return loop[t < steps] (S = A) {
    next gen[i < 4] S[(i + 1) % 4]
  }
}

func two_results(x: f64[n]) -> (f64[n, 2], f64[n]) {
  let a = gen[i < n] gen[e < 2] x[i] * f64(1 + e)
  let b = gen[i2 < n] 1 - x[i2] * x[i2]
  return (a, b)
}
)";

ir::FunctionPtr small(const std::string& name) {
  static ir::Module m = ir::parse_module(kSmallTensors, "cpu_small_tensors.adl");
  return m.entry(name);
}

std::unique_ptr<Executable> compiled(const std::string& backend, const std::string& f,
                                     const std::string& scalar = "double") {
  return test::compile_for_test(backend, small(f), scalar);
}

ir::Tensor vec(std::vector<double> v) {
  ir::Tensor t;
  t.shape = {static_cast<std::int64_t>(v.size())};
  t.values = std::move(v);
  return t;
}

ir::Tensor scalar_i64(std::int64_t v) {
  ir::Tensor t;
  t.elem = ir::ElemType::I64;
  t.ints = {v};
  return t;
}

void same_as_interp(const std::string& f, const std::vector<ir::Tensor>& in) {
  auto want = compiled("interp", f)->run(in);
  auto got = compiled("cpu", f)->run(in);
  REQUIRE(got.size() == want.size());
  for (std::size_t k = 0; k < got.size(); ++k) {
    CHECK(got[k].shape == want[k].shape);
    CHECK(got[k].values == want[k].values);  // bit for bit: same operations, same order
  }
}
}  // namespace

TEST_CASE("cpu: a row view returned by a callee outlives its matrix (decision 110)", "[cpu]") {
  same_as_interp("local_row_small", {ir::random_normal({3}, 0, 1, 21)});
  same_as_interp("local_row_heap", {ir::random_normal({4}, 0, 1, 22)});
  auto r = compiled("cpu", "local_row_small")->run({vec({1, 2, 3})});
  CHECK(r[0].values == std::vector<double>{2, 4, 6});  // row 1 is 2 x
}

TEST_CASE(
    "cpu: rows of arguments through callees and a select of call results (digest section 7.1, "
    "BA's rodrigues shape)",
    "[cpu]") {
  same_as_interp("rows_through_callees",
                 {ir::random_normal({50, 3}, 0, 1, 23), ir::random_normal({50, 3}, 0, 1, 24)});
}

TEST_CASE("cpu: loop state replaced by a gen of its own rows (views of the old state)", "[cpu]") {
  auto A = ir::random_normal({4, 3}, 0, 1, 25);
  for (std::int64_t steps : {0, 1, 3, 5}) same_as_interp("rotate_rows", {A, scalar_i64(steps)});
  auto once = compiled("cpu", "rotate_rows")->run({A, scalar_i64(1)});
  for (std::size_t k = 0; k < 3; ++k) CHECK(once[0].values[k] == A.values[3 + k]);
}

TEST_CASE("cpu: both results of a two-result entry are written into adlab's buffers (decision 111)",
          "[cpu]") {
  auto cpu = compiled("cpu", "two_results");
  std::vector<ir::Tensor> in = {ir::random_normal({1000}, 0, 1, 26)}, out;
  cpu->run_into(in, out);
  REQUIRE(out.size() == 2);
  const double* first_a = out[0].values.data();
  const double* first_b = out[1].values.data();
  in[0].values[3] = 7;
  cpu->run_into(in, out);
  CHECK(out[0].values.data() == first_a);  // no deep copy into the returned tuple
  CHECK(out[1].values.data() == first_b);
  auto want = compiled("interp", "two_results")->run(in);
  CHECK(out[0].values == want[0].values);
  CHECK(out[1].values == want[1].values);
}

TEST_CASE("cpu: inline storage of small tensors with T = float", "[cpu]") {
  auto x = vec({1.5, -2.0, 0.25});
  auto r = compiled("cpu", "local_row_small", "float")->run({x});
  CHECK(r[0].values == std::vector<double>{3.0, -4.0, 0.5});  // exact in float
  auto y = vec({1.0, 2.0, 3.0, 4.0});
  auto h = compiled("cpu", "local_row_heap", "float")->run({y});
  CHECK(h[0].values == std::vector<double>{8, 16, 24, 32});
}
