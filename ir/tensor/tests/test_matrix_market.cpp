// Tests of the Matrix Market reader and writer.
#include "ir/tensor/matrix_market.h"

#include <bit>
#include <catch2/catch.hpp>
#include <sstream>

#include "ir/tensor/file_bytes.h"
#include "ir/tensor/random.h"
#include "ir/tensor/tensor_ops.h"
#include "ir/tensor/tests/check_error.h"
#include "ir/tensor/tests/temp_file.h"

namespace adlab::ir {
namespace {

using testing::TempFile;

Tensor parse(const std::string& text) {
  std::istringstream in(text);
  return parse_matrix_market(in, "m.mtx");
}

TEST_CASE("symmetric coordinate files are expanded to both triangles", "[unit]") {
  const Tensor t = parse(
      "%%MatrixMarket matrix coordinate real symmetric\n"
      "% a comment\n"
      "3 3 4\n"
      "1 1 2.0\n"
      "2 1 -1.5\n"
      "3 2 4\n"
      "3 3 5e0\n");
  CHECK(t.storage == Storage::Csr);
  CHECK(t.shape == std::vector<std::int64_t>{3, 3});
  CHECK(t.row_ptr == std::vector<std::int64_t>{0, 2, 4, 6});
  CHECK(t.col_idx == std::vector<std::int64_t>{0, 1, 0, 2, 1, 2});
  CHECK(t.values == std::vector<double>{2, -1.5, -1.5, 4, 4, 5});
}

TEST_CASE("skew-symmetric and pattern and integer coordinate files", "[unit]") {
  const Tensor skew =
      parse("%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 3\n3 1 -1\n");
  CHECK(skew.row_ptr == std::vector<std::int64_t>{0, 2, 3, 4});
  CHECK(skew.col_idx == std::vector<std::int64_t>{1, 2, 0, 0});
  CHECK(skew.values == std::vector<double>{-3, 1, 3, -1});
  const Tensor pattern =
      parse("%%MatrixMarket MATRIX Coordinate Pattern General\n2 3 2\n2 3\n1 2\n");
  CHECK(pattern.row_ptr == std::vector<std::int64_t>{0, 1, 2});
  CHECK(pattern.col_idx == std::vector<std::int64_t>{1, 2});
  CHECK(pattern.values == std::vector<double>{1, 1});
  const Tensor ints = parse("%%MatrixMarket matrix coordinate integer general\n1 2 1\n1 2 -7\n");
  CHECK(ints.values == std::vector<double>{-7});
}

TEST_CASE("duplicate coordinate entries are summed and explicit zeros are kept", "[unit]") {
  const Tensor t = parse(
      "%%MatrixMarket matrix coordinate real general\r\n2 2 4\r\n1 1 1\r\n2 2 0\r\n\r\n1 1 2.5\r\n"
      "1 1 +0.25\r\n");
  CHECK(t.row_ptr == std::vector<std::int64_t>{0, 1, 2});
  CHECK(t.col_idx == std::vector<std::int64_t>{0, 1});
  CHECK(t.values == std::vector<double>{3.75, 0});
}

TEST_CASE("array files are read column by column into dense tensors", "[unit]") {
  const Tensor g = parse("%%MatrixMarket matrix array real general\n2 3\n1\n2\n3\n4\n5\n6\n");
  CHECK(g.storage == Storage::Dense);
  CHECK(g.values == std::vector<double>{1, 3, 5, 2, 4, 6});
  const Tensor s = parse("%%MatrixMarket matrix array integer symmetric\n3 3\n1\n2\n3\n4\n5\n6\n");
  CHECK(s.values == std::vector<double>{1, 2, 3, 2, 4, 5, 3, 5, 6});
  const Tensor k = parse("%%MatrixMarket matrix array real skew-symmetric\n2 2\n7\n");
  CHECK(k.values == std::vector<double>{0, -7, 7, 0});
}

TEST_CASE("matrix market round trip keeps every stored entry bit for bit", "[unit]") {
  TempFile file(".mtx");
  const Tensor r =
      random_sparse(40, 30, Storage::Csr, SparseFill::nnz(200), ValueDist::normal(0, 1e5), 11);
  write_matrix_market(file.path(), r);
  const Tensor back = read_matrix_market(file.path());
  CHECK(back.row_ptr == r.row_ptr);
  CHECK(back.col_idx == r.col_idx);
  for (std::size_t k = 0; k < r.values.size(); ++k) {
    CHECK(std::bit_cast<std::uint64_t>(back.values[k]) ==
          std::bit_cast<std::uint64_t>(r.values[k]));
  }
  const Tensor coo = make_coo({2, 3}, {0, 2, 1, 0}, {0.0, -0.0});
  std::ostringstream out;
  write_matrix_market(out, coo);
  CHECK(out.str() == "%%MatrixMarket matrix coordinate real general\n2 3 2\n1 3 0\n2 1 -0\n");
  CHECK(to_coo(parse(out.str())).coords == coo.coords);
  CHECK_ERROR(write_matrix_market(out, dense_f64({1, 1}, {1})),
              "error: write_matrix_market needs a rank-2 csr or coo tensor, got f64[1, 1]");
}

TEST_CASE("matrix market errors name the file and line and column", "[unit]") {
  const std::string usage =
      "bad Matrix Market header: expected '%%MatrixMarket matrix coordinate|array "
      "real|integer|pattern general|symmetric|skew-symmetric'";
  CHECK_ERROR(parse("%MatrixMarket matrix coordinate real general\n1 1 0\n"),
              "m.mtx:1:1: error: " + usage);
  CHECK_ERROR(parse("%%MatrixMarket matrix coordinate real hermitian\n1 1 0\n"),
              "m.mtx:1:39: error: " + usage + ", found symmetry 'hermitian'");
  CHECK_ERROR(parse("%%MatrixMarket matrix coordinate complex general\n1 1 0\n"),
              "m.mtx:1:34: error: complex Matrix Market files are not supported");
  CHECK_ERROR(parse("%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1\n%\n2  4 1\n"),
              "m.mtx:5:4: error: column 4 out of range 1..3");
  CHECK_ERROR(parse("%%MatrixMarket matrix coordinate real general\n3 3 1\n1 1 x1\n"),
              "m.mtx:3:5: error: expected a real value, found 'x1'");
  CHECK_ERROR(parse("%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1\n"),
              "m.mtx:3:1: error: file ends after 1 of 2 entries");
  CHECK_ERROR(parse("%%MatrixMarket matrix coordinate real general\n3 3 1\n1 1 1\n2 2 2\n"),
              "m.mtx:4:1: error: more entries than the 1 the size line declares");
  CHECK_ERROR(parse("%%MatrixMarket matrix coordinate real symmetric\n3 3 1\n1 2 1\n"),
              "m.mtx:3:1: error: entry (1, 2) is above the diagonal; a symmetric file lists the "
              "lower triangle only");
  CHECK_ERROR(parse("%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 1\n2 2 1\n"),
              "m.mtx:3:1: error: entry (2, 2) is on the diagonal; a skew-symmetric file lists the "
              "strictly lower triangle only");
  CHECK_ERROR(parse("%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 1 1.5\n"),
              "m.mtx:3:5: error: expected an integer value, found '1.5'");
  CHECK_ERROR(parse("%%MatrixMarket matrix coordinate real general\n3 3\n"),
              "m.mtx:2:1: error: expected the size line 'rows columns entries', found 2 fields");
  TempFile file(".mtx");
  write_file_bytes(file.path(), "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n");
  CHECK_ERROR(read_matrix_market(file.path()),
              file.path() + ":5:1: error: file ends after 3 array values");
}

}  // namespace
}  // namespace adlab::ir
