// Paper 003 section 7's benchmark functions written by hand in C++, templated on the scalar type:
// double (the primal, and the reference a generated primal is compared with in
// bench_adjoint_code.cpp), dualrev's Dual and ADOL-C's adouble (bench_dualrev.cpp).
#pragma once

#include <cmath>
#include <vector>

namespace adlab::bench::paper003 {

// paper 003 benchmark 2: dot product of [1..] and [3, 5..] style vectors
template <class S>
S dot(const std::vector<S>& x, const std::vector<S>& y) {
  S s = x[0] * y[0];
  for (std::size_t i = 1; i < x.size(); ++i) s += x[i] * y[i];
  return s;
}

// paper 003 benchmark 4 (Krawiec et al.): 2 (u.v) u + (s^2 - u.u) v + 2 s (u x v)
template <class S>
void rotate_vec_by_quat(const S* a, S* r) {
  const S *v = a, &s = a[3], *u = a + 4;
  S uv = u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
  S uu = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
  S c[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
  S k = s * s - uu;
  for (int i = 0; i < 3; ++i) r[i] = 2.0 * uv * u[i] + k * v[i] + 2.0 * s * c[i];
}

// paper 003 benchmark 5: layers 50 -> 100 -> 50, ReLU, safe softmax, summed output; parameters
// are w1 (100 x 50), b1 (100), w2 (50 x 100), b2 (50), x (50), all differentiated.
constexpr int kIn = 50, kH1 = 100, kH2 = 50;

// kWeighted: the output weights each softmax entry by its a2 (bench_adjoint_code's
// neural_weighted), whose gradient is not zero: the check the summed network cannot give.
template <class S, bool kWeighted = false>
S neural(const std::vector<S>& p) {
  const S* w1 = p.data();
  const S* b1 = w1 + kH1 * kIn;
  const S* w2 = b1 + kH1;
  const S* b2 = w2 + kH2 * kH1;
  const S* x = b2 + kH2;
  std::vector<S> a1(kH1), a2(kH2);
  for (int i = 0; i < kH1; ++i) {
    S z = b1[i];
    for (int j = 0; j < kIn; ++j) z += w1[i * kIn + j] * x[j];
    a1[static_cast<std::size_t>(i)] = z < 0.0 ? S(0.0) : z;
  }
  for (int i = 0; i < kH2; ++i) {
    S z = b2[i];
    for (int j = 0; j < kH1; ++j) z += w2[i * kH1 + j] * a1[static_cast<std::size_t>(j)];
    a2[static_cast<std::size_t>(i)] = z < 0.0 ? S(0.0) : z;
  }
  S mx = a2[0];
  for (const S& v : a2)
    if (mx < v) mx = v;
  std::vector<S> ex(kH2);
  S se = 0.0;
  for (int i = 0; i < kH2; ++i) {
    using std::exp;
    ex[static_cast<std::size_t>(i)] = exp(a2[static_cast<std::size_t>(i)] - mx);
    se += ex[static_cast<std::size_t>(i)];
  }
  S out = 0.0;
  for (int i = 0; i < kH2; ++i) {
    if constexpr (kWeighted)
      out += ex[static_cast<std::size_t>(i)] / se * a2[static_cast<std::size_t>(i)];
    else
      out += ex[static_cast<std::size_t>(i)] / se;
  }
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
