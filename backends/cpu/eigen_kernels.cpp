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

void gemv(const double* a, const double* x, double* y, std::int64_t m, std::int64_t n) {
  Eigen::Map<const RowMajor> A(a, m, n);
  Eigen::Map<const Eigen::VectorXd> X(x, n);
  Eigen::Map<Eigen::VectorXd> Y(y, m);
  Y.noalias() = A * X;
}

}  // namespace adlab::backends::cpu
