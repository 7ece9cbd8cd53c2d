// Tensors as JSON: dense nested arrays and sparse {"format": ...} objects (DESIGN 2.1).
#include "ir/tensor/json_io.h"

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <string_view>
#include <utility>
#include "ir/tensor/json_file.h"

#include "ir/error.h"
#include "ir/tensor/file_bytes.h"
#include "ir/tensor/json_file.h"
#include "ir/tensor/tensor_ops.h"

namespace adlab::ir {
namespace {

using nlohmann::json;

constexpr std::size_t kMaxRank = 64;  // bounds the recursion of a dense read

std::string found(const json& j) {
  if (j.is_array()) return "an array";
  if (j.is_object()) return "an object";
  if (j.is_string()) return "the string " + j.dump();
  if (j.is_null()) return "null";
  return std::string(j.is_boolean() ? "boolean " : "number ") + j.dump();
}

// A JSON path such as `$.values[3]` or `$[1][0]`, spelled out only when an error needs it.
struct JsonPath {
  std::string_view base;
  std::vector<std::size_t> idx;
  std::string str() const {
    std::string s(base);
    for (std::size_t k : idx) s.append("[").append(std::to_string(k)).append("]");
    return s;
  }
};

// Converts JSON values to tensor entries, naming the source and JSON path in errors.
class Reader {
 public:
  Reader(ElemType want, const std::string& source) : want_(want), source_(source) {}

  [[noreturn]] void fail(const std::string& msg) const { throw Error(SourcePos{source_}, msg); }

  double read_float(const json& j, const JsonPath& path) const {
    double v;
    if (j.is_number()) {
      v = j.get<double>();
    } else if (j.is_string() && j == "NaN") {
      v = std::numeric_limits<double>::quiet_NaN();
    } else if (j.is_string() && (j == "Infinity" || j == "-Infinity")) {
      v = j == "Infinity" ? HUGE_VAL : -HUGE_VAL;
    } else {
      fail("expected a number at " + path.str() + ", found " + found(j));
    }
    if (want_ != ElemType::F32) return v;
    if (beyond_f32(v)) fail("the number at " + path.str() + " is outside the range of f32");
    return f32_value(v);
  }

  std::int64_t read_int(const json& j, const JsonPath& path) const {
    if (j.is_number_integer() && !j.is_number_unsigned()) return j.get<std::int64_t>();
    if (j.is_number_unsigned()) {
      if (j.get<std::uint64_t>() <= static_cast<std::uint64_t>(INT64_MAX)) {
        return j.get<std::int64_t>();
      }
    } else if (j.is_number_float()) {
      // exact only up to 2^53 in float syntax (`9007199254740993.0` reads as 2^53), as .npy
      double v = j.get<double>();
      if (v == std::floor(v) && std::fabs(v) <= 0x1p53) return static_cast<std::int64_t>(v);
    }
    fail("expected an integer (i64) at " + path.str() + ", found " + found(j));
  }

  std::int64_t read_bool(const json& j, const JsonPath& path) const {
    if (j.is_boolean()) return j.get<bool>() ? 1 : 0;
    if (j.is_number_integer() && (j == 0 || j == 1)) return j.get<std::int64_t>();
    fail("expected a bool (true, false, 0 or 1) at " + path.str() + ", found " + found(j));
  }

  std::vector<std::int64_t> read_int_array(const json& j, JsonPath path) const {
    if (!j.is_array()) {
      fail("expected an array of integers at " + path.str() + ", found " + found(j));
    }
    std::vector<std::int64_t> out;
    out.reserve(j.size());
    path.idx.push_back(0);
    for (std::size_t k = 0; k < j.size(); ++k) {
      path.idx.back() = k;
      out.push_back(read_int(j[k], path));
    }
    return out;
  }

  Tensor read_dense(const json& j) const {
    Tensor t;
    t.elem = want_;
    for (const json* p = &j; p->is_array(); p = &(*p)[0]) {
      t.shape.push_back(static_cast<std::int64_t>(p->size()));
      if (p->empty()) break;
    }
    if (t.shape.size() > kMaxRank) {
      fail("arrays nested " + std::to_string(t.shape.size()) + " deep; the limit is rank " +
           std::to_string(kMaxRank));
    }
    JsonPath path{"$", {}};
    walk(j, 0, path, t);
    return t;
  }

  Tensor read_sparse(const json& j) const {
    const json* format = j.contains("format") ? &j["format"] : nullptr;
    if (!format || (*format != "csr" && *format != "coo")) {
      fail("a sparse tensor object needs \"format\": \"csr\" or \"coo\" at $.format" +
           (format ? ", found " + found(*format) : std::string()));
    }
    const bool csr = *format == "csr";
    if (!is_float(want_)) {
      fail(std::string("sparse tensors are floating; cannot read one as ") + elem_name(want_));
    }
    const std::set<std::string> keys =
        csr ? std::set<std::string>{"format", "shape", "row_ptr", "col_idx", "values"}
            : std::set<std::string>{"format", "shape", "coords", "values"};
    for (const auto& [key, value] : j.items()) {
      if (!keys.count(key))
        fail("unexpected key \"" + key + "\" in a " + format->get<std::string>() +
             " tensor object");
    }
    for (const std::string& key : keys) {
      if (!j.contains(key))
        fail("missing key \"" + key + "\" in a " + format->get<std::string>() + " tensor object");
    }
    Tensor t;
    t.elem = want_;
    t.storage = csr ? Storage::Csr : Storage::Coo;
    t.shape = read_int_array(j["shape"], {"$.shape", {}});
    const json& values = j["values"];
    if (!values.is_array()) fail("expected an array at $.values, found " + found(values));
    for (std::size_t k = 0; k < values.size(); ++k) {
      t.values.push_back(read_float(values[k], {"$.values", {k}}));
    }
    if (csr) {
      t.row_ptr = read_int_array(j["row_ptr"], {"$.row_ptr", {}});
      t.col_idx = read_int_array(j["col_idx"], {"$.col_idx", {}});
      return t;
    }
    const json& coords = j["coords"];
    if (!coords.is_array()) fail("expected an array of keys at $.coords, found " + found(coords));
    for (std::size_t k = 0; k < coords.size(); ++k) {
      const JsonPath path{"$.coords", {k}};
      auto key = read_int_array(coords[k], path);
      if (key.size() != t.shape.size()) {
        fail("key at " + path.str() + " has " + std::to_string(key.size()) +
             " components, expected rank " + std::to_string(t.shape.size()));
      }
      t.coords.insert(t.coords.end(), key.begin(), key.end());
    }
    return t;
  }

 private:
  // The path of the first element at a depth, e.g. "$[0][0]": the reference for raggedness.
  static std::string first_path(std::size_t depth) {
    std::string s = "$";
    for (std::size_t d = 0; d < depth; ++d) s += "[0]";
    return s;
  }

  void walk(const json& node, std::size_t depth, JsonPath& path, Tensor& t) const {
    const std::size_t rank = t.shape.size();
    if (depth == rank) {
      if (node.is_array()) {
        fail("ragged array at " + path.str() + ": found an array nested " +
             std::to_string(depth + 1) + " deep, but " + first_path(depth) + " is a scalar (rank " +
             std::to_string(rank) + ")");
      }
      if (is_float(want_)) {
        t.values.push_back(read_float(node, path));
      } else {
        t.ints.push_back(want_ == ElemType::Bool ? read_bool(node, path) : read_int(node, path));
      }
      return;
    }
    const auto len = static_cast<std::size_t>(t.shape[depth]);
    if (!node.is_array()) {
      fail("ragged array at " + path.str() + ": found " + found(node) +
           " where an array of length " + std::to_string(len) + " was expected, as at " +
           first_path(depth) + " (rank " + std::to_string(rank) + ")");
    }
    if (node.size() != len) {
      fail("ragged array at " + path.str() + ": array of length " + std::to_string(node.size()) +
           ", expected " + std::to_string(len) + " as at " + first_path(depth));
    }
    path.idx.push_back(0);
    for (std::size_t k = 0; k < len; ++k) {
      path.idx.back() = k;
      walk(node[k], depth + 1, path, t);
    }
    path.idx.pop_back();
  }

  ElemType want_;
  const std::string& source_;
};

json float_to_json(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  return v;
}

json dense_to_json(const Tensor& t, std::size_t depth, std::size_t& next) {
  if (depth == t.shape.size()) {
    const std::size_t k = next++;
    if (is_float(t.elem)) return float_to_json(t.values[k]);
    if (t.elem == ElemType::Bool) return t.ints[k] != 0;
    return t.ints[k];
  }
  json a = json::array();
  for (std::int64_t k = 0; k < t.shape[depth]; ++k) a.push_back(dense_to_json(t, depth + 1, next));
  return a;
}

}  // namespace

Tensor tensor_from_json(const json& j, ElemType want, std::optional<Storage> want_storage,
                        const std::string& source) {
  Reader reader(want, source);
  try {
    Tensor t = j.is_object() ? reader.read_sparse(j) : reader.read_dense(j);
    validate(t);
    return want_storage ? to_storage(t, *want_storage) : t;
  } catch (const Error& e) {
    if (e.pos().file.empty() && !source.empty()) throw Error(SourcePos{source}, e.message());
    throw;
  }
}

json tensor_to_json(const Tensor& t) {
  validate(t);
  if (t.storage == Storage::Dense) {
    std::size_t next = 0;
    return dense_to_json(t, 0, next);
  }
  json values = json::array();
  for (double v : t.values) values.push_back(float_to_json(v));
  json j = {{"format", storage_name(t.storage)}, {"shape", t.shape}, {"values", values}};
  if (t.storage == Storage::Csr) {
    j["row_ptr"] = t.row_ptr;
    j["col_idx"] = t.col_idx;
    return j;
  }
  json coords = json::array();
  const std::size_t rank = t.shape.size();
  for (std::size_t k = 0; k < t.values.size(); ++k) {
    coords.push_back(
        std::vector<std::int64_t>(t.coords.begin() + k * rank, t.coords.begin() + (k + 1) * rank));
  }
  j["coords"] = std::move(coords);
  return j;
}

Tensor read_json_tensor(const std::string& path, ElemType want,
                        std::optional<Storage> want_storage) {
  return tensor_from_json(read_json_file(path), want, want_storage, path);
}

void write_json_tensor(const std::string& path, const Tensor& t) {
  write_file_bytes(path, tensor_to_json(t).dump() + "\n");
}

}  // namespace adlab::ir
