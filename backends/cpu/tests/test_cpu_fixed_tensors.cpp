// Tensors of literal shape on the cpu backend (decisions 127-131): `Fixed` aggregates, pointer
// parameters and rows read in place. Every case agrees bit for bit with the interpreter, and every
// check that the literal shapes do not prove still reports the interpreter's error.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>

#include "backends/backend.h"
#include "backends/cpu/codegen.h"
#include "backends/cpu/tests/compile_for_test.h"
#include "ir/error.h"
#include "ir/syntax/parser.h"
#include "ir/tensor/random.h"

using namespace adlab;
using namespace adlab::backends;

namespace {
const char* kFixed = R"(func cross3(a: f64[3], b: f64[3]) -> f64[3] {
  return gen[e < 3] a[(e + 1) % 3] * b[(e + 2) % 3] - a[(e + 2) % 3] * b[(e + 1) % 3]
}

func at3(a: f64[3], k: i64) -> f64 {
  return a[k]
}

func outer3(a: f64[3], b: f64[3]) -> f64[3, 3] {
  return gen[i < 3, j < 3] a[i] * b[j]
}

func rows_of(M: f64[3, 3]) -> f64[3, 3] {
  return gen[i < 3] cross3(M[i], M[(i + 1) % 3])
}

func mat_vec(M: f64[3, 3], x: f64[3]) -> f64[3] {
  let y = gen[i < 3] sum[j < 3] M[i, j] * x[j]
  return select(y[0] > 0, y, cross3(y, x))
}

func pair(a: f64[3]) -> (f64[3], f64) {
  return (cross3(a, a), a[1])
}

func shapes(A: f64[n, 3], B: f64[n, 3], ks: i64[n]) -> (f64[n, 3], f64[n], f64[n, 3]) {
  let r = gen[i < n] mat_vec(rows_of(outer3(A[i], B[i])), A[i])
  let s = gen[i2 < n] at3(B[i2], ks[i2]) + pair(A[i2]).1
  let t = gen[i3 < n] pair(B[i3]).0
  return (r, s, t)
}

func projected(a: f64[3]) -> f64[3] {
  return cross3(pair(a).0, a)
}

func looped(a: f64[3], steps: i64) -> f64[3] {
  let s = loop[t < steps] (S = a) {
    next cross3(S, a)
  }
  return cross3(s, a)
}

func shifted(a: f64[3]) -> f64[3] {
  return gen[e < 3] a[e + 1]
}

func through_shifted(x: f64[3]) -> f64[3] {
  return shifted(x)
}

func gather(P: f64[p, 3], idx: i64[o]) -> f64[o, 3] {
  return gen[q < o] cross3(P[idx[q]], P[0])
}
)";

ir::Module& module() {
  static ir::Module m = ir::parse_module(kFixed, "cpu_fixed.adl");
  return m;
}

std::unique_ptr<Executable> compiled(const std::string& backend, const std::string& f,
                                     const std::string& scalar = "double") {
  return test::compile_for_test(backend, module().entry(f), scalar);
}

ir::Tensor ints(std::vector<std::int64_t> v) {
  ir::Tensor t;
  t.elem = ir::ElemType::I64;
  t.shape = {static_cast<std::int64_t>(v.size())};
  t.ints = std::move(v);
  return t;
}

void same_as_interp(const std::string& f, const std::vector<ir::Tensor>& in,
                    const std::string& scalar = "double") {
  auto want = compiled("interp", f, scalar)->run(in);
  auto got = compiled("cpu", f, scalar)->run(in);
  REQUIRE(got.size() == want.size());
  for (std::size_t k = 0; k < got.size(); ++k) {
    CHECK(got[k].shape == want[k].shape);
    CHECK(got[k].values == want[k].values);  // bit for bit: same operations, same order
  }
}

// The interpreter's and the cpu backend's errors for the same run: same message, same line.
void same_error(const std::string& f, const std::vector<ir::Tensor>& in,
                const std::string& expected) {
  std::string want, got;
  int want_line = -1, got_line = -2;
  try {
    compiled("interp", f)->run(in);
  } catch (const Error& e) {
    want = e.message();
    want_line = e.pos().line;
  }
  try {
    compiled("cpu", f)->run(in);
  } catch (const Error& e) {
    got = e.message();
    got_line = e.pos().line;
  }
  CHECK(want == expected);
  CHECK(got == want);
  CHECK(got_line == want_line);
}
}  // namespace

TEST_CASE(
    "cpu: literal shapes as Fixed values through callees, rows, selects and tuples (digest section "
    "7.1, BA's cross3 and rodrigues)",
    "[cpu]") {
  const std::int64_t n = 40;
  auto A = ir::random_normal({n, 3}, 0, 1, 31);
  auto B = ir::random_normal({n, 3}, 0, 1, 32);
  std::vector<std::int64_t> ks;
  for (std::int64_t i = 0; i < n; ++i) ks.push_back(i % 3);
  same_as_interp("shapes", {A, B, ints(ks)});
  same_as_interp("shapes", {A, B, ints(ks)}, "float");
  auto P = ir::random_normal({7, 3}, 0, 1, 33);
  same_as_interp("gather", {P, ints({6, 0, 3, 3, 1})});
  // tensors of literal type held with a header (a tuple's field, a loop state) passed to a
  // pointer parameter: shape-checked and copied at the call
  same_as_interp("projected", {ir::random_normal({3}, 0, 1, 34)});
  ir::Tensor steps;
  steps.elem = ir::ElemType::I64;
  steps.ints = {3};
  same_as_interp("looped", {ir::random_normal({3}, 0, 1, 34), steps});
}

TEST_CASE("cpu: unproved indices into literal shapes are still checked (digest section 7.1)",
          "[cpu]") {
  auto B = ir::random_normal({2, 3}, 0, 1, 35);
  auto A = ir::random_normal({2, 3}, 0, 1, 36);
  // a data-dependent index into a pointer parameter
  same_error("shapes", {A, B, ints({2, 3})},
             "index out of range: `k` = 3 is outside [0, 3) in `a[k]` (dimension 0)");
  // a row index into an argument, passed to a pointer parameter
  same_error("gather", {ir::random_normal({4, 3}, 0, 1, 37), ints({1, 4})},
             "index out of range: `idx[q]` = 4 is outside [0, 4) in `P[idx[q]]` (dimension 0)");
  // an affine index past the literal dimension inside a Fixed gen
  same_error("through_shifted", {ir::random_normal({3}, 0, 1, 38)},
             "index out of range: `e + 1` = 3 is outside [0, 3) in `a[e + 1]` (dimension 0)");
}

TEST_CASE("cpu: literal shapes are generated without tensor headers (decisions 127-130)", "[cpu]") {
  auto unit = cpu::generate(*module().entry("gather"));
  const std::string& s = unit.source;
  // parameters are pointers, results Fixed aggregates, rows of arguments read in place
  CHECK(s.find("adlab_rt::Fixed<T, 3> fn_cross3") != std::string::npos);
  CHECK(s.find("(const T* const a_") != std::string::npos);
  CHECK(s.find("const T* const row_") != std::string::npos);
  CHECK(s.find("adlab_rt::Tensor<T> gen_") == std::string::npos);
  // the row index is data: still checked against the argument's loaded shape
  CHECK(s.find(".shape[0], 0);") != std::string::npos);
}
