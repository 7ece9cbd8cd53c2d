// Conversion between rank-2 tensors and Eigen row-major sparse matrices (for the CPU runtime).
#pragma once

#include <Eigen/SparseCore>

#include "ir/tensor/tensor.h"

namespace adlab::ir {

using EigenCsr = Eigen::SparseMatrix<double, Eigen::RowMajor>;

// Any rank-2 f64 tensor: dense input stores its nonzeros, sparse input keeps every stored entry
// (explicit zeros included). Throws adlab::Error if a dimension or nnz exceeds Eigen's int index.
EigenCsr to_eigen_sparse(const Tensor& t);

// A CSR tensor with exactly the stored entries of m (explicit zeros kept, columns sorted).
Tensor from_eigen_sparse(const EigenCsr& m);

}  // namespace adlab::ir
