#include "ir/suite/constraints.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>

#include "ir/error.h"
#include "ir/syntax/printer.h"
#include "ir/tensor/tensor_ops.h"

namespace adlab::ir {

namespace {

// A value: one number, or every entry of a tensor (stored entries of a sparse one).
using Values = std::vector<double>;

class ConstraintParser {
 public:
  ConstraintParser(const std::string& text, const Function& f, const std::vector<Tensor>& inputs,
                   const SizeMap& sizes)
      : s_(text), f_(f), inputs_(inputs), sizes_(sizes) {}

  // Whether every entry satisfies the chain; `bad` names the first that does not.
  bool holds(std::string& bad) {
    skip();
    if (s_.compare(p_, 9, "no_kinks(") == 0) return true;  // the checker's kink margin applies
    Values lhs = sum_expr();
    bool any = false;
    while (true) {
      skip();
      std::string op = comparison();
      if (op.empty()) break;
      any = true;
      Values rhs = sum_expr();
      std::size_t n = lhs.empty() || rhs.empty() ? 0 : std::max(lhs.size(), rhs.size());
      if (lhs.size() != 1 && rhs.size() != 1 && lhs.size() != rhs.size())
        fail("operands with " + std::to_string(lhs.size()) + " and " + std::to_string(rhs.size()) +
             " entries");
      for (std::size_t k = 0; k < n; ++k) {
        double a = at(lhs, k), b = at(rhs, k);
        bool ok = op == "<"    ? a < b
                  : op == "<=" ? a <= b
                  : op == ">"  ? a > b
                  : op == ">=" ? a >= b
                  : op == "==" ? a == b
                               : a != b;
        if (!ok) {
          bad = "entry " + std::to_string(k) + ": " + number_str(a) + " " + op + " " +
                number_str(b) + " is false";
          return false;
        }
      }
      lhs = rhs;
    }
    skip();
    if (!any || p_ != s_.size()) fail("expected a comparison such as `x > 0.1`");
    return true;
  }

 private:
  [[noreturn]] void fail(const std::string& why) const {
    throw Error("constraint `" + s_ + "`: " + why + " (at column " + std::to_string(p_ + 1) + ")");
  }
  void skip() {
    while (p_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[p_]))) ++p_;
  }
  bool accept(char c) {
    skip();
    if (p_ < s_.size() && s_[p_] == c) {
      ++p_;
      return true;
    }
    return false;
  }
  std::string comparison() {
    for (const char* op : {"<=", ">=", "==", "!=", "<", ">"}) {
      std::size_t len = std::char_traits<char>::length(op);
      if (s_.compare(p_, len, op) == 0) {
        p_ += len;
        return op;
      }
    }
    return "";
  }
  static double at(const Values& v, std::size_t k) { return v.size() == 1 ? v[0] : v.at(k); }
  Values combine(const Values& a, const Values& b, char op) const {
    if (a.empty() || b.empty()) return {};  // an empty tensor: nothing to constrain
    if (a.size() != 1 && b.size() != 1 && a.size() != b.size())
      throw Error("constraint `" + s_ + "`: operands with " + std::to_string(a.size()) + " and " +
                  std::to_string(b.size()) + " entries");
    Values out(std::max(a.size(), b.size()));
    for (std::size_t k = 0; k < out.size(); ++k) {
      double x = at(a, k), y = at(b, k);
      out[k] = op == '+' ? x + y : op == '-' ? x - y : op == '*' ? x * y : x / y;
    }
    return out;
  }
  // One precedence level: operands from `next`, joined left to right by the operators in `ops`.
  template <class Next>
  Values level(const char* ops, Next next) {
    Values v = next();
    for (;;) {
      const char* op = ops;
      while (*op && !accept(*op)) ++op;
      if (!*op) return v;
      v = combine(v, next(), *op);
    }
  }
  Values sum_expr() {
    return level("+-", [this] { return term(); });
  }
  Values term() {
    return level("*/", [this] { return factor(); });
  }
  Values factor() {
    skip();
    if (accept('-')) return combine({0.0}, factor(), '-');
    if (accept('(')) {
      Values v = sum_expr();
      if (!accept(')')) fail("expected `)`");
      return v;
    }
    if (p_ < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[p_])) || s_[p_] == '.')) {
      char* end = nullptr;
      double v = std::strtod(s_.c_str() + p_, &end);
      p_ = static_cast<std::size_t>(end - s_.c_str());
      return {v};
    }
    std::size_t start = p_;
    while (p_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[p_])) || s_[p_] == '_'))
      ++p_;
    std::string name = s_.substr(start, p_ - start);
    if (name.empty()) fail("expected a number, a name or `(`");
    if (name == "abs" || name == "sum") {
      if (!accept('(')) fail("expected `(` after " + name);
      Values v = sum_expr();
      if (!accept(')')) fail("expected `)`");
      if (name == "abs") {
        for (double& x : v) x = std::fabs(x);
        return v;
      }
      double total = 0;
      for (double x : v) total += x;
      return {total};
    }
    if (int k = f_.param_index(name); k >= 0) {
      const Tensor& t = inputs_.at(static_cast<std::size_t>(k));
      if (is_float(t.elem)) return t.values.empty() ? Values{} : t.values;
      return Values(t.ints.begin(), t.ints.end());
    }
    if (auto it = sizes_.find(name); it != sizes_.end()) return {static_cast<double>(it->second)};
    fail("`" + name + "` is no parameter or size of `" + f_.name + "`");
  }

  std::string s_;
  std::size_t p_ = 0;
  const Function& f_;
  const std::vector<Tensor>& inputs_;
  const SizeMap& sizes_;
};

}  // namespace

void check_constraints(const Function& f, const SuiteEntry& e, const std::vector<Tensor>& inputs,
                       const SizeMap& sizes) {
  for (const auto& c : e.constraints) {
    std::string bad;
    try {
      if (ConstraintParser(c, f, inputs, sizes).holds(bad)) continue;
    } catch (const Error& err) {
      throw Error(e.id() + ": " + err.message());
    }
    throw Error(e.id() + ": the generated inputs break the constraint `" + c + "` (" + bad +
                "): the generator and the constraint disagree");
  }
}

}  // namespace adlab::ir
