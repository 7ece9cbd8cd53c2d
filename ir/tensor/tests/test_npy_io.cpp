// Tests of the NumPy .npy reader and writer.
#include "ir/tensor/npy_io.h"

#include <catch2/catch.hpp>
#include <cmath>

#include "ir/tensor/file_bytes.h"
#include "ir/tensor/tensor_ops.h"
#include "ir/tensor/tests/check_error.h"
#include "ir/tensor/tests/temp_file.h"

namespace adlab::ir {
namespace {

using testing::TempFile;

// A .npy file as NumPy lays it out: magic, version, header length, padded header, data.
std::string npy_file(int major, const std::string& dict, const std::string& data) {
  const std::size_t prefix = major == 1 ? 10 : 12;
  std::string header = dict;
  header.append((64 - (prefix + header.size() + 1) % 64) % 64, ' ');
  header += '\n';
  std::string out = "\x93NUMPY";
  out += static_cast<char>(major);
  out += '\0';
  for (std::size_t k = 0; k < prefix - 8; ++k) {
    out += static_cast<char>((header.size() >> (8 * k)) & 0xff);
  }
  return out + header + data;
}

TEST_CASE("npy files round trip every supported element type", "[unit]") {
  TempFile file(".npy");
  Tensor f32 = dense_f64({2, 2}, {0.5, -1, 3, static_cast<double>(0.1f)});
  f32.elem = ElemType::F32;
  Tensor b = dense_i64({3}, {1, 0, 1});
  b.elem = ElemType::Bool;
  const std::vector<Tensor> cases = {dense_f64({2, 3}, {1, -2.5, 0.1, 1e-310, -0.0, 1e300}),
                                     f32,
                                     dense_i64({2, 1, 2}, {INT64_MIN, -1, 0, INT64_MAX}),
                                     b,
                                     scalar(3.25),
                                     dense_f64({0, 4}, {})};
  for (const Tensor& t : cases) {
    write_npy(file.path(), t);
    const Tensor r = read_npy(file.path());
    CHECK(r.elem == t.elem);
    CHECK(r.shape == t.shape);
    CHECK(r.values == t.values);
    CHECK(r.ints == t.ints);
  }
  CHECK(std::signbit(decode_npy(encode_npy(dense_f64({1}, {-0.0}))).values[0]));
}

TEST_CASE("npy header is laid out as NumPy writes it", "[unit]") {
  const std::string bytes = encode_npy(dense_f64({3}, {1, 2, 3}));
  const std::string dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }";
  REQUIRE(bytes.size() == 128 + 24);
  CHECK(bytes.substr(0, 10) == std::string("\x93NUMPY\x01\x00\x76\x00", 10));
  CHECK(bytes.substr(10, dict.size()) == dict);
  CHECK(bytes[127] == '\n');
  CHECK(bytes.substr(128, 8) == std::string("\0\0\0\0\0\0\xf0\x3f", 8));  // 1.0 little-endian
  CHECK(encode_npy(scalar(1)).substr(10, 55) ==
        "{'descr': '<f8', 'fortran_order': False, 'shape': (), }");
}

TEST_CASE("npy version 2.0 and '<i4' data are read", "[unit]") {
  const std::string data("\x01\x00\x00\x00\xfe\xff\xff\xff\x00\x00\x00\x80\xff\xff\xff\x7f", 16);
  const Tensor t =
      decode_npy(npy_file(2, "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 2), }", data));
  CHECK(t.elem == ElemType::I64);
  CHECK(t.shape == std::vector<std::int64_t>{2, 2});
  CHECK(t.ints == std::vector<std::int64_t>{1, -2, INT32_MIN, INT32_MAX});
  // Key order and quotes are free in a Python dict literal; trailing bytes are ignored.
  const Tensor u =
      decode_npy(npy_file(1, "{\"shape\": (1,), \"fortran_order\": False, \"descr\": \"|b1\"}",
                          "\x01"
                          "extra"));
  CHECK(u.elem == ElemType::Bool);
  CHECK(u.ints == std::vector<std::int64_t>{1});
}

TEST_CASE("npy errors: truncation and order and endianness and dtype and version", "[unit]") {
  const std::string good = encode_npy(dense_f64({3}, {1, 2, 3}));
  CHECK_ERROR(decode_npy(good.substr(0, good.size() - 1), "a.npy"),
              "a.npy: error: truncated .npy data: shape [3] of '<f8' needs 3 x 8 bytes, the file "
              "has 23");
  CHECK_ERROR(decode_npy(good.substr(0, 100), "a.npy"),
              "a.npy: error: truncated .npy header: it declares 118 bytes, the file has 90");
  CHECK_ERROR(decode_npy(good.substr(0, 5), "a.npy"), "a.npy: error: not a .npy file (bad magic)");
  CHECK_ERROR(decode_npy(npy_file(1, "{'descr': '<f8', 'fortran_order': True, 'shape': (2, 2), }",
                                  std::string(32, '\0')),
                         "f.npy"),
              "f.npy: error: .npy arrays in Fortran order are not supported (save in C order)");
  CHECK_ERROR(decode_npy(npy_file(1, "{'descr': '>f8', 'fortran_order': False, 'shape': (1,), }",
                                  std::string(8, '\0')),
                         "b.npy"),
              "b.npy: error: big-endian .npy dtype '>f8' is not supported");
  CHECK_ERROR(decode_npy(npy_file(1, "{'descr': '<c16', 'fortran_order': False, 'shape': (1,), }",
                                  std::string(16, '\0')),
                         "c.npy"),
              "c.npy: error: unsupported .npy dtype '<c16' (supported: <f8, <f4, <i8, <i4, |b1)");
  CHECK_ERROR(decode_npy(npy_file(4, "{}", ""), "v.npy"),
              "v.npy: error: unsupported .npy format version 4.0");
  CHECK_ERROR(decode_npy(npy_file(1, "{'descr': '<f8', 'shape': (1,), }", ""), "k.npy"),
              "k.npy: error: malformed .npy header: header needs the keys 'descr', 'fortran_order' "
              "and 'shape' in {'descr': '<f8', 'shape': (1,), }");
  CHECK_ERROR(write_npy("unused.npy", make_csr(1, 1, {0, 0}, {}, {})),
              "error: write_npy needs a dense tensor, got f64[1, 1] @csr (convert with to_dense)");
  TempFile file(".npy");
  write_file_bytes(file.path(), good.substr(0, 130));
  CHECK_ERROR(read_npy(file.path()),
              file.path() +
                  ": error: truncated .npy data: shape [3] of '<f8' needs 3 x 8 bytes, the file "
                  "has 2");
}

}  // namespace
}  // namespace adlab::ir
