// The dual number of reverse mode (paper 003): a value and the compound ID of its node, D[R] =
// (R, ID) (section 12, footnote 38); every primitive records its partials on the current job, so
// the type is used from C++ like ADOL-C's adouble and runs IR programs through Interpreter<Dual>.
#pragma once

#include <boost/math/special_functions/digamma.hpp>
#include <cmath>

#include "ad/dualrev/tape.h"

namespace adlab::ad::dualrev {

class Dual {
 public:
  constexpr Dual() = default;
  // A constant: no node, so contributions to it are dropped when they are recorded.
  constexpr Dual(double v) : v_(v) {}  // NOLINT(google-explicit-constructor): reads like double
  constexpr Dual(double v, NodeId id) : v_(v), id_(id) {}

  double value() const { return v_; }
  NodeId id() const { return id_; }
  bool is_constant() const { return id_.is_constant(); }
  // The value (ir::math::to_double's hook for non-builtin scalar types); drops the derivative.
  template <class U>
  U convert_to() const {
    return static_cast<U>(v_);
  }

  Dual& operator+=(const Dual& b);
  Dual& operator-=(const Dual& b);
  Dual& operator*=(const Dual& b);
  Dual& operator/=(const Dual& b);

 private:
  double v_ = 0;
  NodeId id_;
};

namespace detail {
[[noreturn]] void no_recording();

// paper 003 section 10.3: the op rule writes its Contrib [(d1 op, id1), ...] on the tape.
inline Dual unary(double v, const Dual& a, double da, int partial_ops = 0) {
  if (a.is_constant()) return Dual(v);
  Job* j = tl_job;
  if (!j) [[unlikely]]
    no_recording();
  j->partial_ops += partial_ops;
  return Dual(v, j->push(Node{{Edge{a.id(), da}, Edge{}}}));
}

inline Dual binary(double v, const Dual& a, double da, const Dual& b, double db,
                   int partial_ops = 0, int merge_ops = 0) {
  if (a.is_constant() && b.is_constant()) return Dual(v);
  Job* j = tl_job;
  if (!j) [[unlikely]]
    no_recording();
  if (a.id() == b.id() && j->factor_operands) {
    // Linear factoring at record time (paper 003 section 6): d(a) (p z) + d(a) (q z) = d(a) ((p +
    // q) z).
    j->partial_ops += partial_ops + merge_ops;
    return Dual(v, j->push(Node{{Edge{a.id(), da + db}, Edge{}}}));
  }
  j->partial_ops += partial_ops;
  return Dual(v, j->push(Node{{Edge{a.id(), da}, Edge{b.id(), db}}}));
}

// a + c and a - c for a constant c have a's backpropagator: the result shares a's node.
inline Dual shift(double v, const Dual& a) {
  return Dual(v, a.id());
}
}  // namespace detail

// ---- arithmetic: partials at cotangent 1 (paper 003 section 10.2) ----
// d(a + b) = (1, 1)
inline Dual operator+(const Dual& a, const Dual& b) {
  return detail::binary(a.value() + b.value(), a, 1, b, 1);
}
inline Dual operator+(const Dual& a, double c) {
  return detail::unary(a.value() + c, a, 1);
}
inline Dual operator+(double c, const Dual& b) {
  return detail::unary(c + b.value(), b, 1);
}
// d(a - b) = (1, -1)
inline Dual operator-(const Dual& a, const Dual& b) {
  return detail::binary(a.value() - b.value(), a, 1, b, -1);
}
inline Dual operator-(const Dual& a, double c) {
  return detail::unary(a.value() - c, a, 1);
}
inline Dual operator-(double c, const Dual& b) {
  return detail::unary(c - b.value(), b, -1);
}
// d(a * b) = (b, a)
inline Dual operator*(const Dual& a, const Dual& b) {
  return detail::binary(a.value() * b.value(), a, b.value(), b, a.value(), 0, 1);
}
inline Dual operator*(const Dual& a, double c) {
  return detail::unary(a.value() * c, a, c);
}
inline Dual operator*(double c, const Dual& b) {
  return detail::unary(c * b.value(), b, c);
}
// d(a / b) = (1 / b, -(a / b) / b)
inline Dual operator/(const Dual& a, const Dual& b) {
  const double q = a.value() / b.value(), r = 1 / b.value();
  return detail::binary(q, a, r, b, -q * r, 2, 1);
}
inline Dual operator/(const Dual& a, double c) {
  return detail::unary(a.value() / c, a, 1 / c, 1);
}
inline Dual operator/(double c, const Dual& b) {
  const double q = c / b.value();
  return detail::unary(q, b, -q / b.value(), 1);
}
// d(-a) = -1
inline Dual operator-(const Dual& a) {
  return detail::unary(-a.value(), a, -1);
}
inline Dual operator+(const Dual& a) {
  return a;
}

inline Dual& Dual::operator+=(const Dual& b) {
  return *this = *this + b;
}
inline Dual& Dual::operator-=(const Dual& b) {
  return *this = *this - b;
}
inline Dual& Dual::operator*=(const Dual& b) {
  return *this = *this * b;
}
inline Dual& Dual::operator/=(const Dual& b) {
  return *this = *this / b;
}

// ---- comparisons act on values (paper 003 section 11: D[sign t] = sign(fst D[t])) ----
inline bool operator==(const Dual& a, const Dual& b) {
  return a.value() == b.value();
}
inline bool operator!=(const Dual& a, const Dual& b) {
  return a.value() != b.value();
}
inline bool operator<(const Dual& a, const Dual& b) {
  return a.value() < b.value();
}
inline bool operator<=(const Dual& a, const Dual& b) {
  return a.value() <= b.value();
}
inline bool operator>(const Dual& a, const Dual& b) {
  return a.value() > b.value();
}
inline bool operator>=(const Dual& a, const Dual& b) {
  return a.value() >= b.value();
}

// ---- primitives (found by argument-dependent lookup, as ir::math calls them) ----
// d exp(x) = exp(x): the primal result is reused
inline Dual exp(const Dual& x) {
  const double e = std::exp(x.value());
  return detail::unary(e, x, e);
}
// d log(x) = 1 / x
inline Dual log(const Dual& x) {
  return detail::unary(std::log(x.value()), x, 1 / x.value(), 1);
}
// d log1p(x) = 1 / (1 + x)
inline Dual log1p(const Dual& x) {
  return detail::unary(std::log1p(x.value()), x, 1 / (1 + x.value()), 2);
}
// d expm1(x) = expm1(x) + 1
inline Dual expm1(const Dual& x) {
  const double e = std::expm1(x.value());
  return detail::unary(e, x, e + 1, 1);
}
// d sin(x) = cos(x)
inline Dual sin(const Dual& x) {
  return detail::unary(std::sin(x.value()), x, std::cos(x.value()), 1);
}
// d cos(x) = -sin(x)
inline Dual cos(const Dual& x) {
  return detail::unary(std::cos(x.value()), x, -std::sin(x.value()), 1);
}
// d tan(x) = 1 + tan(x)^2
inline Dual tan(const Dual& x) {
  const double t = std::tan(x.value());
  return detail::unary(t, x, 1 + t * t, 2);
}
// d tanh(x) = 1 - tanh(x)^2
inline Dual tanh(const Dual& x) {
  const double t = std::tanh(x.value());
  return detail::unary(t, x, 1 - t * t, 2);
}
// d sigmoid(x) = s (1 - s), with s = 1 / (1 + exp(-x)) computed as ir::math::sigmoid does
inline Dual sigmoid(const Dual& x) {
  const double s = 1 / (1 + std::exp(-x.value()));
  return detail::unary(s, x, s * (1 - s), 2);
}
// d sqrt(x) = 1 / (2 sqrt(x))
inline Dual sqrt(const Dual& x) {
  const double r = std::sqrt(x.value());
  return detail::unary(r, x, 0.5 / r, 1);
}
// d |x| = sign(x) (0 at the kink, which the checker flags)
inline Dual abs(const Dual& x) {
  const double v = x.value();
  return detail::unary(std::fabs(v), x, v > 0 ? 1.0 : (v < 0 ? -1.0 : 0.0));
}
inline Dual fabs(const Dual& x) {
  return abs(x);
}
// d lgamma(x) = digamma(x)
inline Dual lgamma(const Dual& x) {
  return detail::unary(std::lgamma(x.value()), x, boost::math::digamma(x.value()), 1);
}
// d pow(x, y) = (y x^(y-1), x^y log x); the second only when y is differentiated (log x needs
// x > 0; at x = 0 the limit 0 is used)
inline Dual pow(const Dual& x, const Dual& y) {
  const double p = std::pow(x.value(), y.value());
  const double dx = x.is_constant() ? 0.0 : y.value() * std::pow(x.value(), y.value() - 1);
  const double dy = y.is_constant() ? 0.0 : (x.value() == 0 ? 0.0 : p * std::log(x.value()));
  return detail::binary(p, x, dx, y, dy, 4, 1);
}
// floor and round are locally constant: no node (their derivative is 0 away from the jumps)
inline Dual floor(const Dual& x) {
  return Dual(std::floor(x.value()));
}
inline Dual round(const Dual& x) {
  return Dual(std::round(x.value()));
}
// min and max pass the chosen operand on, as the interpreter's `y < x ? y : x` does
inline Dual fmin(const Dual& x, const Dual& y) {
  return y < x ? y : x;
}
inline Dual fmax(const Dual& x, const Dual& y) {
  return x < y ? y : x;
}

// A new input: a leaf node on the job this thread records into (paper 003 Interleave).
inline Dual make_input(double v) {
  Job* j = tl_job;
  if (!j) detail::no_recording();
  return Dual(v, j->push_leaf());
}

}  // namespace adlab::ad::dualrev
