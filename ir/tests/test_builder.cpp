// The builder API makes the same nodes as the parser (so C++-built and .adl programs agree).
#include <catch2/catch.hpp>

#include "ir/builder.h"
#include "ir/interp/interpreter.h"
#include "ir/syntax/parser.h"
#include "ir/syntax/printer.h"
#include "ir/tensor/tensor_ops.h"

using namespace adlab::ir;
using namespace adlab::ir::dsl;

TEST_CASE("paper 000 section 2.1 convolution: builder and parser give the same node", "[unit]") {
  Module m = parse_module(
      "func conv1d(x: f64[n], c: f64[m]) -> f64[n] {\n"
      "  return gen[i < n] sum[j < m] [0 <= i - j < n] * x[i - j] * c[j]\n}\n");
  Expr n = index("n"), mm = index("m"), i = index("i"), j = index("j");
  Expr x = f64("x", {n}), c = f64("c", {mm});
  Expr conv = gen({{i, n}}, sum({{j, mm}}, iverson(le(num(0), i - j) && lt(i - j, n)) *
                                               access(x, i - j) * access(c, j)));
  CHECK(conv == m.functions[0]->results[0]);
  CHECK(expr_str(conv) == "gen[i < n] sum[j < m] [0 <= i - j && i - j < n] * x[i - j] * c[j]");
}

TEST_CASE("FunctionBuilder builds a checked, runnable function (logsumexp)", "[unit]") {
  FunctionBuilder fb("logsumexp");
  Expr k = index("k"), i = index("i");
  Expr v = fb.param("v", Type::tensor(ElemType::F64, {k}));
  Expr mx = fb.let("mx", maximum({{i, k}}, access(v, i)));
  FunctionPtr f =
      fb.finish({log(sum({{i, k}}, exp(access(v, i) - mx))) + mx}, Type::scalar(ElemType::F64));
  CHECK(function_str(*f) ==
        "func logsumexp(v: f64[k]) -> f64 {\n  let mx = max[i < k] v[i]\n  return log(sum[i < k] "
        "exp(v[i] - mx)) + mx\n}\n");
  Interpreter<double> interp;
  auto out = interp.run_tensors(*f, {dense_f64({3}, {1000, 1001, 999})});
  double want = 1001 + std::log(std::exp(-1.0) + 1 + std::exp(-2.0));
  CHECK(out[0].values[0] == Approx(want).epsilon(1e-15));
  // A bound that is not a size is rejected by finish(), as by the parser.
  FunctionBuilder bad("bad");
  Expr y = bad.param("y", Type::tensor(ElemType::F64, {k}));
  Expr j = index("j");
  CHECK_THROWS_WITH(bad.finish({sum({{i, k}}, at(gen({{j, i}}, access(y, j)), {ilit(0)}))},
                               Type::scalar(ElemType::F64)),
                    Catch::Contains("must be a size expression"));
}

TEST_CASE("builders for sparse iteration, scan, loop and scatter", "[unit]") {
  Expr n = index("n"), mm = index("m"), i = index("i"), j = index("j"), t = index("t");
  Expr A = f64("A", {n, mm}, Storage::Csr), x = f64("x", {mm});
  CHECK(expr_str(sum_stored({i, j}, A, access(A, i, j) * access(x, j))) ==
        "sum[(i, j) in A] A[i, j] * x[j]");
  CHECK(expr_str(sum_stored({j}, A, access(A, i, j), {i})) == "sum[(j) in A[i]] A[i, j]");
  CHECK(expr_str(scan(ReduceOp::Sum, {i, mm}, access(x, i))) == "scan[i < m] (+) x[i]");
  Expr s = Var::make("s", Type::scalar(ElemType::F64));
  CHECK(expr_str(loop({t, ilit(3)}, {{s, lit(1)}}, s * 2)) ==
        "loop[t < 3] (s = 1) {\n  next s * 2\n}");
  Expr idx = i64("idx", {mm});
  CHECK(expr_str(scatter({{i, mm}}, Type::tensor(ElemType::F64, {n}), {access(idx, i)},
                         access(x, i))) == "scatter[i < m] to f64[n] at (idx[i]) add x[i]");
  CHECK(expr_str(select(gt(access(x, i), num(0)), exp(access(x, i)), num(0))) ==
        "select(x[i] > 0, exp(x[i]), 0)");
}
