// Tests of the conversion between tensors and Eigen row-major sparse matrices.
#include "ir/tensor/eigen_sparse.h"

#include <catch2/catch.hpp>
#include <vector>

#include "ir/tensor/tensor_ops.h"
#include "ir/tensor/tests/check_error.h"

namespace adlab::ir {
namespace {

TEST_CASE("csr tensor <-> Eigen sparse round trip keeps explicit zeros", "[unit]") {
  const Tensor csr = make_csr(3, 4, {0, 2, 2, 4}, {0, 2, 1, 3}, {1.5, 0.0, -3, 4});
  const EigenCsr m = to_eigen_sparse(csr);
  CHECK(m.rows() == 3);
  CHECK(m.cols() == 4);
  CHECK(m.nonZeros() == 4);
  CHECK(m.coeff(0, 0) == 1.5);
  CHECK(m.coeff(2, 1) == -3);
  CHECK(m.coeff(1, 1) == 0);
  const Tensor back = from_eigen_sparse(m);
  CHECK(back.storage == Storage::Csr);
  CHECK(back.shape == csr.shape);
  CHECK(back.row_ptr == csr.row_ptr);
  CHECK(back.col_idx == csr.col_idx);
  CHECK(back.values == csr.values);
}

TEST_CASE("dense and coo tensors convert to Eigen and Eigen products agree", "[unit]") {
  const Tensor d = dense_f64({2, 3}, {0, 2, 0, 1, 0, 3});
  const EigenCsr m = to_eigen_sparse(d);
  CHECK(m.nonZeros() == 3);
  CHECK(to_eigen_sparse(to_coo(d)).nonZeros() == 3);
  Eigen::VectorXd x(3);
  x << 1, 10, 100;
  const Eigen::VectorXd y = m * x;
  CHECK(y(0) == 20);
  CHECK(y(1) == 301);
}

TEST_CASE("from_eigen_sparse accepts uncompressed matrices", "[unit]") {
  EigenCsr m(3, 3);
  m.insert(2, 2) = 9;
  m.insert(0, 1) = 1;
  m.insert(2, 0) = 7;
  CHECK_FALSE(m.isCompressed());
  const Tensor t = from_eigen_sparse(m);
  CHECK(t.row_ptr == std::vector<std::int64_t>{0, 1, 1, 3});
  CHECK(t.col_idx == std::vector<std::int64_t>{1, 0, 2});
  CHECK(t.values == std::vector<double>{1, 7, 9});
}

TEST_CASE("to_eigen_sparse rejects tensors that are not floating matrices", "[unit]") {
  CHECK_ERROR(to_eigen_sparse(dense_f64({2}, {1, 2})),
              "error: cannot convert f64[2] to an Eigen sparse matrix: it needs rank 2");
  CHECK_ERROR(to_eigen_sparse(dense_i64({1, 1}, {1})),
              "error: cannot convert i64[1, 1] to an Eigen sparse matrix: it needs a floating "
              "element type");
}

}  // namespace
}  // namespace adlab::ir
