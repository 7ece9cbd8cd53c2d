// Paper 003 section 7's benchmark functions written by hand in C++ (double), the same code as
// bench_dualrev.cpp's templates instantiated with S = double: the reference a generated primal
// is compared with (bench_adjoint_code.cpp).
#pragma once

#include <cmath>
#include <vector>

namespace adlab::bench::paper003 {

// benchmark 2: the dot product
inline double dot(const std::vector<double>& x, const std::vector<double>& y) {
  double s = x[0] * y[0];
  for (std::size_t i = 1; i < x.size(); ++i) s += x[i] * y[i];
  return s;
}

// benchmark 4 (Krawiec et al.): 2 (u.v) u + (s^2 - u.u) v + 2 s (u x v), a = (v, s, u)
inline void rotate_vec_by_quat(const double* a, double* r) {
  const double *v = a, &s = a[3], *u = a + 4;
  double uv = u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
  double uu = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
  double c[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
  double k = s * s - uu;
  for (int i = 0; i < 3; ++i) r[i] = 2.0 * uv * u[i] + k * v[i] + 2.0 * s * c[i];
}

// benchmark 5: layers 50 -> 100 -> 50, ReLU, safe softmax, summed; p = (w1, b1, w2, b2, x)
constexpr int kIn = 50, kH1 = 100, kH2 = 50;

inline double neural(const std::vector<double>& p) {
  const double* w1 = p.data();
  const double* b1 = w1 + kH1 * kIn;
  const double* w2 = b1 + kH1;
  const double* b2 = w2 + kH2 * kH1;
  const double* x = b2 + kH2;
  std::vector<double> a1(kH1), a2(kH2);
  for (int i = 0; i < kH1; ++i) {
    double z = b1[i];
    for (int j = 0; j < kIn; ++j) z += w1[i * kIn + j] * x[j];
    a1[static_cast<std::size_t>(i)] = z < 0.0 ? 0.0 : z;
  }
  for (int i = 0; i < kH2; ++i) {
    double z = b2[i];
    for (int j = 0; j < kH1; ++j) z += w2[i * kH1 + j] * a1[static_cast<std::size_t>(j)];
    a2[static_cast<std::size_t>(i)] = z < 0.0 ? 0.0 : z;
  }
  double mx = a2[0];
  for (double v : a2)
    if (mx < v) mx = v;
  std::vector<double> ex(kH2);
  double se = 0.0;
  for (int i = 0; i < kH2; ++i) {
    ex[static_cast<std::size_t>(i)] = std::exp(a2[static_cast<std::size_t>(i)] - mx);
    se += ex[static_cast<std::size_t>(i)];
  }
  double out = 0.0;
  for (int i = 0; i < kH2; ++i) out += ex[static_cast<std::size_t>(i)] / se;
  return out;
}

// Inputs as in paper 003's bench/Main.hs: weights sin(i + j), vectors sin(0.41 i).
inline std::vector<double> neural_params() {
  std::vector<double> p;
  for (int i = 0; i < kH1; ++i)
    for (int j = 0; j < kIn; ++j) p.push_back(std::sin(i + j));
  for (int i = 0; i < kH1; ++i) p.push_back(std::sin(0.41 * i));
  for (int i = 0; i < kH2; ++i)
    for (int j = 0; j < kH1; ++j) p.push_back(std::sin(i + j));
  for (int i = 0; i < kH2; ++i) p.push_back(std::sin(0.41 * i));
  for (int i = 0; i < kIn; ++i) p.push_back(std::sin(0.41 * i));
  return p;
}

}  // namespace adlab::bench::paper003
