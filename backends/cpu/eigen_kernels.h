// Prebuilt contraction kernels (gemm: Eigen) that generated units call through adlab_rt::Services.
#pragma once

#include <cstdint>

namespace adlab::backends::cpu {

// C[m, n] = A[m, k] * B[k, n], row-major.
void gemm(const double* a, const double* b, double* c, std::int64_t m, std::int64_t k,
          std::int64_t n);
// y[m] = A[m, n] * x[n], row-major; each y_i sums its terms in order, bit-identical to the
// interpreter's `sum` (decision 212).
void gemv(const double* a, const double* x, double* y, std::int64_t m, std::int64_t n);

}  // namespace adlab::backends::cpu
