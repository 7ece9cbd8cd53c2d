// Tests of reading and writing tensors as JSON.
#include "ir/tensor/json_io.h"

#include <bit>
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>

#include "ir/tensor/file_bytes.h"
#include "ir/tensor/json_file.h"
#include "ir/tensor/tensor_ops.h"
#include "ir/tensor/tests/check_error.h"
#include "ir/tensor/tests/temp_file.h"

namespace adlab::ir {
namespace {

using nlohmann::json;
using testing::TempFile;

Tensor from_text(const std::string& text, ElemType want = ElemType::F64,
                 Storage storage = Storage::Dense) {
  return tensor_from_json(json::parse(text), want, storage);
}

TEST_CASE("json dense tensors round trip through a file", "[unit]") {
  TempFile file(".json");
  const Tensor d = dense_f64({2, 3}, {1, -2.5, 0, 1e300, -0.0, 3});
  write_json_tensor(file.path(), d);
  CHECK(read_file_bytes(file.path()) == "[[1.0,-2.5,0.0],[1e+300,-0.0,3.0]]\n");
  const Tensor back = read_json_tensor(file.path());
  CHECK(back.shape == d.shape);
  CHECK(back.values == d.values);
  CHECK(std::signbit(back.values[4]));
  for (const Tensor& t : {scalar(4.25), dense_f64({0}, {}), dense_f64({2, 0}, {})}) {
    write_json_tensor(file.path(), t);
    const Tensor r = read_json_tensor(file.path());
    CHECK(r.shape == t.shape);
    CHECK(r.values == t.values);
  }
}

TEST_CASE("json numbers round trip doubles bit for bit", "[unit]") {
  std::vector<double> values = {0.1,
                                1.0 / 3.0,
                                -0.0,
                                std::numeric_limits<double>::denorm_min(),
                                std::numeric_limits<double>::min(),
                                std::numeric_limits<double>::max(),
                                -std::numeric_limits<double>::max(),
                                std::nextafter(1.0, 2.0),
                                9007199254740993.0,
                                std::numeric_limits<double>::infinity(),
                                -std::numeric_limits<double>::infinity(),
                                std::numeric_limits<double>::quiet_NaN()};
  std::mt19937_64 gen(7);
  while (values.size() < 20000) {
    const double v = std::bit_cast<double>(gen());
    if (std::isfinite(v)) values.push_back(v);
  }
  const Tensor t = dense_f64({static_cast<std::int64_t>(values.size())}, values);
  const std::string text = tensor_to_json(t).dump();
  const Tensor back = from_text(text);
  REQUIRE(back.values.size() == values.size());
  for (std::size_t k = 0; k < values.size(); ++k) {
    if (std::isnan(values[k])) {
      CHECK(std::isnan(back.values[k]));
    } else {
      CHECK(std::bit_cast<std::uint64_t>(back.values[k]) ==
            std::bit_cast<std::uint64_t>(values[k]));
    }
  }
  CHECK(tensor_to_json(scalar(HUGE_VAL)) == "Infinity");
}

TEST_CASE("json integers read as f64 unless i64 is asked for", "[unit]") {
  const Tensor f = from_text("[1, 2, 3]");
  CHECK(f.elem == ElemType::F64);
  CHECK(f.values == std::vector<double>{1, 2, 3});
  const Tensor i =
      from_text("[[-9223372036854775808, 9223372036854775807], [0, 3.0]]", ElemType::I64);
  CHECK(i.elem == ElemType::I64);
  CHECK(i.ints == std::vector<std::int64_t>{INT64_MIN, INT64_MAX, 0, 3});
  CHECK(tensor_from_json(tensor_to_json(i), ElemType::I64).ints == i.ints);
  CHECK_ERROR(from_text("[1, 2.5]", ElemType::I64),
              "error: expected an integer (i64) at $[1], found number 2.5");
  CHECK_ERROR(from_text("[18446744073709551615]", ElemType::I64),
              "error: expected an integer (i64) at $[0], found number 18446744073709551615");
  const Tensor b = from_text("[true, false, 1]", ElemType::Bool);
  CHECK(b.ints == std::vector<std::int64_t>{1, 0, 1});
  CHECK(tensor_to_json(b).dump() == "[true,false,true]");
  CHECK_ERROR(from_text("[2]", ElemType::Bool),
              "error: expected a bool (true, false, 0 or 1) at $[0], found number 2");
  const Tensor f32 = from_text("[0.1]", ElemType::F32);
  CHECK(f32.elem == ElemType::F32);
  CHECK(f32.values[0] == static_cast<double>(0.1f));
}

TEST_CASE("json ragged arrays are errors naming the path and the nesting", "[unit]") {
  CHECK_ERROR(from_text("[[1, 2], [3]]"),
              "error: ragged array at $[1]: array of length 1, expected 2 as at $[0]");
  CHECK_ERROR(from_text("[[1, 2], 3]"),
              "error: ragged array at $[1]: found number 3 where an array of length 2 was "
              "expected, as at $[0] (rank 2)");
  CHECK_ERROR(from_text("[[[1], [2]], [[3], [4, 5]]]"),
              "error: ragged array at $[1][1]: array of length 2, expected 1 as at $[0][0]");
  CHECK_ERROR(from_text("[[1, [2]], [3, 4]]"),
              "error: ragged array at $[0][1]: found an array nested 3 deep, but $[0][0] is a "
              "scalar (rank 2)");
  CHECK_ERROR(from_text("[[], [1]]"),
              "error: ragged array at $[1]: array of length 1, expected 0 as at $[0]");
  CHECK_ERROR(from_text("[1, \"a\"]"), "error: expected a number at $[1], found the string \"a\"");
  CHECK_ERROR(from_text("[1, null]"), "error: expected a number at $[1], found null");
  CHECK_ERROR(from_text(std::string(65, '[') + std::string(65, ']')),
              "error: arrays nested 65 deep; the limit is rank 64");
  TempFile file(".json");
  write_file_bytes(file.path(), "[[1, 2],\n [3]]\n");
  CHECK_ERROR(
      read_json_tensor(file.path()),
      file.path() + ": error: ragged array at $[1]: array of length 1, expected 2 as at $[0]");
}

TEST_CASE("malformed json files report the line and column", "[unit]") {
  TempFile file(".json");
  write_file_bytes(file.path(), "[1, 2,\n 3,, 4]\n");
  try {
    read_json_tensor(file.path());
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(e.pos().file == file.path());
    CHECK(e.pos().line == 2);
    CHECK(e.pos().col == 4);
    CHECK(std::string(e.what()) ==
          file.path() +
              ":2:4: error: malformed JSON: syntax error while parsing value - "
              "unexpected ','; expected '[', '{', or a literal");
  }
  CHECK_ERROR(read_json_tensor(file.path() + ".missing"),
              file.path() + ".missing: error: cannot open file: No such file or directory");
}

TEST_CASE("json nested past the limit is an error at the bracket, not a stack overflow", "[unit]") {
  // An audit helper's manifest value nested 200,000 deep crashed `adlab check` (SIGSEGV in
  // nlohmann::json's recursive copy; decision 222). The depth is checked before parsing.
  TempFile file(".json");
  const int depth = 200000;
  write_file_bytes(file.path(), "\n" + std::string(depth, '[') + "1" + std::string(depth, ']'));
  try {
    read_json_tensor(file.path());
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(e.pos().line == 2);
    CHECK(e.pos().col == kMaxJsonNesting + 1);  // the first bracket past the limit
    CHECK_THAT(e.what(), Catch::Contains("JSON nested more than 256 deep"));
  }
  // brackets inside strings do not count; the limit itself is accepted
  CHECK(parse_json_text("[\"" + std::string(1000, '[') + "\"]", "s.json").size() == 1);
  CHECK(parse_json_text(std::string(kMaxJsonNesting, '[') + std::string(kMaxJsonNesting, ']'),
                        "s.json")
            .is_array());
}

TEST_CASE("json sparse objects round trip and convert storage", "[unit]") {
  TempFile file(".json");
  const Tensor csr = make_csr(3, 4, {0, 2, 2, 3}, {0, 3, 1}, {1.5, 0.0, -2});
  write_json_tensor(file.path(), csr);
  const json j = json::parse(read_file_bytes(file.path()));
  CHECK(j["format"] == "csr");
  CHECK(j["row_ptr"] == json::array({0, 2, 2, 3}));
  const Tensor back = read_json_tensor(file.path(), ElemType::F64, Storage::Csr);
  CHECK(back.row_ptr == csr.row_ptr);
  CHECK(back.col_idx == csr.col_idx);
  CHECK(back.values == csr.values);
  // Without a storage asked for, the file's own is kept, explicit zero (0, 3) included.
  const Tensor kept = read_json_tensor(file.path());
  CHECK(kept.storage == Storage::Csr);
  CHECK(kept.values == csr.values);
  const Tensor dense = read_json_tensor(file.path(), ElemType::F64, Storage::Dense);
  CHECK(dense.storage == Storage::Dense);
  CHECK(read_entry(dense, {2, 1}) == -2);

  const Tensor coo = make_coo({2, 2, 2}, {0, 1, 1, 1, 0, 0}, {3, 4});
  CHECK(tensor_to_json(coo)["coords"] == json::parse("[[0, 1, 1], [1, 0, 0]]"));
  const Tensor coo_back = tensor_from_json(tensor_to_json(coo), ElemType::F64, Storage::Coo);
  CHECK(coo_back.coords == coo.coords);
  CHECK(coo_back.values == coo.values);
  CHECK(from_text("[[0, 2], [0, 0]]", ElemType::F64, Storage::Coo).coords ==
        std::vector<std::int64_t>{0, 1});
}

TEST_CASE("json sparse objects are validated", "[unit]") {
  TempFile file(".json");
  write_file_bytes(
      file.path(),
      R"({"format": "coo", "shape": [3, 3], "coords": [[0, 1], [0, 1]], "values": [1, 2]})");
  CHECK_ERROR(read_json_tensor(file.path()),
              file.path() +
                  ": error: invalid tensor f64[3, 3] @coo: duplicate key (0, 1) at "
                  "entries 0 and 1");
  CHECK_ERROR(
      from_text(R"({"format": "csr", "shape": [2, 2], "row_ptr": [0, 1, 1], "values": [1]})"),
      "error: missing key \"col_idx\" in a csr tensor object");
  CHECK_ERROR(
      from_text(R"({"format": "coo", "shape": [2], "coords": [[0]], "values": [1], "x": 1})"),
      "error: unexpected key \"x\" in a coo tensor object");
  CHECK_ERROR(from_text(R"({"format": "bsr"})"),
              "error: a sparse tensor object needs \"format\": \"csr\" or \"coo\" at $.format, "
              "found the string \"bsr\"");
  CHECK_ERROR(from_text(R"({"format": "coo", "shape": [2, 2], "coords": [[0]], "values": [1]})"),
              "error: key at $.coords[0] has 1 components, expected rank 2");
  CHECK_ERROR(from_text(R"({"format": "coo", "shape": [2], "coords": [[0]], "values": [1]})",
                        ElemType::I64),
              "error: sparse tensors are floating; cannot read one as i64");
}

}  // namespace
}  // namespace adlab::ir
