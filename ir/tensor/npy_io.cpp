// NumPy .npy reader and writer (format spec: numpy.lib.format, versions 1.0-3.0).
#include "ir/tensor/npy_io.h"

#include <bit>
#include <cctype>
#include <cstdint>
#include <optional>

#include "ir/error.h"
#include "ir/tensor/file_bytes.h"
#include "ir/tensor/tensor_ops.h"

namespace adlab::ir {
namespace {

constexpr std::string_view kMagic = "\x93NUMPY";

struct Header {
  std::string descr;
  bool fortran_order = false;
  std::vector<std::int64_t> shape;
};

// Parses the header, a Python dict literal: {'descr': '<f8', 'fortran_order': False,
// 'shape': (3, 4), }.
class HeaderParser {
 public:
  HeaderParser(std::string_view text, const std::string& name) : s_(text), name_(name) {}

  Header parse() {
    Header h;
    bool seen_descr = false, seen_order = false, seen_shape = false;
    expect('{');
    while (skip_ws() != '}') {
      const std::string key = string_literal();
      expect(':');
      if (key == "descr") {
        h.descr = string_literal();
        seen_descr = true;
      } else if (key == "fortran_order") {
        h.fortran_order = boolean();
        seen_order = true;
      } else if (key == "shape") {
        h.shape = tuple();
        seen_shape = true;
      } else {
        fail("unexpected key '" + key + "'");
      }
      if (skip_ws() == ',') ++i_;
    }
    if (!seen_descr || !seen_order || !seen_shape) {
      fail("header needs the keys 'descr', 'fortran_order' and 'shape'");
    }
    return h;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    std::string_view shown = s_.substr(0, s_.find_last_not_of(" \n") + 1);
    throw Error(SourcePos{name_}, "malformed .npy header: " + what + " in " + std::string(shown));
  }
  char skip_ws() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
    if (i_ == s_.size()) fail("unexpected end");
    return s_[i_];
  }
  void expect(char c) {
    if (skip_ws() != c) fail(std::string("expected '") + c + "' at offset " + std::to_string(i_));
    ++i_;
  }
  std::string string_literal() {
    const char quote = skip_ws();
    if (quote != '\'' && quote != '"') fail("expected a string at offset " + std::to_string(i_));
    const std::size_t end = s_.find(quote, i_ + 1);
    if (end == std::string_view::npos) fail("unterminated string");
    std::string out(s_.substr(i_ + 1, end - i_ - 1));
    i_ = end + 1;
    return out;
  }
  bool boolean() {
    skip_ws();
    for (bool v : {true, false}) {
      std::string_view word = v ? "True" : "False";
      if (s_.substr(i_, word.size()) == word) {
        i_ += word.size();
        return v;
      }
    }
    fail("expected True or False at offset " + std::to_string(i_));
  }
  std::vector<std::int64_t> tuple() {
    std::vector<std::int64_t> out;
    expect('(');
    while (skip_ws() != ')') {
      if (!std::isdigit(static_cast<unsigned char>(s_[i_]))) {
        fail("expected a dimension at offset " + std::to_string(i_));
      }
      std::int64_t d = 0;
      while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) {
        if (__builtin_mul_overflow(d, 10, &d) || __builtin_add_overflow(d, s_[i_++] - '0', &d)) {
          fail("dimension too large");
        }
      }
      if (i_ < s_.size() && s_[i_] == 'L') ++i_;  // Python 2 long suffix
      out.push_back(d);
      if (skip_ws() == ',') {
        ++i_;
      } else if (s_[i_] != ')') {
        fail("expected ',' or ')' at offset " + std::to_string(i_));
      }
    }
    ++i_;
    return out;
  }

  std::string_view s_;
  const std::string& name_;
  std::size_t i_ = 0;
};

template <class U>
U load_le(const char* p) {
  U v = 0;
  for (std::size_t k = 0; k < sizeof(U); ++k) {
    v |= static_cast<U>(static_cast<unsigned char>(p[k])) << (8 * k);
  }
  return v;
}

template <class U>
void store_le(std::string& out, U v) {
  for (std::size_t k = 0; k < sizeof(U); ++k)
    out.push_back(static_cast<char>((v >> (8 * k)) & 0xff));
}

struct Dtype {
  std::string_view descr;
  ElemType elem;
  std::size_t size;
};
constexpr Dtype kDtypes[] = {{"<f8", ElemType::F64, 8},
                             {"<f4", ElemType::F32, 4},
                             {"<i8", ElemType::I64, 8},
                             {"<i4", ElemType::I64, 4},
                             {"|b1", ElemType::Bool, 1}};

}  // namespace

Tensor decode_npy(std::string_view bytes, const std::string& name) {
  auto fail = [&](const std::string& what) -> Error { return Error(SourcePos{name}, what); };
  if (bytes.size() < 10 || bytes.substr(0, 6) != kMagic) throw fail("not a .npy file (bad magic)");
  const int version_major = static_cast<unsigned char>(bytes[6]);
  const int minor_version = static_cast<unsigned char>(bytes[7]);
  if ((version_major < 1 || version_major > 3) || minor_version != 0) {
    throw fail("unsupported .npy format version " + std::to_string(version_major) + "." +
               std::to_string(minor_version));
  }
  const std::size_t prefix = version_major == 1 ? 10 : 12;
  if (bytes.size() < prefix) throw fail("truncated .npy header");
  const std::size_t header_len = version_major == 1 ? load_le<std::uint16_t>(bytes.data() + 8)
                                                    : load_le<std::uint32_t>(bytes.data() + 8);
  if (bytes.size() - prefix < header_len) {
    throw fail("truncated .npy header: it declares " + std::to_string(header_len) +
               " bytes, the file has " + std::to_string(bytes.size() - prefix));
  }
  const Header h = HeaderParser(bytes.substr(prefix, header_len), name).parse();
  if (h.fortran_order)
    throw fail(".npy arrays in Fortran order are not supported (save in C order)");
  const Dtype* dtype = nullptr;
  for (const Dtype& d : kDtypes) {
    if (d.descr == h.descr) dtype = &d;
  }
  if (!dtype) {
    if (!h.descr.empty() && h.descr[0] == '>') {
      throw fail("big-endian .npy dtype '" + h.descr + "' is not supported");
    }
    throw fail("unsupported .npy dtype '" + h.descr + "' (supported: <f8, <f4, <i8, <i4, |b1)");
  }
  Tensor t;
  t.elem = dtype->elem;
  t.shape = h.shape;
  std::int64_t numel;
  try {
    numel = checked_numel(t.shape);
  } catch (const Error& e) {
    throw fail(e.message());
  }
  const std::size_t available = bytes.size() - prefix - header_len;
  std::size_t needed;
  if (__builtin_mul_overflow(static_cast<std::size_t>(numel), dtype->size, &needed) ||
      needed > available) {
    throw fail("truncated .npy data: shape " + shape_str(t.shape) + " of '" + h.descr + "' needs " +
               std::to_string(numel) + " x " + std::to_string(dtype->size) +
               " bytes, the file has " + std::to_string(available));
  }
  const char* p = bytes.data() + prefix + header_len;
  const auto n = static_cast<std::size_t>(numel);
  if (dtype->elem == ElemType::F64 || dtype->elem == ElemType::F32) {
    t.values.resize(n);
    for (std::size_t k = 0; k < n; ++k) {
      t.values[k] = dtype->size == 8 ? std::bit_cast<double>(load_le<std::uint64_t>(p + 8 * k))
                                     : std::bit_cast<float>(load_le<std::uint32_t>(p + 4 * k));
    }
  } else {
    t.ints.resize(n);
    for (std::size_t k = 0; k < n; ++k) {
      if (dtype->size == 8) {
        t.ints[k] = static_cast<std::int64_t>(load_le<std::uint64_t>(p + 8 * k));
      } else if (dtype->size == 4) {
        t.ints[k] = static_cast<std::int32_t>(load_le<std::uint32_t>(p + 4 * k));
      } else {
        t.ints[k] = p[k] != 0 ? 1 : 0;
      }
    }
  }
  return t;
}

Tensor read_npy(const std::string& path) {
  return decode_npy(read_file_bytes(path), path);
}

std::string encode_npy(const Tensor& t) {
  validate(t);
  if (t.storage != Storage::Dense) {
    throw Error("write_npy needs a dense tensor, got " + type_str(t.elem, t.storage, t.shape) +
                " (convert with to_dense)");
  }
  const Dtype& dtype = t.elem == ElemType::F64   ? kDtypes[0]
                       : t.elem == ElemType::F32 ? kDtypes[1]
                       : t.elem == ElemType::I64 ? kDtypes[2]
                                                 : kDtypes[4];
  std::string header =
      "{'descr': '" + std::string(dtype.descr) + "', 'fortran_order': False, 'shape': (";
  for (std::size_t d = 0; d < t.shape.size(); ++d) {
    header += (d ? ", " : "") + std::to_string(t.shape[d]);
  }
  header += t.shape.size() == 1 ? ",), }" : "), }";
  // Pad with spaces and a final newline so that the data starts at a multiple of 64 bytes.
  auto padding = [&](std::size_t prefix) { return (64 - (prefix + header.size() + 1) % 64) % 64; };
  const bool v1 = header.size() + padding(10) + 1 <= 65535;
  header.append(padding(v1 ? 10 : 12), ' ');
  header += '\n';
  std::string out(kMagic);
  out += static_cast<char>(v1 ? 1 : 2);
  out += '\0';
  if (v1) {
    store_le<std::uint16_t>(out, static_cast<std::uint16_t>(header.size()));
  } else {
    store_le<std::uint32_t>(out, static_cast<std::uint32_t>(header.size()));
  }
  out += header;
  out.reserve(out.size() + static_cast<std::size_t>(t.numel()) * dtype.size);
  for (double v : t.values) {
    if (dtype.size == 8) {
      store_le(out, std::bit_cast<std::uint64_t>(v));
    } else {
      store_le(out, std::bit_cast<std::uint32_t>(static_cast<float>(v)));
    }
  }
  for (std::int64_t v : t.ints) {
    if (dtype.size == 8) {
      store_le(out, static_cast<std::uint64_t>(v));
    } else {
      out += static_cast<char>(v != 0 ? 1 : 0);
    }
  }
  return out;
}

void write_npy(const std::string& path, const Tensor& t) {
  write_file_bytes(path, encode_npy(t));
}

}  // namespace adlab::ir
