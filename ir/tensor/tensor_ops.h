// Tensor constructors, validation, storage conversions and entry reads (DESIGN 2.1, 2.3).
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <vector>

#include "ir/error.h"
#include "ir/tensor/tensor.h"

namespace adlab::ir {

// Constructors; each validates its result and throws adlab::Error on a mismatch.
Tensor dense_f64(std::vector<std::int64_t> shape, std::vector<double> values);
Tensor dense_i64(std::vector<std::int64_t> shape, std::vector<std::int64_t> ints);
Tensor scalar(double value);
Tensor make_csr(std::int64_t rows, std::int64_t cols, std::vector<std::int64_t> row_ptr,
                std::vector<std::int64_t> col_idx, std::vector<double> values);
Tensor make_coo(std::vector<std::int64_t> shape, std::vector<std::int64_t> coords,
                std::vector<double> values);

// A finite double past f32's range (its cast to float is undefined; IEEE rounding gives inf).
bool beyond_f32(double v);
// v rounded to the nearest f32 value: inf past the range, as IEEE rounding gives.
double f32_value(double v);

// Product of the dimensions; throws adlab::Error for a negative dimension or int64 overflow.
std::int64_t checked_numel(std::span<const std::int64_t> shape);
// "[3, 4]", "(1, 2)" and "f64[3, 4] @csr" (the .adl spelling of a tensor type).
std::string shape_str(std::span<const std::int64_t> shape);
std::string index_str(std::span<const std::int64_t> idx);
std::string type_str(ElemType elem, Storage storage, std::span<const std::int64_t> shape);

namespace detail {
// The scalar-type-independent part of a tensor, so checks are compiled once for every T.
struct LayoutView {
  ElemType elem;
  Storage storage;
  std::span<const std::int64_t> shape;
  std::size_t num_values;
  std::span<const std::int64_t> ints, row_ptr, col_idx, coords;
};
template <class T>
LayoutView layout_of(const BasicTensor<T>& t) {
  return {t.elem, t.storage, t.shape, t.values.size(), t.ints, t.row_ptr, t.col_idx, t.coords};
}
void validate_layout(const LayoutView& t);
// Stored position of the entry at idx, or -1 when it is absent; throws when idx is out of range.
std::int64_t locate_entry(const LayoutView& t, std::span<const std::int64_t> idx);
// Throws unless a tensor of this layout can be stored as `target` (floating; CSR rank 2).
void require_sparse_target(const LayoutView& t, Storage target);
// Index structures of sorted COO <-> CSR for rank 2 (entries keep their order).
void coo_to_csr_index(const LayoutView& t, std::vector<std::int64_t>& row_ptr,
                      std::vector<std::int64_t>& col_idx);
std::vector<std::int64_t> csr_to_coo_index(const LayoutView& t);
}  // namespace detail

// Checks the invariants documented in tensor.h: shape and array sizes agree, CSR row_ptr starts
// at 0 and is monotone, indices are in range, CSR columns and COO keys are strictly sorted (so a
// duplicate key is an error), bool entries are 0 or 1. Throws adlab::Error naming the defect.
template <class T>
void validate(const BasicTensor<T>& t) {
  detail::validate_layout(detail::layout_of(t));
}

// Logical entry at idx for any storage: absent sparse entries read 0. Bounds checked (throws).
// Assumes a valid tensor (see validate).
template <class T>
T read_entry(const BasicTensor<T>& t, std::span<const std::int64_t> idx) {
  std::int64_t k = detail::locate_entry(detail::layout_of(t), idx);
  if (k < 0) return T(0);
  if (is_float(t.elem)) return t.values[static_cast<std::size_t>(k)];
  return static_cast<T>(t.ints[static_cast<std::size_t>(k)]);
}
template <class T>
T read_entry(const BasicTensor<T>& t, std::initializer_list<std::int64_t> idx) {
  return read_entry(t, std::span<const std::int64_t>(idx.begin(), idx.size()));
}

// Dense row-major copy; absent entries become 0.
template <class T>
BasicTensor<T> to_dense(const BasicTensor<T>& t) {
  validate(t);
  if (t.storage == Storage::Dense) return t;
  BasicTensor<T> out;
  out.elem = t.elem;
  out.shape = t.shape;
  out.values.assign(static_cast<std::size_t>(checked_numel(t.shape)), T(0));
  if (t.storage == Storage::Csr) {
    const std::int64_t cols = t.shape[1];
    for (std::int64_t r = 0; r + 1 < static_cast<std::int64_t>(t.row_ptr.size()); ++r) {
      for (std::int64_t k = t.row_ptr[r]; k < t.row_ptr[r + 1]; ++k) {
        out.values[static_cast<std::size_t>(r * cols + t.col_idx[k])] = t.values[k];
      }
    }
    return out;
  }
  const std::size_t rank = t.shape.size();
  for (std::size_t k = 0; k < t.values.size(); ++k) {
    std::int64_t offset = 0;
    for (std::size_t d = 0; d < rank; ++d) offset = offset * t.shape[d] + t.coords[k * rank + d];
    out.values[static_cast<std::size_t>(offset)] = t.values[k];
  }
  return out;
}

// CSR (rank 2, floating). From dense: only nonzero entries are stored. From COO: every stored
// entry is kept, explicit zeros included.
template <class T>
BasicTensor<T> to_csr(const BasicTensor<T>& t) {
  validate(t);
  detail::require_sparse_target(detail::layout_of(t), Storage::Csr);
  if (t.storage == Storage::Csr) return t;
  BasicTensor<T> out;
  out.elem = t.elem;
  out.storage = Storage::Csr;
  out.shape = t.shape;
  if (t.storage == Storage::Coo) {
    detail::coo_to_csr_index(detail::layout_of(t), out.row_ptr, out.col_idx);
    out.values = t.values;
    return out;
  }
  const std::int64_t rows = t.shape[0], cols = t.shape[1];
  out.row_ptr.reserve(static_cast<std::size_t>(rows) + 1);
  out.row_ptr.push_back(0);
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::int64_t c = 0; c < cols; ++c) {
      const T& v = t.values[static_cast<std::size_t>(r * cols + c)];
      if (v == T(0)) continue;
      out.col_idx.push_back(c);
      out.values.push_back(v);
    }
    out.row_ptr.push_back(static_cast<std::int64_t>(out.values.size()));
  }
  return out;
}

// COO (rank >= 1, floating), keys sorted row-major. From dense: only nonzero entries are stored.
// From CSR: every stored entry is kept, explicit zeros included.
template <class T>
BasicTensor<T> to_coo(const BasicTensor<T>& t) {
  validate(t);
  detail::require_sparse_target(detail::layout_of(t), Storage::Coo);
  if (t.storage == Storage::Coo) return t;
  BasicTensor<T> out;
  out.elem = t.elem;
  out.storage = Storage::Coo;
  out.shape = t.shape;
  if (t.storage == Storage::Csr) {
    out.coords = detail::csr_to_coo_index(detail::layout_of(t));
    out.values = t.values;
    return out;
  }
  const std::size_t rank = t.shape.size();
  std::vector<std::int64_t> key(rank, 0);  // row-major counter over the dense index space
  for (std::size_t k = 0; k < t.values.size(); ++k) {
    if (t.values[k] != T(0)) {
      out.coords.insert(out.coords.end(), key.begin(), key.end());
      out.values.push_back(t.values[k]);
    }
    for (std::size_t d = rank; d-- > 0;) {
      if (++key[d] < t.shape[d]) break;
      key[d] = 0;
    }
  }
  return out;
}

// Conversion to any storage (dispatches to to_dense, to_csr or to_coo).
template <class T>
BasicTensor<T> to_storage(const BasicTensor<T>& t, Storage s) {
  if (s == Storage::Csr) return to_csr(t);
  if (s == Storage::Coo) return to_coo(t);
  return to_dense(t);
}

// A tensor of scalar type U with t's element type, storage, shape and indices, and no values:
// what a non-standard interpretation (dual numbers, tangents) fills with its own entries.
template <class U, class T>
BasicTensor<U> with_layout_of(const BasicTensor<T>& t) {
  BasicTensor<U> out;
  out.elem = t.elem;
  out.storage = t.storage;
  out.shape = t.shape;
  out.ints = t.ints;
  out.row_ptr = t.row_ptr;
  out.col_idx = t.col_idx;
  out.coords = t.coords;
  return out;
}

// The same tensor with floating entries converted to scalar type U (e.g. double ->
// boost::multiprecision::cpp_bin_float_50 or float). Element type, storage and indices are kept.
template <class U, class T>
BasicTensor<U> convert_scalar(const BasicTensor<T>& t) {
  BasicTensor<U> out = with_layout_of<U>(t);
  out.values.reserve(t.values.size());
  for (const T& v : t.values) out.values.push_back(static_cast<U>(v));
  return out;
}

}  // namespace adlab::ir
