// Matrix Market reader (coordinate -> CSR, array -> dense) and coordinate writer.
#include "ir/tensor/matrix_market.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <fstream>
#include <istream>
#include <ostream>
#include <string_view>
#include <vector>

#include "ir/error.h"
#include "ir/tensor/tensor_ops.h"

namespace adlab::ir {
namespace {

struct Token {
  std::string_view text;
  std::int32_t col;  // 1-based
};

struct Entry {
  std::int64_t row, col;
  double value;
};

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Reads lines and tokens, positioning every error at the file, line and column.
class MmReader {
 public:
  MmReader(std::istream& in, const std::string& name) : in_(in), name_(name) {}

  [[noreturn]] void fail(std::int32_t col, const std::string& what) const {
    throw Error(SourcePos{name_, line_no_, col}, what);
  }

  // The next line's tokens; false at end of file. Skips blank and comment lines if asked.
  bool next_line(std::vector<Token>& tokens, bool skip_comments) {
    while (std::getline(in_, line_)) {
      ++line_no_;
      if (!line_.empty() && line_.back() == '\r') line_.pop_back();
      tokens.clear();
      for (std::size_t i = 0; i < line_.size();) {
        if (line_[i] == ' ' || line_[i] == '\t') {
          ++i;
          continue;
        }
        std::size_t end = line_.find_first_of(" \t", i);
        if (end == std::string::npos) end = line_.size();
        tokens.push_back(
            {std::string_view(line_).substr(i, end - i), static_cast<std::int32_t>(i + 1)});
        i = end;
      }
      if (skip_comments && (tokens.empty() || tokens[0].text[0] == '%')) continue;
      return true;
    }
    if (in_.bad()) fail(0, "read error");
    return false;
  }

  std::int64_t integer(const Token& t, const char* what) const {
    std::int64_t v = 0;
    std::string_view s = t.text;
    if (!s.empty() && s[0] == '+') s.remove_prefix(1);
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size()) {
      fail(t.col,
           std::string("expected an integer ") + what + ", found '" + std::string(t.text) + "'");
    }
    return v;
  }

  double real(const Token& t, bool integral) const {
    if (integral) return static_cast<double>(integer(t, "value"));
    double v = 0;
    std::string_view s = t.text;
    if (!s.empty() && s[0] == '+') s.remove_prefix(1);
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size()) {
      fail(t.col, "expected a real value, found '" + std::string(t.text) + "'");
    }
    return v;
  }

  std::int32_t line_no() const { return line_no_; }

 private:
  std::istream& in_;
  const std::string& name_;
  std::string line_;
  std::int32_t line_no_ = 0;
};

struct Header {
  bool coordinate, pattern, integral;
  std::string symmetry;  // "general", "symmetric" or "skew-symmetric"
};

Header read_header(MmReader& r) {
  std::vector<Token> tok;
  const char* usage =
      "bad Matrix Market header: expected '%%MatrixMarket matrix coordinate|array "
      "real|integer|pattern general|symmetric|skew-symmetric'";
  if (!r.next_line(tok, false) || tok.empty() || lower(tok[0].text) != "%%matrixmarket") {
    r.fail(1, usage);
  }
  if (tok.size() != 5) r.fail(1, usage);
  if (lower(tok[1].text) != "matrix")
    r.fail(tok[1].col, std::string(usage) + ", found object '" + std::string(tok[1].text) + "'");
  Header h;
  const std::string format = lower(tok[2].text), field = lower(tok[3].text);
  h.symmetry = lower(tok[4].text);
  if (format != "coordinate" && format != "array")
    r.fail(tok[2].col, std::string(usage) + ", found format '" + std::string(tok[2].text) + "'");
  if (field == "complex") r.fail(tok[3].col, "complex Matrix Market files are not supported");
  if (field != "real" && field != "integer" && field != "pattern" && field != "double") {
    r.fail(tok[3].col, std::string(usage) + ", found field '" + std::string(tok[3].text) + "'");
  }
  if (h.symmetry != "general" && h.symmetry != "symmetric" && h.symmetry != "skew-symmetric") {
    r.fail(tok[4].col, std::string(usage) + ", found symmetry '" + std::string(tok[4].text) + "'");
  }
  h.coordinate = format == "coordinate";
  h.pattern = field == "pattern";
  h.integral = field == "integer";
  if (h.pattern && (!h.coordinate || h.symmetry == "skew-symmetric")) {
    r.fail(tok[3].col, "a pattern Matrix Market file must be coordinate, general or symmetric");
  }
  return h;
}

Tensor read_coordinate(MmReader& r, const Header& h, std::int64_t rows, std::int64_t cols,
                       std::int64_t nnz) {
  const bool mirror = h.symmetry != "general";
  const bool skew = h.symmetry == "skew-symmetric";
  std::vector<Entry> entries;
  entries.reserve(static_cast<std::size_t>(std::min<std::int64_t>(nnz, 1 << 24)) *
                  (mirror ? 2 : 1));
  std::vector<Token> tok;
  const std::size_t want_tokens = h.pattern ? 2 : 3;
  for (std::int64_t k = 0; k < nnz; ++k) {
    if (!r.next_line(tok, true)) {
      r.fail(1, "file ends after " + std::to_string(k) + " of " + std::to_string(nnz) + " entries");
    }
    if (tok.size() != want_tokens) {
      r.fail(tok[0].col, "expected " + std::to_string(want_tokens) + " fields (" +
                             (h.pattern ? "row column" : "row column value") + "), found " +
                             std::to_string(tok.size()));
    }
    Entry e{r.integer(tok[0], "row") - 1, r.integer(tok[1], "column") - 1, 1.0};
    if (e.row < 0 || e.row >= rows)
      r.fail(tok[0].col,
             "row " + std::to_string(e.row + 1) + " out of range 1.." + std::to_string(rows));
    if (e.col < 0 || e.col >= cols)
      r.fail(tok[1].col,
             "column " + std::to_string(e.col + 1) + " out of range 1.." + std::to_string(cols));
    if (!h.pattern) e.value = r.real(tok[2], h.integral);
    if (mirror && (e.row < e.col || (skew && e.row == e.col))) {
      r.fail(tok[0].col, "entry (" + std::to_string(e.row + 1) + ", " + std::to_string(e.col + 1) +
                             ") is " + (e.row == e.col ? "on" : "above") + " the diagonal; a " +
                             h.symmetry + " file lists the " + (skew ? "strictly " : "") +
                             "lower triangle only");
    }
    entries.push_back(e);
    if (mirror && e.row != e.col) entries.push_back({e.col, e.row, skew ? -e.value : e.value});
  }
  if (r.next_line(tok, true)) {
    r.fail(tok[0].col, "more entries than the " + std::to_string(nnz) + " the size line declares");
  }
  // Row-major order; stable so duplicates are summed in file order.
  std::stable_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return a.row != b.row ? a.row < b.row : a.col < b.col;
  });
  Tensor t;
  t.storage = Storage::Csr;
  t.shape = {rows, cols};
  t.row_ptr.assign(static_cast<std::size_t>(rows) + 1, 0);
  for (std::size_t k = 0; k < entries.size(); ++k) {
    const Entry& e = entries[k];
    if (k > 0 && e.row == entries[k - 1].row && e.col == entries[k - 1].col) {
      t.values.back() += e.value;
      continue;
    }
    t.col_idx.push_back(e.col);
    t.values.push_back(e.value);
    ++t.row_ptr[static_cast<std::size_t>(e.row) + 1];
  }
  for (std::size_t k = 1; k < t.row_ptr.size(); ++k) t.row_ptr[k] += t.row_ptr[k - 1];
  return t;
}

Tensor read_array(MmReader& r, const Header& h, std::int64_t rows, std::int64_t cols) {
  Tensor t;
  t.shape = {rows, cols};
  t.values.assign(static_cast<std::size_t>(checked_numel(t.shape)), 0.0);
  const bool mirror = h.symmetry != "general", skew = h.symmetry == "skew-symmetric";
  std::vector<Token> tok;
  std::int64_t count = 0;
  for (std::int64_t j = 0; j < cols; ++j) {
    for (std::int64_t i = mirror ? j + (skew ? 1 : 0) : 0; i < rows; ++i, ++count) {
      if (!r.next_line(tok, true)) {
        r.fail(1, "file ends after " + std::to_string(count) + " array values");
      }
      if (tok.size() != 1)
        r.fail(tok[1].col, "expected one value per line, found " + std::to_string(tok.size()));
      const double v = r.real(tok[0], h.integral);
      t.values[static_cast<std::size_t>(i * cols + j)] = v;
      if (mirror && i != j) t.values[static_cast<std::size_t>(j * cols + i)] = skew ? -v : v;
    }
  }
  if (r.next_line(tok, true)) r.fail(tok[0].col, "more values than the array's size line declares");
  return t;
}

}  // namespace

Tensor parse_matrix_market(std::istream& in, const std::string& name) {
  MmReader r(in, name);
  const Header h = read_header(r);
  std::vector<Token> tok;
  if (!r.next_line(tok, true)) r.fail(1, "missing size line");
  const std::size_t want = h.coordinate ? 3 : 2;
  if (tok.size() != want) {
    r.fail(tok[0].col, std::string("expected the size line '") +
                           (h.coordinate ? "rows columns entries" : "rows columns") + "', found " +
                           std::to_string(tok.size()) + " fields");
  }
  const std::int64_t rows = r.integer(tok[0], "row count"),
                     cols = r.integer(tok[1], "column count");
  const std::int64_t nnz = h.coordinate ? r.integer(tok[2], "entry count") : 0;
  if (rows < 0 || cols < 0 || nnz < 0) r.fail(tok[0].col, "negative size");
  if (h.symmetry != "general" && rows != cols)
    r.fail(tok[0].col, "a " + h.symmetry + " matrix must be square, found " + std::to_string(rows) +
                           " x " + std::to_string(cols));
  if (h.coordinate) {
    Tensor t = read_coordinate(r, h, rows, cols, nnz);
    validate(t);
    return t;
  }
  return read_array(r, h, rows, cols);
}

Tensor read_matrix_market(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error(SourcePos{path}, "cannot open file");
  return parse_matrix_market(in, path);
}

void write_matrix_market(std::ostream& out, const Tensor& t) {
  validate(t);
  if (t.storage == Storage::Dense || t.rank() != 2) {
    throw Error("write_matrix_market needs a rank-2 csr or coo tensor, got " +
                type_str(t.elem, t.storage, t.shape));
  }
  const Tensor coo = to_coo(t);
  out << "%%MatrixMarket matrix coordinate real general\n";
  out << t.shape[0] << ' ' << t.shape[1] << ' ' << coo.values.size() << '\n';
  char buf[64];
  for (std::size_t k = 0; k < coo.values.size(); ++k) {
    auto res = std::to_chars(buf, buf + sizeof buf, coo.values[k]);  // shortest round trip
    out << coo.coords[2 * k] + 1 << ' ' << coo.coords[2 * k + 1] + 1 << ' '
        << std::string_view(buf, static_cast<std::size_t>(res.ptr - buf)) << '\n';
  }
}

void write_matrix_market(const std::string& path, const Tensor& t) {
  std::ofstream out(path, std::ios::trunc);
  if (!out) throw Error(SourcePos{path}, "cannot open file for writing");
  write_matrix_market(out, t);
  out.close();
  if (!out) throw Error(SourcePos{path}, "write error");
}

}  // namespace adlab::ir
