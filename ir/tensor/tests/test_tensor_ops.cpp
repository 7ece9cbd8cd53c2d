// Tests of tensor constructors, validation, storage conversions and entry reads.
#include "ir/tensor/tensor_ops.h"

#include <boost/multiprecision/cpp_bin_float.hpp>
#include <catch2/catch.hpp>

#include "ir/tensor/tests/check_error.h"

namespace adlab::ir {
namespace {

// The 3 x 4 matrix used throughout:
//   [1 0 2 0]
//   [0 0 0 0]
//   [3 0 0 4]
Tensor sample_dense() {
  return dense_f64({3, 4}, {1, 0, 2, 0, 0, 0, 0, 0, 3, 0, 0, 4});
}

TEST_CASE("tensor names and type strings", "[unit]") {
  CHECK(std::string(elem_name(ElemType::F64)) == "f64");
  CHECK(std::string(elem_name(ElemType::Bool)) == "bool");
  CHECK(std::string(storage_name(Storage::Csr)) == "csr");
  std::vector<std::int64_t> shape = {3, 4};
  CHECK(type_str(ElemType::F32, Storage::Coo, shape) == "f32[3, 4] @coo");
  CHECK(type_str(ElemType::I64, Storage::Dense, {}) == "i64");
  CHECK(scalar(2.5).rank() == 0);
  CHECK(scalar(2.5).numel() == 1);
}

TEST_CASE("constructors validate their arguments", "[unit]") {
  CHECK_ERROR(dense_f64({2, 2}, {1, 2, 3}),
              "error: invalid tensor f64[2, 2]: has 3 values, expected 4");
  CHECK_ERROR(dense_i64({2}, {1}), "error: invalid tensor i64[2]: has 1 ints, expected 2");
  CHECK_ERROR(dense_f64({-1, 2}, {}), "error: invalid tensor f64[-1, 2]: negative dimension");
  CHECK_ERROR(checked_numel(std::vector<std::int64_t>{1LL << 40, 1LL << 40}),
              "error: shape [1099511627776, 1099511627776] has more than 2^63 entries");
  Tensor b;
  b.elem = ElemType::Bool;
  b.shape = {2};
  b.ints = {1, 2};
  CHECK_ERROR(validate(b), "error: invalid tensor bool[2]: bool entry ints[1] = 2");
}

TEST_CASE("validate rejects malformed csr tensors", "[unit]") {
  CHECK_ERROR(make_csr(3, 3, {0, 2, 1, 3}, {0, 1, 2}, {1, 2, 3}),
              "error: invalid tensor f64[3, 3] @csr: row_ptr is not monotone: row_ptr[1] = 2 > "
              "row_ptr[2] = 1");
  CHECK_ERROR(make_csr(2, 3, {0, 2, 2}, {0, 5}, {1, 2}),
              "error: invalid tensor f64[2, 3] @csr: column index out of range in row 0: "
              "col_idx[1] = 5 (columns: 3)");
  CHECK_ERROR(make_csr(2, 3, {0, 2, 2}, {2, 0}, {1, 2}),
              "error: invalid tensor f64[2, 3] @csr: unsorted column 0 in row 0 at col_idx[1] = 0 "
              "after col_idx[0] = 2");
  CHECK_ERROR(make_csr(2, 3, {0, 0, 2}, {1, 1}, {1, 2}),
              "error: invalid tensor f64[2, 3] @csr: duplicate column 1 in row 1 at col_idx[1] = 1 "
              "after col_idx[0] = 1");
  CHECK_ERROR(make_csr(2, 3, {0, 1}, {0}, {1}),
              "error: invalid tensor f64[2, 3] @csr: row_ptr has 2 entries, expected rows + 1 = 3");
  CHECK_ERROR(make_csr(2, 3, {0, 1, 3}, {0, 1}, {1, 2}),
              "error: invalid tensor f64[2, 3] @csr: row_ptr ends at 3 but there are 2 values");
  CHECK_ERROR(make_csr(2, 3, {0, 1, 2}, {0}, {1, 2}),
              "error: invalid tensor f64[2, 3] @csr: col_idx has 1 entries but there are 2 values");
  CHECK_ERROR(make_csr(2, 3, {1, 1, 2}, {0, 1}, {1, 2}),
              "error: invalid tensor f64[2, 3] @csr: row_ptr must start at 0, row_ptr[0] = 1");
}

TEST_CASE("validate rejects malformed coo tensors", "[unit]") {
  CHECK_ERROR(make_coo({3, 3}, {0, 1, 0, 1}, {1, 2}),
              "error: invalid tensor f64[3, 3] @coo: duplicate key (0, 1) at entries 0 and 1");
  CHECK_ERROR(make_coo({3, 3}, {1, 0, 0, 2}, {1, 2}),
              "error: invalid tensor f64[3, 3] @coo: keys are not sorted row-major: entry 1 (0, 2) "
              "follows (1, 0)");
  CHECK_ERROR(make_coo({3, 3}, {0, 3}, {1}),
              "error: invalid tensor f64[3, 3] @coo: entry 0 has key (0, 3) out of range");
  CHECK_ERROR(
      make_coo({3, 3}, {0, 1, 2}, {1}),
      "error: invalid tensor f64[3, 3] @coo: coords has 3 entries, expected nnz * rank = 2");
  Tensor t = make_coo({3}, {1}, {5});
  t.elem = ElemType::I64;
  CHECK_ERROR(validate(t),
              "error: invalid tensor i64[3] @coo: sparse storage needs a floating element type");
}

TEST_CASE("dense -> csr -> coo -> dense is the identity and drops zeros", "[unit]") {
  const Tensor d = sample_dense();
  const Tensor csr = to_csr(d);
  CHECK(csr.storage == Storage::Csr);
  CHECK(csr.row_ptr == std::vector<std::int64_t>{0, 2, 2, 4});
  CHECK(csr.col_idx == std::vector<std::int64_t>{0, 2, 0, 3});
  CHECK(csr.values == std::vector<double>{1, 2, 3, 4});
  const Tensor coo = to_coo(csr);
  CHECK(coo.coords == std::vector<std::int64_t>{0, 0, 0, 2, 2, 0, 2, 3});
  CHECK(coo.values == csr.values);
  const Tensor back = to_dense(coo);
  CHECK(back.storage == Storage::Dense);
  CHECK(back.shape == d.shape);
  CHECK(back.values == d.values);
  CHECK(to_dense(csr).values == d.values);
  CHECK(to_csr(to_coo(d)).col_idx == csr.col_idx);
  CHECK(to_storage(d, Storage::Coo).coords == coo.coords);
}

TEST_CASE("sparse conversions keep explicit zeros", "[unit]") {
  const Tensor coo = make_coo({2, 3}, {0, 1, 1, 0, 1, 2}, {0.0, 5.0, 0.0});
  const Tensor csr = to_csr(coo);
  CHECK(csr.nnz() == 3);
  CHECK(csr.row_ptr == std::vector<std::int64_t>{0, 1, 3});
  CHECK(csr.col_idx == std::vector<std::int64_t>{1, 0, 2});
  CHECK(to_coo(csr).coords == coo.coords);
  CHECK(to_coo(to_dense(csr)).nnz() == 1);  // the dense form no longer knows the pattern
}

TEST_CASE("rank-3 coo round trip and conversion errors", "[unit]") {
  Tensor d = dense_f64({2, 2, 3}, {0, 1, 0, 0, 0, 0, 2, 0, 0, 0, 0, 3});
  const Tensor coo = to_coo(d);
  CHECK(coo.coords == std::vector<std::int64_t>{0, 0, 1, 1, 0, 0, 1, 1, 2});
  CHECK(to_dense(coo).values == d.values);
  CHECK_ERROR(to_csr(d), "error: cannot store f64[2, 2, 3] as csr: csr needs rank 2");
  CHECK_ERROR(to_coo(scalar(1)), "error: cannot store f64 as coo: coo needs rank >= 1");
  CHECK_ERROR(to_csr(dense_i64({1, 1}, {1})),
              "error: cannot store i64[1, 1] as csr: sparse storage needs a floating element type");
}

TEST_CASE("read_entry reads every storage and checks bounds", "[unit]") {
  const Tensor d = sample_dense();
  for (const Tensor& t : {d, to_csr(d), to_coo(d)}) {
    for (std::int64_t i = 0; i < 3; ++i) {
      for (std::int64_t j = 0; j < 4; ++j) {
        CHECK(read_entry(t, {i, j}) == d.values[static_cast<std::size_t>(i * 4 + j)]);
      }
    }
  }
  CHECK_ERROR(read_entry(to_csr(d), {3, 0}), "error: index (3, 0) out of range for f64[3, 4] @csr");
  CHECK_ERROR(read_entry(d, {0, -1}), "error: index (0, -1) out of range for f64[3, 4]");
  CHECK_ERROR(read_entry(to_coo(d), {1}),
              "error: index (1) has 1 components but f64[3, 4] @coo has rank 2");
  CHECK(read_entry(scalar(7.5), {}) == 7.5);
  CHECK(read_entry(dense_i64({2}, {4, -9}), {1}) == -9.0);
  const Tensor coo3 = to_coo(dense_f64({2, 2, 2}, {0, 0, 0, 6, 0, 7, 0, 0}));
  CHECK(read_entry(coo3, {0, 1, 1}) == 6);
  CHECK(read_entry(coo3, {1, 0, 1}) == 7);
  CHECK(read_entry(coo3, {1, 1, 1}) == 0);
}

TEST_CASE("convert_scalar carries tensors to float and 50-digit types", "[unit]") {
  using Big = boost::multiprecision::cpp_bin_float_50;
  const Tensor d = sample_dense();
  const BasicTensor<Big> big = convert_scalar<Big>(to_csr(d));
  CHECK(big.storage == Storage::Csr);
  CHECK(read_entry(big, {2, 3}) == Big(4));
  const BasicTensor<Big> big_dense = to_dense(big);
  CHECK(big_dense.values.size() == 12);
  CHECK(to_coo(big_dense).nnz() == 4);
  const Tensor back = convert_scalar<double>(big_dense);
  CHECK(back.values == d.values);
  const BasicTensor<Big> third = convert_scalar<Big>(dense_f64({1}, {1.0 / 3.0}));
  CHECK(static_cast<double>(third.values[0]) == 1.0 / 3.0);  // exact widening
  const TensorF f = convert_scalar<float>(dense_f64({2}, {0.1, 2}));
  CHECK(f.values[0] == 0.1f);
  CHECK(to_csr(convert_scalar<float>(sample_dense())).nnz() == 4);
}

}  // namespace
}  // namespace adlab::ir
