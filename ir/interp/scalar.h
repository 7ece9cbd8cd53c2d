// Scalar types the reference interpreter is instantiated with, and their math (DESIGN 5 `interp`).
#pragma once

#include <boost/math/special_functions/digamma.hpp>
#include <boost/math/special_functions/expm1.hpp>
#include <boost/math/special_functions/gamma.hpp>
#include <boost/math/special_functions/log1p.hpp>
#include <boost/multiprecision/cpp_bin_float.hpp>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace adlab::ir {

// 50 decimal digits: the reference for finite differences (DESIGN 4.2).
using mp50 = boost::multiprecision::cpp_bin_float_50;

// Whether a scalar type brings its own log1p, expm1, lgamma or sigmoid, found by
// argument-dependent lookup only (ir::math's templates of the same names are not visible here,
// so a type's own templates are not ambiguous with them): a dual number applies its derivative
// rule in one step (docs/adding-a-strategy.md, step 2). float, double and mp50 never count: the
// C library's ::log1p is visible here, and boost's functions take their own policies.
namespace scalar_hooks {
template <class T>
concept Other = !std::is_arithmetic_v<T> && !std::is_same_v<T, mp50>;
template <class T>
concept OwnLog1p = Other<T> && requires(const T& x) {
  { log1p(x) } -> std::convertible_to<T>;
};
template <class T>
concept OwnExpm1 = Other<T> && requires(const T& x) {
  { expm1(x) } -> std::convertible_to<T>;
};
template <class T>
concept OwnLgamma = Other<T> && requires(const T& x) {
  { lgamma(x) } -> std::convertible_to<T>;
};
template <class T>
concept OwnSigmoid = Other<T> && requires(const T& x) {
  { sigmoid(x) } -> std::convertible_to<T>;
};
template <OwnLog1p T>
T own_log1p(const T& x) {
  return T(log1p(x));
}
template <OwnExpm1 T>
T own_expm1(const T& x) {
  return T(expm1(x));
}
template <OwnLgamma T>
T own_lgamma(const T& x) {
  return T(lgamma(x));
}
template <OwnSigmoid T>
T own_sigmoid(const T& x) {
  return T(sigmoid(x));
}
}  // namespace scalar_hooks

namespace math {
template <class T>
T exp(const T& x) {
  using std::exp;
  return exp(x);
}
template <class T>
T log(const T& x) {
  using std::log;
  return log(x);
}
template <class T>
T sin(const T& x) {
  using std::sin;
  return sin(x);
}
template <class T>
T cos(const T& x) {
  using std::cos;
  return cos(x);
}
template <class T>
T tan(const T& x) {
  using std::tan;
  return tan(x);
}
template <class T>
T tanh(const T& x) {
  using std::tanh;
  return tanh(x);
}
template <class T>
T sqrt(const T& x) {
  using std::sqrt;
  return sqrt(x);
}
template <class T>
T abs(const T& x) {
  using std::abs;
  return abs(x);
}
template <class T>
T floor(const T& x) {
  using std::floor;
  return floor(x);
}
template <class T>
T round(const T& x) {
  using std::round;
  return round(x);
}
template <class T>
T pow(const T& x, const T& y) {
  using std::pow;
  return pow(x, y);
}
// Poles and domain errors give inf and NaN, as std:: does for double (boost's default policy
// throws, an error without a source position, where double has a value).
inline auto quiet_policy() {
  using namespace boost::math::policies;
  return make_policy(pole_error<ignore_error>(), domain_error<ignore_error>(),
                     overflow_error<ignore_error>(), evaluation_error<ignore_error>());
}
// A scalar type's own log1p, expm1, lgamma and sigmoid come first (scalar_hooks), then
// std's for float and double, then boost's for mp50.
template <class T>
T log1p(const T& x) {
  if constexpr (scalar_hooks::OwnLog1p<T>)
    return scalar_hooks::own_log1p(x);
  else if constexpr (std::is_floating_point_v<T>)
    return std::log1p(x);
  else
    return boost::math::log1p(x, quiet_policy());
}
template <class T>
T expm1(const T& x) {
  if constexpr (scalar_hooks::OwnExpm1<T>)
    return scalar_hooks::own_expm1(x);
  else if constexpr (std::is_floating_point_v<T>)
    return std::expm1(x);
  else
    return boost::math::expm1(x, quiet_policy());
}
template <class T>
T lgamma(const T& x) {
  if constexpr (scalar_hooks::OwnLgamma<T>)
    return scalar_hooks::own_lgamma(x);
  else if constexpr (std::is_floating_point_v<T>)
    return std::lgamma(x);
  else
    return x <= 0 && boost::multiprecision::floor(x) == x
               ? T(std::numeric_limits<double>::infinity())  // a pole: +inf, as std::lgamma
               : T(boost::math::lgamma(x, quiet_policy()));
}
// lgamma's derivative for the strategies' scalar rules: NaN at the poles 0, -1, -2, ... where
// lgamma is +inf (boost's default policy throws there, an error without a source position).
inline double digamma(double x) {
  return boost::math::digamma(x, quiet_policy());
}
// The reference computes in 50 digits but in double's range (DESIGN 2.3: IEEE-754 in the
// element type): past DBL_MAX a result is +-inf, below half the least subnormal +-0, as double
// rounds them; exp(800) * exp(-800) is NaN there too, not 1.
template <class T>
T in_f64_range(const T& x) {
  if constexpr (std::is_same_v<T, mp50>) {
    using std::signbit;
    const T a = boost::multiprecision::abs(x);
    if (a > T(std::numeric_limits<double>::max()))
      return signbit(x) ? T(-std::numeric_limits<double>::infinity())
                        : T(std::numeric_limits<double>::infinity());
    if (a != 0 && a < T(std::numeric_limits<double>::denorm_min()) / 2)
      return signbit(x) ? T(-0.0) : T(0);
    return x;
  } else {
    return x;
  }
}
template <class T>
T sigmoid(const T& x) {
  if constexpr (scalar_hooks::OwnSigmoid<T>)
    return scalar_hooks::own_sigmoid(x);
  else
    return T(1) / (T(1) + exp(T(-x)));
}
// tanh'(x) = 1 - t^2 (t = tanh x) where |x| < 1/2, else 4 sigmoid(2x) sigmoid(-2x): near
// saturation 1 - t is mostly t's rounding (tanh'(15) was 1.7e-4 off), and near 0 the product
// form's own derivative (an hvp) cancels, where -2 t t' does not (decisions 221, 223).
// ad/saturating_partials.h emits the same formulas as IR, with the same bounds on x^2. `t` is
// tanh(x), which the caller has.
inline constexpr double kTanhNearZeroSquare = 0.25;
inline constexpr double kSigmoidNearZeroSquare = 1;
template <class T>
T tanh_derivative(const T& x, const T& t) {
  if (x * x < T(kTanhNearZeroSquare)) return T(1) - t * t;
  return T(4) * sigmoid(T(T(2) * x)) * sigmoid(T(T(-2) * x));
}
// sigmoid'(x) = (1 - u^2) / 4 (u = tanh(x / 2)) where |x| < 1, else sigmoid(x) sigmoid(-x), for
// the same two reasons (sigmoid'(30) was 1e-3 off as s (1 - s)). `s` is sigmoid(x).
template <class T>
T sigmoid_derivative(const T& x, const T& s) {
  if (x * x < T(kSigmoidNearZeroSquare)) {
    const T u = tanh(T(x / T(2)));
    return (T(1) - u * u) / T(4);
  }
  return s * sigmoid(T(-x));
}
template <class T>
bool is_finite(const T& x) {
  using std::isfinite;
  if constexpr (std::is_floating_point_v<T>)
    return std::isfinite(x);
  else
    return boost::multiprecision::isfinite(x);
}
template <class T>
double to_double(const T& x) {
  if constexpr (std::is_floating_point_v<T>)
    return static_cast<double>(x);
  else
    return x.template convert_to<double>();
}
}  // namespace math

}  // namespace adlab::ir
