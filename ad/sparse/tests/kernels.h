// The sparse kernels of paper 004 (SMVM, SMMM, BATAx; digest 004 section 7.2) as the cost tests,
// the Table 1 tests and the memory benchmark run them: one definition for all three.
#pragma once

#include <string>

#include "ir/syntax/parser.h"

namespace adlab::sparse_kernels {

inline const char* kText = R"(
func smvm(A: f64[n, m] @csr, x: f64[m]) -> f64 {
  return sum[(i, j) in A] A[i, j] * x[j]
}
func smmm(A: f64[n, p] @csr, B: f64[p, m]) -> f64 {
  return sum[(i, k) in A] A[i, k] * sum[j < m] B[k, j]
}
func batax(A: f64[n, m] @csr, x: f64[m], beta: f64) -> f64[m] {
  let r = gen[i < n] sum[(k) in A[i]] A[i, k] * x[k]
  return scatter[(i2, j) in A] to f64[m] at (j) add beta * A[i2, j] * r[i2]
}
)";

inline ir::FunctionPtr kernel(const std::string& name) {
  static ir::Module m = ir::parse_module(kText, "sparse_kernels.adl");
  return m.entry(name);
}

}  // namespace adlab::sparse_kernels
