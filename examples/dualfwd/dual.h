// A forward-mode dual number: a value and one tangent (docs/adding-a-strategy.md, step 1). The
// reference interpreter runs on any scalar type with arithmetic, comparisons and the primitives
// below, so running a program on Duals seeded with a direction gives f(x) and J(x) v.
#pragma once

#include <cmath>

#include "ir/interp/scalar.h"

namespace adlab::examples::dualfwd {

class Dual {
 public:
  Dual() = default;
  Dual(double v) : v_(v) {}  // NOLINT(google-explicit-constructor): a constant, as double reads
  Dual(double v, double d) : v_(v), d_(d) {}

  double value() const { return v_; }
  double tangent() const { return d_; }
  // ir::math::to_double's hook: the value, without the tangent
  template <class U>
  U convert_to() const {
    return static_cast<U>(v_);
  }

  // op(a) with partial `da`: its tangent is da * D[a]. A tangent of exactly 0 stays 0 where the
  // partial is infinite or NaN (sqrt at 0, pow's at a base of 0 or below 0): nothing varies
  // there, and 0 * inf = NaN would FAIL `primitives/sqrt_of_relu` (decision 247's strong zero).
  static double term(double tangent, double partial) {
    return tangent == 0 ? 0 : tangent * partial;
  }
  static Dual chain(double v, const Dual& a, double da) { return {v, term(a.d_, da)}; }
  static Dual chain2(double v, const Dual& a, double da, const Dual& b, double db) {
    return {v, term(a.d_, da) + term(b.d_, db)};
  }

  friend Dual operator+(const Dual& a, const Dual& b) { return {a.v_ + b.v_, a.d_ + b.d_}; }
  friend Dual operator-(const Dual& a, const Dual& b) { return {a.v_ - b.v_, a.d_ - b.d_}; }
  friend Dual operator*(const Dual& a, const Dual& b) {
    return chain2(a.v_ * b.v_, a, b.v_, b, a.v_);
  }
  friend Dual operator/(const Dual& a, const Dual& b) {
    const double q = a.v_ / b.v_;
    return chain2(q, a, 1 / b.v_, b, -q / b.v_);
  }
  friend Dual operator-(const Dual& a) { return {-a.v_, -a.d_}; }
  friend Dual operator+(const Dual& a) { return a; }
  Dual& operator+=(const Dual& b) { return *this = *this + b; }
  Dual& operator-=(const Dual& b) { return *this = *this - b; }
  Dual& operator*=(const Dual& b) { return *this = *this * b; }
  Dual& operator/=(const Dual& b) { return *this = *this / b; }

  // Comparisons see values only: a derivative never changes which branch a program takes.
  friend bool operator==(const Dual& a, const Dual& b) { return a.v_ == b.v_; }
  friend bool operator!=(const Dual& a, const Dual& b) { return a.v_ != b.v_; }
  friend bool operator<(const Dual& a, const Dual& b) { return a.v_ < b.v_; }
  friend bool operator<=(const Dual& a, const Dual& b) { return a.v_ <= b.v_; }
  friend bool operator>(const Dual& a, const Dual& b) { return a.v_ > b.v_; }
  friend bool operator>=(const Dual& a, const Dual& b) { return a.v_ >= b.v_; }

 private:
  double v_ = 0;
  double d_ = 0;
};

// The primitives, found by argument-dependent lookup from ir::math (docs/ir.md lists them).
inline Dual exp(const Dual& x) {
  const double e = std::exp(x.value());
  return Dual::chain(e, x, e);
}
inline Dual log(const Dual& x) {
  return Dual::chain(std::log(x.value()), x, 1 / x.value());
}
inline Dual log1p(const Dual& x) {
  return Dual::chain(std::log1p(x.value()), x, 1 / (1 + x.value()));
}
inline Dual expm1(const Dual& x) {  // exp(x), not expm1(x) + 1, which cancels below x = -37
  return Dual::chain(std::expm1(x.value()), x, std::exp(x.value()));
}
inline Dual sin(const Dual& x) {
  return Dual::chain(std::sin(x.value()), x, std::cos(x.value()));
}
inline Dual cos(const Dual& x) {
  return Dual::chain(std::cos(x.value()), x, -std::sin(x.value()));
}
inline Dual tan(const Dual& x) {
  const double t = std::tan(x.value());
  return Dual::chain(t, x, 1 + t * t);
}
// tanh' and sigmoid' by ir::math's formulas, which neither saturate nor cancel (decisions 221, 223)
inline Dual tanh(const Dual& x) {
  const double t = std::tanh(x.value());
  return Dual::chain(t, x, ir::math::tanh_derivative(x.value(), t));
}
inline Dual sigmoid(const Dual& x) {
  const double s = ir::math::sigmoid(x.value());
  return Dual::chain(s, x, ir::math::sigmoid_derivative(x.value(), s));
}
inline Dual sqrt(const Dual& x) {
  const double r = std::sqrt(x.value());
  return Dual::chain(r, x, 0.5 / r);
}
inline Dual abs(const Dual& x) {  // sign(x); 0 at the kink, where the checker reports AT-KINK
  const double v = x.value();
  return Dual::chain(std::fabs(v), x, v > 0 ? 1.0 : (v < 0 ? -1.0 : 0.0));
}
inline Dual lgamma(const Dual& x) {
  return Dual::chain(std::lgamma(x.value()), x, ir::math::digamma(x.value()));
}
// d pow(x, y) = y x^(y - 1) dx + x^y log(x) dy; x^0 is constant in x (0 * 0^-1 would be NaN)
inline Dual pow(const Dual& x, const Dual& y) {
  const double p = std::pow(x.value(), y.value());
  const double dx = y.value() == 0 ? 0.0 : y.value() * std::pow(x.value(), y.value() - 1);
  const double dy = x.value() == 0 ? 0.0 : p * std::log(x.value());
  return Dual::chain2(p, x, dx, y, dy);
}
// floor and round are locally constant
inline Dual floor(const Dual& x) {
  return Dual(std::floor(x.value()));
}
inline Dual round(const Dual& x) {
  return Dual(std::round(x.value()));
}

}  // namespace adlab::examples::dualfwd
