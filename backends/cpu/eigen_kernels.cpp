// Eigen-based matrix products for the cpu backend (compiled once into adlab, DESIGN 5).
#include "backends/cpu/eigen_kernels.h"

#include <Eigen/Dense>

namespace adlab::backends::cpu {

using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

void gemm(const double* a, const double* b, double* c, std::int64_t m, std::int64_t k,
          std::int64_t n) {
  Eigen::Map<const RowMajor> A(a, m, k), B(b, k, n);
  Eigen::Map<RowMajor> C(c, m, n);
  C.noalias() = A * B;
}

// Not Eigen's gemv: it keeps several partial sums per row, so (1e308 - 1e308 + 1e308 - 1e308)
// gave NaN where the interpreter's sequential sum gives 0 (an audit helper; decision 212).
// Each row adds its terms in k order from 0, as the interpreter does; four rows at a time keep
// four independent additions in flight.
void gemv(const double* a, const double* x, double* y, std::int64_t m, std::int64_t n) {
  std::int64_t i = 0;
  for (; i + 4 <= m; i += 4) {
    const double *r0 = a + i * n, *r1 = r0 + n, *r2 = r1 + n, *r3 = r2 + n;
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (std::int64_t k = 0; k < n; ++k) {
      s0 += r0[k] * x[k];
      s1 += r1[k] * x[k];
      s2 += r2[k] * x[k];
      s3 += r3[k] * x[k];
    }
    y[i] = s0;
    y[i + 1] = s1;
    y[i + 2] = s2;
    y[i + 3] = s3;
  }
  for (; i < m; ++i) {
    double s = 0;
    for (std::int64_t k = 0; k < n; ++k) s += a[i * n + k] * x[k];
    y[i] = s;
  }
}

}  // namespace adlab::backends::cpu
