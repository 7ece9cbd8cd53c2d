// Tensor values: dense row-major, CSR and COO, templated on the floating scalar type
// (DESIGN 2.1, 2.3).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace adlab::ir {

// Element type of a tensor or scalar (DESIGN 2.1).
enum class ElemType : std::uint8_t { F64, F32, I64, Bool };
// Storage layout of an input or result; the logical value is the same tensor.
enum class Storage : std::uint8_t { Dense, Csr, Coo };

const char* elem_name(ElemType e);
const char* storage_name(Storage s);
inline bool is_float(ElemType e) {
  return e == ElemType::F64 || e == ElemType::F32;
}

// A tensor value. Floating tensors keep their entries in `values` (type T); i64 and bool tensors
// keep theirs in `ints` (dense only). Sparse layouts (floating only):
//   Csr (rank 2): row_ptr[rows + 1], col_idx[nnz], values[nnz]; columns sorted within a row.
//   Coo (rank >= 1): coords[nnz * rank] row-major sorted with no duplicate keys, values[nnz].
// Explicit zeros are stored entries (DESIGN 2.3). A rank-0 tensor is a scalar.
template <class T>
struct BasicTensor {
  ElemType elem = ElemType::F64;
  Storage storage = Storage::Dense;
  std::vector<std::int64_t> shape;
  std::vector<T> values;
  std::vector<std::int64_t> ints;
  std::vector<std::int64_t> row_ptr;
  std::vector<std::int64_t> col_idx;
  std::vector<std::int64_t> coords;

  bool operator==(const BasicTensor&) const = default;  // entry by entry (NaN differs)
  std::int64_t rank() const { return static_cast<std::int64_t>(shape.size()); }
  // Number of logical entries (product of the shape; 1 for a scalar).
  std::int64_t numel() const {
    std::int64_t n = 1;
    for (auto d : shape) n *= d;
    return n;
  }
  // Number of stored entries (numel for dense tensors).
  std::int64_t nnz() const {
    if (storage == Storage::Dense) return numel();
    return static_cast<std::int64_t>(values.size());
  }
};

using Tensor = BasicTensor<double>;
using TensorF = BasicTensor<float>;

}  // namespace adlab::ir
