// Known answers for paper 003 section 7's benchmarks (bench_dualrev.cpp, bench_adjoint_code.cpp):
// every timed derivative is checked against one, so a fast wrong derivative cannot read as a
// speedup (decision 182).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace adlab::bench::paper003 {

// rotate_vec_by_quat's Jacobian by hand (integers, exact in double): r_i = 2 (u.v) u_i
// + (s^2 - u.u) v_i + 2 s (u x v)_i with u = q[0..2], s = q[3]; columns v0 v1 v2 q0 q1 q2 q3.
inline void rotate_jacobian_by_hand(const double* v, const double* q, double J[3][7]) {
  const double *u = q, s = q[3];
  const double uv = u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
  const double uu = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
  for (int i = 0; i < 3; ++i) {
    const int i1 = (i + 1) % 3, i2 = (i + 2) % 3;
    for (int j = 0; j < 3; ++j) {
      // d(u x v)_i / dv_j and / du_j, with (u x v)_i = u_i1 v_i2 - u_i2 v_i1
      const double dcross_dv = (j == i2 ? u[i1] : 0) - (j == i1 ? u[i2] : 0);
      const double dcross_du = (j == i1 ? v[i2] : 0) - (j == i2 ? v[i1] : 0);
      J[i][j] = 2 * u[j] * u[i] + (i == j ? s * s - uu : 0) + 2 * s * dcross_dv;
      J[i][3 + j] = 2 * v[j] * u[i] + (i == j ? 2 * uv : 0) - 2 * u[j] * v[i] + 2 * s * dcross_du;
    }
    J[i][6] = 2 * s * v[i] + 2 * (u[i1] * v[i2] - u[i2] * v[i1]);
  }
}

// J (3 x 7, inputs in rotate_vec_by_quat's layout a = (v, s, u)) against the hand Jacobian at a,
// entry by entry and exactly: "" or the first entry that differs.
inline std::string rotate_jacobian_error(const double* a, const double J[3][7]) {
  const double q[4] = {a[4], a[5], a[6], a[3]};
  double H[3][7];
  rotate_jacobian_by_hand(a, q, H);
  const int column[7] = {0, 1, 2, 6, 3, 4, 5};  // a's s is the hand Jacobian's q3, u its q0..q2
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 7; ++j)
      if (J[i][j] != H[i][column[j]])
        return "J[" + std::to_string(i) + "][" + std::to_string(j) +
               "] = " + std::to_string(J[i][j]) + ", by hand " + std::to_string(H[i][column[j]]);
  return "";
}

// The gradient g of f at x along a fixed pseudo-random direction d (entries in [-1, 1]) against
// the central difference (f(x + h d) - f(x - h d)) / 2h: "" when they agree to `tol` of |g|_1
// (a bound on |g . d|), else both values. It catches a missing or partial reverse pass, a wrong
// sign or scale; a single wrong entry among thousands may stay within the tolerance.
template <class F>
std::string directional_error(const F& f, const std::vector<double>& x,
                              const std::vector<double>& g, double h, double tol) {
  if (g.size() != x.size()) return "gradient has the wrong size";
  std::mt19937_64 rng(20261124);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  std::vector<double> d(x.size()), up(x), down(x);
  double gd = 0, g1 = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    d[i] = unit(rng);
    up[i] += h * d[i];
    down[i] -= h * d[i];
    gd += g[i] * d[i];
    g1 += std::fabs(g[i]);
  }
  const double fd = (f(up) - f(down)) / (2 * h);
  if (!(std::fabs(fd) > 0)) return "the function is flat along the direction: no check";
  if (std::fabs(fd - gd) <= tol * std::max(g1, std::fabs(fd))) return "";
  return "directional derivative " + std::to_string(gd) + ", central difference " +
         std::to_string(fd);
}

}  // namespace adlab::bench::paper003
