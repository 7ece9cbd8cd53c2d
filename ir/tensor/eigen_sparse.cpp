// Conversion between rank-2 tensors and Eigen row-major sparse matrices.
#include "ir/tensor/eigen_sparse.h"

#include <algorithm>
#include <limits>
#include <numeric>

#include "ir/error.h"
#include "ir/tensor/tensor_ops.h"

namespace adlab::ir {
namespace {

int to_eigen_index(std::int64_t v, const char* what, const Tensor& t) {
  if (v > std::numeric_limits<int>::max()) {
    throw Error(std::string("cannot convert ") + type_str(t.elem, t.storage, t.shape) +
                " to an Eigen sparse matrix: " + what + " " + std::to_string(v) +
                " exceeds Eigen's int index");
  }
  return static_cast<int>(v);
}

}  // namespace

EigenCsr to_eigen_sparse(const Tensor& t) {
  if (t.elem != ElemType::F64 && t.elem != ElemType::F32) {
    throw Error("cannot convert " + type_str(t.elem, t.storage, t.shape) +
                " to an Eigen sparse matrix: it needs a floating element type");
  }
  if (t.rank() != 2) {
    throw Error("cannot convert " + type_str(t.elem, t.storage, t.shape) +
                " to an Eigen sparse matrix: it needs rank 2");
  }
  const Tensor csr = to_csr(t);
  const int rows = to_eigen_index(csr.shape[0], "row count", t);
  const int cols = to_eigen_index(csr.shape[1], "column count", t);
  to_eigen_index(csr.nnz(), "nnz", t);
  EigenCsr m(rows, cols);
  // Filling the compressed arrays directly keeps explicit zeros (setFromTriplets would too, but
  // would also sum duplicates, which a valid CSR tensor cannot have).
  m.resizeNonZeros(static_cast<Eigen::Index>(csr.nnz()));
  for (int r = 0; r <= rows; ++r) m.outerIndexPtr()[r] = static_cast<int>(csr.row_ptr[r]);
  for (std::size_t k = 0; k < csr.values.size(); ++k) {
    m.innerIndexPtr()[k] = static_cast<int>(csr.col_idx[k]);
    m.valuePtr()[k] = csr.values[k];
  }
  return m;
}

Tensor from_eigen_sparse(const EigenCsr& input) {
  EigenCsr m = input;
  m.makeCompressed();
  Tensor t;
  t.storage = Storage::Csr;
  t.shape = {m.rows(), m.cols()};
  t.row_ptr.assign(m.outerIndexPtr(), m.outerIndexPtr() + m.rows() + 1);
  t.col_idx.assign(m.innerIndexPtr(), m.innerIndexPtr() + m.nonZeros());
  t.values.assign(m.valuePtr(), m.valuePtr() + m.nonZeros());
  // Eigen keeps inner indices sorted in practice; sort defensively so the CSR invariant holds.
  for (std::size_t r = 0; r + 1 < t.row_ptr.size(); ++r) {
    auto b = static_cast<std::size_t>(t.row_ptr[r]), e = static_cast<std::size_t>(t.row_ptr[r + 1]);
    if (std::is_sorted(t.col_idx.begin() + b, t.col_idx.begin() + e)) continue;
    std::vector<std::size_t> order(e - b);
    std::iota(order.begin(), order.end(), b);
    std::sort(order.begin(), order.end(),
              [&](std::size_t x, std::size_t y) { return t.col_idx[x] < t.col_idx[y]; });
    std::vector<std::int64_t> cols;
    std::vector<double> vals;
    for (std::size_t k : order) {
      cols.push_back(t.col_idx[k]);
      vals.push_back(t.values[k]);
    }
    std::copy(cols.begin(), cols.end(), t.col_idx.begin() + b);
    std::copy(vals.begin(), vals.end(), t.values.begin() + b);
  }
  validate(t);
  return t;
}

}  // namespace adlab::ir
