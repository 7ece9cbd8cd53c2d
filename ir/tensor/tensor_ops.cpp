// Tensor constructors, layout validation and index-structure conversions (DESIGN 2.1, 2.3).
#include "ir/tensor/tensor_ops.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace adlab::ir {
namespace {

[[noreturn]] void fail(const detail::LayoutView& t, const std::string& what) {
  throw Error("invalid tensor " + type_str(t.elem, t.storage, t.shape) + ": " + what);
}

std::string item(const char* array, std::size_t k, std::int64_t v) {
  return std::string(array) + "[" + std::to_string(k) + "] = " + std::to_string(v);
}

void require_empty(const detail::LayoutView& t, std::span<const std::int64_t> a, const char* name) {
  if (!a.empty()) fail(t, std::string(name) + " must be empty for this storage");
}

void validate_dense(const detail::LayoutView& t, std::int64_t numel) {
  require_empty(t, t.row_ptr, "row_ptr");
  require_empty(t, t.col_idx, "col_idx");
  require_empty(t, t.coords, "coords");
  const auto n = static_cast<std::size_t>(numel);
  if (is_float(t.elem)) {
    if (t.num_values != n) {
      fail(t, "has " + std::to_string(t.num_values) + " values, expected " + std::to_string(n));
    }
    require_empty(t, t.ints, "ints");
    return;
  }
  if (t.ints.size() != n) {
    fail(t, "has " + std::to_string(t.ints.size()) + " ints, expected " + std::to_string(n));
  }
  if (t.num_values != 0) fail(t, "values must be empty for an integer or bool tensor");
  if (t.elem != ElemType::Bool) return;
  for (std::size_t k = 0; k < n; ++k) {
    if (t.ints[k] != 0 && t.ints[k] != 1) fail(t, "bool entry " + item("ints", k, t.ints[k]));
  }
}

void validate_csr(const detail::LayoutView& t) {
  if (t.shape.size() != 2) fail(t, "csr storage needs rank 2");
  require_empty(t, t.coords, "coords");
  const std::int64_t rows = t.shape[0], cols = t.shape[1];
  if (t.row_ptr.size() != static_cast<std::size_t>(rows) + 1) {
    fail(t, "row_ptr has " + std::to_string(t.row_ptr.size()) +
                " entries, expected rows + 1 = " + std::to_string(rows + 1));
  }
  const std::size_t nnz = t.num_values;
  if (t.col_idx.size() != nnz) {
    fail(t, "col_idx has " + std::to_string(t.col_idx.size()) + " entries but there are " +
                std::to_string(nnz) + " values");
  }
  if (t.row_ptr[0] != 0) fail(t, "row_ptr must start at 0, " + item("row_ptr", 0, t.row_ptr[0]));
  for (std::size_t r = 0; r + 1 < t.row_ptr.size(); ++r) {
    if (t.row_ptr[r + 1] < t.row_ptr[r]) {
      fail(t, "row_ptr is not monotone: " + item("row_ptr", r, t.row_ptr[r]) + " > " +
                  item("row_ptr", r + 1, t.row_ptr[r + 1]));
    }
  }
  if (t.row_ptr.back() != static_cast<std::int64_t>(nnz)) {
    fail(t, "row_ptr ends at " + std::to_string(t.row_ptr.back()) + " but there are " +
                std::to_string(nnz) + " values");
  }
  for (std::size_t r = 0; r + 1 < t.row_ptr.size(); ++r) {
    for (auto k = static_cast<std::size_t>(t.row_ptr[r]);
         k < static_cast<std::size_t>(t.row_ptr[r + 1]); ++k) {
      const std::int64_t c = t.col_idx[k];
      if (c < 0 || c >= cols) {
        fail(t, "column index out of range in row " + std::to_string(r) + ": " +
                    item("col_idx", k, c) + " (columns: " + std::to_string(cols) + ")");
      }
      if (k > static_cast<std::size_t>(t.row_ptr[r]) && c <= t.col_idx[k - 1]) {
        fail(t, std::string(c == t.col_idx[k - 1] ? "duplicate" : "unsorted") + " column " +
                    std::to_string(c) + " in row " + std::to_string(r) + " at " +
                    item("col_idx", k, c) + " after " + item("col_idx", k - 1, t.col_idx[k - 1]));
      }
    }
  }
}

void validate_coo(const detail::LayoutView& t) {
  if (t.shape.empty()) fail(t, "coo storage needs rank >= 1");
  require_empty(t, t.row_ptr, "row_ptr");
  require_empty(t, t.col_idx, "col_idx");
  const std::size_t rank = t.shape.size(), nnz = t.num_values;
  if (t.coords.size() != nnz * rank) {
    fail(t, "coords has " + std::to_string(t.coords.size()) +
                " entries, expected nnz * rank = " + std::to_string(nnz * rank));
  }
  for (std::size_t k = 0; k < nnz; ++k) {
    auto key = t.coords.subspan(k * rank, rank);
    for (std::size_t d = 0; d < rank; ++d) {
      if (key[d] < 0 || key[d] >= t.shape[d]) {
        fail(t, "entry " + std::to_string(k) + " has key " + index_str(key) + " out of range");
      }
    }
    if (k == 0) continue;
    auto prev = t.coords.subspan((k - 1) * rank, rank);
    auto order =
        std::lexicographical_compare_three_way(prev.begin(), prev.end(), key.begin(), key.end());
    if (order == 0) {
      fail(t, "duplicate key " + index_str(key) + " at entries " + std::to_string(k - 1) + " and " +
                  std::to_string(k));
    }
    if (order > 0) {
      fail(t, "keys are not sorted row-major: entry " + std::to_string(k) + " " + index_str(key) +
                  " follows " + index_str(prev));
    }
  }
}

}  // namespace

Tensor dense_f64(std::vector<std::int64_t> shape, std::vector<double> values) {
  Tensor t;
  t.shape = std::move(shape);
  t.values = std::move(values);
  validate(t);
  return t;
}

Tensor dense_i64(std::vector<std::int64_t> shape, std::vector<std::int64_t> ints) {
  Tensor t;
  t.elem = ElemType::I64;
  t.shape = std::move(shape);
  t.ints = std::move(ints);
  validate(t);
  return t;
}

Tensor scalar(double value) {
  return dense_f64({}, {value});
}

Tensor make_csr(std::int64_t rows, std::int64_t cols, std::vector<std::int64_t> row_ptr,
                std::vector<std::int64_t> col_idx, std::vector<double> values) {
  Tensor t;
  t.storage = Storage::Csr;
  t.shape = {rows, cols};
  t.row_ptr = std::move(row_ptr);
  t.col_idx = std::move(col_idx);
  t.values = std::move(values);
  validate(t);
  return t;
}

Tensor make_coo(std::vector<std::int64_t> shape, std::vector<std::int64_t> coords,
                std::vector<double> values) {
  Tensor t;
  t.storage = Storage::Coo;
  t.shape = std::move(shape);
  t.coords = std::move(coords);
  t.values = std::move(values);
  validate(t);
  return t;
}

bool beyond_f32(double v) {
  return std::isfinite(v) && std::fabs(v) > static_cast<double>(std::numeric_limits<float>::max());
}

double f32_value(double v) {
  return beyond_f32(v) ? std::copysign(HUGE_VAL, v) : static_cast<double>(static_cast<float>(v));
}

std::int64_t checked_numel(std::span<const std::int64_t> shape) {
  std::int64_t n = 1;
  for (std::int64_t d : shape) {
    if (d < 0) throw Error("negative dimension in shape " + shape_str(shape));
    if (__builtin_mul_overflow(n, d, &n)) {
      throw Error("shape " + shape_str(shape) + " has more than 2^63 entries");
    }
  }
  return n;
}

std::string shape_str(std::span<const std::int64_t> shape) {
  std::string s = "[";
  for (std::size_t d = 0; d < shape.size(); ++d) s += (d ? ", " : "") + std::to_string(shape[d]);
  return s + "]";
}

std::string index_str(std::span<const std::int64_t> idx) {
  std::string s = "(";
  for (std::size_t d = 0; d < idx.size(); ++d) s += (d ? ", " : "") + std::to_string(idx[d]);
  return s + ")";
}

std::string type_str(ElemType elem, Storage storage, std::span<const std::int64_t> shape) {
  std::string s = elem_name(elem);
  if (!shape.empty()) s += shape_str(shape);
  if (storage != Storage::Dense) s += std::string(" @") + storage_name(storage);
  return s;
}

namespace detail {

void validate_layout(const LayoutView& t) {
  for (std::int64_t d : t.shape) {
    if (d < 0) fail(t, "negative dimension");
  }
  if (t.storage == Storage::Dense) {
    std::int64_t numel = 1;
    for (std::int64_t d : t.shape) {
      if (__builtin_mul_overflow(numel, d, &numel)) fail(t, "more than 2^63 entries");
    }
    validate_dense(t, numel);
    return;
  }
  if (!is_float(t.elem)) fail(t, "sparse storage needs a floating element type");
  require_empty(t, t.ints, "ints");
  if (t.storage == Storage::Csr) {
    validate_csr(t);
  } else {
    validate_coo(t);
  }
}

std::int64_t locate_entry(const LayoutView& t, std::span<const std::int64_t> idx) {
  const std::string type = type_str(t.elem, t.storage, t.shape);
  if (idx.size() != t.shape.size()) {
    throw Error("index " + index_str(idx) + " has " + std::to_string(idx.size()) +
                " components but " + type + " has rank " + std::to_string(t.shape.size()));
  }
  for (std::size_t d = 0; d < idx.size(); ++d) {
    if (idx[d] < 0 || idx[d] >= t.shape[d]) {
      throw Error("index " + index_str(idx) + " out of range for " + type);
    }
  }
  if (t.storage == Storage::Dense) {
    std::int64_t offset = 0;
    for (std::size_t d = 0; d < idx.size(); ++d) offset = offset * t.shape[d] + idx[d];
    return offset;
  }
  if (t.storage == Storage::Csr) {
    auto begin = t.col_idx.begin() + t.row_ptr[idx[0]];
    auto end = t.col_idx.begin() + t.row_ptr[idx[0] + 1];
    auto it = std::lower_bound(begin, end, idx[1]);
    return it != end && *it == idx[1] ? it - t.col_idx.begin() : -1;
  }
  const std::size_t rank = t.shape.size();
  std::size_t lo = 0, hi = t.num_values;  // binary search over the sorted keys
  while (lo < hi) {
    std::size_t mid = lo + (hi - lo) / 2;
    auto key = t.coords.subspan(mid * rank, rank);
    auto order =
        std::lexicographical_compare_three_way(key.begin(), key.end(), idx.begin(), idx.end());
    if (order == 0) return static_cast<std::int64_t>(mid);
    if (order < 0) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return -1;
}

void require_sparse_target(const LayoutView& t, Storage target) {
  const std::string type = type_str(t.elem, t.storage, t.shape);
  if (!is_float(t.elem)) {
    throw Error(std::string("cannot store ") + type + " as " + storage_name(target) +
                ": sparse storage needs a floating element type");
  }
  if (target == Storage::Csr && t.shape.size() != 2) {
    throw Error("cannot store " + type + " as csr: csr needs rank 2");
  }
  if (target == Storage::Coo && t.shape.empty()) {
    throw Error("cannot store " + type + " as coo: coo needs rank >= 1");
  }
}

void coo_to_csr_index(const LayoutView& t, std::vector<std::int64_t>& row_ptr,
                      std::vector<std::int64_t>& col_idx) {
  const std::size_t nnz = t.num_values;
  row_ptr.assign(static_cast<std::size_t>(t.shape[0]) + 1, 0);
  col_idx.resize(nnz);
  for (std::size_t k = 0; k < nnz; ++k) {
    ++row_ptr[static_cast<std::size_t>(t.coords[2 * k]) + 1];
    col_idx[k] = t.coords[2 * k + 1];
  }
  for (std::size_t r = 1; r < row_ptr.size(); ++r) row_ptr[r] += row_ptr[r - 1];
}

std::vector<std::int64_t> csr_to_coo_index(const LayoutView& t) {
  std::vector<std::int64_t> coords;
  coords.reserve(2 * t.num_values);
  for (std::size_t r = 0; r + 1 < t.row_ptr.size(); ++r) {
    for (std::int64_t k = t.row_ptr[r]; k < t.row_ptr[r + 1]; ++k) {
      coords.push_back(static_cast<std::int64_t>(r));
      coords.push_back(t.col_idx[static_cast<std::size_t>(k)]);
    }
  }
  return coords;
}

}  // namespace detail
}  // namespace adlab::ir
