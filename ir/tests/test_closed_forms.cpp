// Closed-form tests of the reference interpreter: `.adl` programs from SYNTAX.md and the papers,
// each checked against the same quantity computed independently in plain C++ loops, and the
// operation counts checked against paper 000's cost model (Fig. 6).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <iomanip>
#include <string>
#include <tuple>
#include <vector>

#include <boost/multiprecision/cpp_bin_float.hpp>
#include <catch2/catch.hpp>

#include "ir/interp/interpreter.h"
#include "ir/interp/interpreter_mp.h"
#include "ir/syntax/parser.h"
#include "ir/tensor/random.h"
#include "ir/tensor/tensor_ops.h"

namespace adlab::ir {
namespace {

constexpr double kTol = 1e-12;

struct Run {
  std::vector<Tensor> results;
  OpCounts counts;
};

// Parses `src` and runs its function `f` in double precision on `inputs`.
Run run_f(const std::string& src, const std::vector<Tensor>& inputs, EvalOptions options = {}) {
  Module module = parse_module(src, "closed_form.adl");
  Interpreter<double> interp(std::move(options));
  Run r;
  r.results = interp.run_tensors(*module.entry("f"), inputs);
  r.counts = interp.counts();
  return r;
}

// The single scalar result of a run.
double only_scalar(const Run& r) {
  REQUIRE(r.results.size() == 1);
  REQUIRE(r.results[0].rank() == 0);
  REQUIRE(r.results[0].values.size() == 1);
  return r.results[0].values[0];
}

// |got - want| <= 1e-12 * max(|want|, scale); `scale` (e.g. the sum of |terms|) covers results
// that cancel, where a different summation order may change the last bits.
void check_close(double got, double want, double scale = 0) {
  INFO(std::setprecision(17) << "got " << got << ", want " << want << ", scale " << scale);
  CHECK(std::abs(got - want) <= kTol * std::max(std::abs(want), scale));
}

// A dense floating result: shape and every entry.
void check_dense(const Tensor& got, const std::vector<std::int64_t>& shape,
                 const std::vector<double>& want, const std::vector<double>& scale = {}) {
  REQUIRE(got.storage == Storage::Dense);
  REQUIRE(got.shape == shape);
  REQUIRE(got.values.size() == want.size());
  for (std::size_t k = 0; k < want.size(); ++k) {
    INFO("entry " << k);
    check_close(got.values[k], want[k], scale.empty() ? 0.0 : scale[k]);
  }
}

std::vector<double> normal(std::int64_t n, std::uint64_t seed) {
  return random_normal({n}, 0.0, 1.0, seed).values;
}

double logsumexp_ref(const std::vector<double>& v) {
  double mx = v[0];
  for (double e : v) mx = std::max(mx, e);
  double s = 0;
  for (double e : v) s += std::exp(e - mx);
  return std::log(s) + mx;
}

// Dense row-major copy of a CSR matrix given by its arrays (the test's own conversion).
std::vector<double> csr_dense(std::int64_t rows, std::int64_t cols,
                              const std::vector<std::int64_t>& row_ptr,
                              const std::vector<std::int64_t>& col_idx,
                              const std::vector<double>& values) {
  std::vector<double> d(static_cast<std::size_t>(rows * cols), 0.0);
  for (std::int64_t i = 0; i < rows; ++i) {
    for (std::int64_t k = row_ptr[i]; k < row_ptr[i + 1]; ++k) d[i * cols + col_idx[k]] = values[k];
  }
  return d;
}

// A 4 x 5 CSR matrix with an empty row (2) and an explicitly stored zero at (3, 4):
//   [1.5  0   -2   0    0  ]
//   [0    0.5  0   0    3  ]
//   [0    0    0   0    0  ]
//   [-1   0    0   2.5  0* ]
const std::vector<std::int64_t> kRowPtr = {0, 2, 4, 4, 7};
const std::vector<std::int64_t> kColIdx = {0, 2, 1, 4, 0, 3, 4};
const std::vector<double> kVals = {1.5, -2, 0.5, 3, -1, 2.5, 0};
Tensor sample_csr() {
  return make_csr(4, 5, kRowPtr, kColIdx, kVals);
}

// ---------------------------------------------------------------- dense linear algebra

TEST_CASE("dot product", "[unit]") {
  const char* src = R"adl(
func f(x: f64[n], y: f64[n]) -> f64 {
  return sum[i < n] x[i] * y[i]
}
)adl";
  auto x = normal(9, 11), y = normal(9, 12);
  double want = 0, scale = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    want += x[i] * y[i];
    scale += std::abs(x[i] * y[i]);
  }
  Run r = run_f(src, {dense_f64({9}, x), dense_f64({9}, y)});
  check_close(only_scalar(r), want, scale);
}

TEST_CASE("matmul (SYNTAX.md example)", "[unit]") {
  const char* src = R"adl(
func f(A: f64[n, k], B: f64[k, m]) -> f64[n, m] {
  return gen[i < n, j < m] sum[l < k] A[i, l] * B[l, j]
}
)adl";
  const std::int64_t n = 3, k = 4, m = 5;
  auto a = random_normal({n, k}, 0, 1, 21).values;
  auto b = random_normal({k, m}, 0, 1, 22).values;
  std::vector<double> want(n * m, 0.0), scale(n * m, 0.0);
  for (std::int64_t i = 0; i < n; ++i) {
    for (std::int64_t j = 0; j < m; ++j) {
      for (std::int64_t l = 0; l < k; ++l) {
        want[i * m + j] += a[i * k + l] * b[l * m + j];
        scale[i * m + j] += std::abs(a[i * k + l] * b[l * m + j]);
      }
    }
  }
  Run r = run_f(src, {dense_f64({n, k}, a), dense_f64({k, m}, b)});
  REQUIRE(r.results.size() == 1);
  check_dense(r.results[0], {n, m}, want, scale);
}

TEST_CASE("matrix-vector product", "[unit]") {
  const char* src = R"adl(
func f(A: f64[n, m], x: f64[m]) -> f64[n] {
  return gen[i < n] sum[j < m] A[i, j] * x[j]
}
)adl";
  const std::int64_t n = 4, m = 6;
  auto a = random_normal({n, m}, 0, 1, 31).values;
  auto x = normal(m, 32);
  std::vector<double> want(n, 0.0), scale(n, 0.0);
  for (std::int64_t i = 0; i < n; ++i) {
    for (std::int64_t j = 0; j < m; ++j) {
      want[i] += a[i * m + j] * x[j];
      scale[i] += std::abs(a[i * m + j] * x[j]);
    }
  }
  Run r = run_f(src, {dense_f64({n, m}, a), dense_f64({m}, x)});
  REQUIRE(r.results.size() == 1);
  check_dense(r.results[0], {n}, want, scale);
}

TEST_CASE("paper 000 TC1: trace of diag", "[unit]") {
  const char* src = R"adl(
func f(x: f64[n]) -> f64 {
  let A = gen[i < n, j < n] [i == j] * x[i]
  let t = sum[i < n] A[i, i]
  return t + t + t
}
)adl";
  std::vector<double> x = {1.5, -2, 0.25, 3, -0.75};
  double t = 0;
  for (double e : x) t += e;
  Run r = run_f(src, {dense_f64({5}, x)});
  CHECK(only_scalar(r) == Approx(3 * t).epsilon(kTol));
}

// ---------------------------------------------------------------- log-sum-exp family

TEST_CASE("logsumexp shifts by the max for large inputs", "[unit]") {
  const char* src = R"adl(
func f(v: f64[k]) -> f64 {
  let mx = max[i < k] v[i]
  return log(sum[i2 < k] exp(v[i2] - mx)) + mx
}
)adl";
  std::vector<double> big = {1000, 1001, 999.5, 1000.25};
  double want = 1001 + std::log(std::exp(-1.0) + 1 + std::exp(-1.5) + std::exp(-0.75));
  double got = only_scalar(run_f(src, {dense_f64({4}, big)}));
  CHECK(std::isfinite(got));
  CHECK(got == Approx(want).epsilon(kTol));

  std::vector<double> small = {-1000, -1001};
  double want_small = -1000 + std::log(1 + std::exp(-1.0));
  CHECK(only_scalar(run_f(src, {dense_f64({2}, small)})) == Approx(want_small).epsilon(kTol));
}

TEST_CASE("softmax rows (SYNTAX.md example)", "[unit]") {
  const char* src = R"adl(
func logsumexp(v: f64[k]) -> f64 {
  let mx = max[i < k] v[i]
  return log(sum[i < k] exp(v[i] - mx)) + mx
}

func f(S: f64[n, k]) -> f64[n, k] {
  let lse = gen[r < n] logsumexp(S[r])
  return gen[r < n, c < k] exp(S[r, c] - lse[r])
}
)adl";
  const std::int64_t n = 3, k = 4;
  auto s = random_normal({n, k}, 0, 3, 41).values;
  s[5] += 800;  // row 1 would overflow exp without the shift
  std::vector<double> want(n * k);
  for (std::int64_t r = 0; r < n; ++r) {
    std::vector<double> row(s.begin() + r * k, s.begin() + (r + 1) * k);
    double lse = logsumexp_ref(row);
    for (std::int64_t c = 0; c < k; ++c) want[r * k + c] = std::exp(s[r * k + c] - lse);
  }
  Run r = run_f(src, {dense_f64({n, k}, s)});
  REQUIRE(r.results.size() == 1);
  check_dense(r.results[0], {n, k}, want);
  for (std::int64_t row = 0; row < n; ++row) {
    double total = 0;
    for (std::int64_t c = 0; c < k; ++c) total += r.results[0].values[row * k + c];
    CHECK(total == Approx(1.0).epsilon(kTol));
  }
}

TEST_CASE("logsumexp per row: a call of an earlier function inside gen", "[unit]") {
  const char* src = R"adl(
func logsumexp(v: f64[k]) -> f64 {
  let mx = max[i < k] v[i]
  return log(sum[j < k] exp(v[j] - mx)) + mx
}

func f(S: f64[n, k]) -> f64[n] {
  return gen[r < n] logsumexp(S[r])
}
)adl";
  const std::int64_t n = 4, k = 3;
  auto s = random_normal({n, k}, 0, 1, 51).values;
  for (std::int64_t c = 0; c < k; ++c) s[2 * k + c] += 700;  // row 2 needs the shift
  std::vector<double> want(n);
  for (std::int64_t r = 0; r < n; ++r) {
    want[r] = logsumexp_ref(std::vector<double>(s.begin() + r * k, s.begin() + (r + 1) * k));
  }
  Run r = run_f(src, {dense_f64({n, k}, s)});
  REQUIRE(r.results.size() == 1);
  check_dense(r.results[0], {n}, want);
}

TEST_CASE("paper 002 GMM objective (diagonal Q)", "[unit]") {
  // sum_i logsumexp_k(alpha_k + sum_d q_kd - 1/2 |diag(exp(q_k)) (x_i - mu_k)|^2) - N
  // logsumexp(alpha)
  const char* src = R"adl(
func logsumexp(v: f64[k]) -> f64 {
  let mx = max[i < k] v[i]
  return log(sum[j < k] exp(v[j] - mx)) + mx
}

func f(alphas: f64[K], means: f64[K, D], q: f64[K, D], x: f64[N, D]) -> f64 {
  let inner = gen[i < N, k1 < K] {
    let qx = gen[d1 < D] exp(q[k1, d1]) * (x[i, d1] - means[k1, d1])
    alphas[k1] + (sum[d2 < D] q[k1, d2]) - 0.5 * sum[d3 < D] qx[d3] * qx[d3]
  }
  let slse = sum[i2 < N] logsumexp(inner[i2])
  return slse - f64(N) * logsumexp(alphas)
}
)adl";
  const std::int64_t K = 3, D = 2, N = 6;
  auto alphas = normal(K, 61);
  auto means = random_normal({K, D}, 0, 1, 62).values;
  auto q = random_normal({K, D}, 0, 0.3, 63).values;
  auto x = random_normal({N, D}, 0, 1, 64).values;
  double slse = 0, scale = 0;
  for (std::int64_t i = 0; i < N; ++i) {
    std::vector<double> inner(K);
    for (std::int64_t k = 0; k < K; ++k) {
      double sumq = 0, sq = 0;
      for (std::int64_t d = 0; d < D; ++d) {
        sumq += q[k * D + d];
        double qx = std::exp(q[k * D + d]) * (x[i * D + d] - means[k * D + d]);
        sq += qx * qx;
      }
      inner[k] = alphas[k] + sumq - 0.5 * sq;
    }
    double l = logsumexp_ref(inner);
    slse += l;
    scale += std::abs(l);
  }
  double want = slse - static_cast<double>(N) * logsumexp_ref(alphas);
  Run r = run_f(src, {dense_f64({K}, alphas), dense_f64({K, D}, means), dense_f64({K, D}, q),
                      dense_f64({N, D}, x)});
  check_close(only_scalar(r), want, scale);
}

TEST_CASE("paper 002 GMM objective (full ADBench formula, lower-triangular Q)", "[unit]") {
  // The suite program suites/papers/accelerate/gmm.adl, here as the function f.
  const char* src = R"adl(
func logsumexp(v: f64[k]) -> f64 {
  let mx = max[i < k] v[i]
  return log(sum[j < k] exp(v[j] - mx)) + mx
}

func f(alphas: f64[K], means: f64[K, D], icf: f64[K, D + D * (D - 1) / 2], x: f64[N, D], wis_gamma: f64, wis_m: f64) -> f64 {
  let qdiag = gen[k1 < K, d1 < D] exp(icf[k1, d1])
  let sumq = gen[k2 < K] sum[d2 < D] icf[k2, d2]
  let inner = gen[n1 < N, k3 < K] {
    let xc = gen[d3 < D] x[n1, d3] - means[k3, d3]
    let qx = gen[r < D] qdiag[k3, r] * xc[r] + sum[c < r] icf[k3, D + (D * (D - 1) / 2 - (D - 1 - c) * (D - c) / 2 + r - c - 1)] * xc[c]
    alphas[k3] + sumq[k3] - 0.5 * sum[d4 < D] qx[d4] * qx[d4]
  }
  let slse = sum[n2 < N] logsumexp(inner[n2])
  let lse_alpha = logsumexp(alphas)
  let c1 = 0.5 * f64(N) * f64(D) * log(2 * pi)
  let np = f64(D) + wis_m + 1
  let lmg = 0.25 * f64(D) * (f64(D) - 1) * log(pi) + sum[j1 < D] lgamma(0.5 * np - 0.5 * f64(j1))
  let c2 = f64(K) * (np * f64(D) * (log(wis_gamma) - 0.5 * log(2)) - lmg)
  let prior = sum[k4 < K] 0.5 * wis_gamma * wis_gamma * ((sum[d5 < D] qdiag[k4, d5] * qdiag[k4, d5]) + (sum[l1 < D * (D - 1) / 2] icf[k4, D + l1] * icf[k4, D + l1])) - wis_m * sumq[k4]
  return -c1 + slse - f64(N) * lse_alpha + prior - c2
}
)adl";
  const std::int64_t K = 3, D = 3, N = 5, L = D * (D - 1) / 2, W = D + L;
  const double gamma = 1.0, m = 0.0;
  auto alphas = normal(K, 71);
  auto means = random_normal({K, D}, 0, 1, 72).values;
  auto icf = random_normal({K, W}, 0, 0.5, 73).values;
  auto x = random_normal({N, D}, 0, 1, 74).values;
  const double pi = std::acos(-1.0);

  double slse = 0, scale = 0;
  for (std::int64_t i = 0; i < N; ++i) {
    std::vector<double> inner(K);
    for (std::int64_t k = 0; k < K; ++k) {
      // Q_k: diagonal exp(q), strict lower part filled column by column from icf[k, D:].
      std::vector<double> Q(D * D, 0.0);
      double sumq = 0;
      for (std::int64_t d = 0; d < D; ++d) {
        Q[d * D + d] = std::exp(icf[k * W + d]);
        sumq += icf[k * W + d];
      }
      std::int64_t pos = D;
      for (std::int64_t c = 0; c < D; ++c) {
        for (std::int64_t row = c + 1; row < D; ++row) Q[row * D + c] = icf[k * W + pos++];
      }
      double sq = 0;
      for (std::int64_t row = 0; row < D; ++row) {
        double y = 0;
        for (std::int64_t c = 0; c < D; ++c)
          y += Q[row * D + c] * (x[i * D + c] - means[k * D + c]);
        sq += y * y;
      }
      inner[k] = alphas[k] + sumq - 0.5 * sq;
    }
    double l = logsumexp_ref(inner);
    slse += l;
    scale += std::abs(l);
  }
  double prior = 0;
  for (std::int64_t k = 0; k < K; ++k) {
    double frob = 0, sumq = 0;
    for (std::int64_t d = 0; d < D; ++d) {
      frob += std::exp(2 * icf[k * W + d]);
      sumq += icf[k * W + d];
    }
    for (std::int64_t l = 0; l < L; ++l) frob += icf[k * W + D + l] * icf[k * W + D + l];
    prior += 0.5 * gamma * gamma * frob - m * sumq;
  }
  const double np = D + m + 1;
  double lmg = 0.25 * D * (D - 1) * std::log(pi);  // log multivariate gamma(np / 2, D)
  for (std::int64_t j = 0; j < D; ++j) lmg += std::lgamma(0.5 * np - 0.5 * j);
  const double c1 = 0.5 * N * D * std::log(2 * pi);
  const double c2 = K * (np * D * (std::log(gamma) - 0.5 * std::log(2.0)) - lmg);
  double want = -c1 + slse - N * logsumexp_ref(alphas) + prior - c2;
  Run r = run_f(src, {dense_f64({K}, alphas), dense_f64({K, D}, means), dense_f64({K, W}, icf),
                      dense_f64({N, D}, x), scalar(gamma), scalar(m)});
  check_close(only_scalar(r), want, scale + std::abs(c1) + std::abs(c2) + std::abs(prior));
}

// ---------------------------------------------------------------- convolutions

TEST_CASE("paper 000 section 2.1: 1-D convolution with zero padding", "[unit]") {
  const char* src = R"adl(
func f(x: f64[n], c: f64[m]) -> f64[n] {
  return gen[i < n] sum[j < m] [0 <= i - j < n] * x[i - j] * c[j]
}
)adl";
  const std::int64_t n = 7, m = 3;
  auto x = normal(n, 81), c = normal(m, 82);
  std::vector<double> want(n, 0.0), scale(n, 0.0);
  for (std::int64_t i = 0; i < n; ++i) {
    for (std::int64_t j = 0; j < m; ++j) {
      if (i - j >= 0 && i - j < n) {
        want[i] += x[i - j] * c[j];
        scale[i] += std::abs(x[i - j] * c[j]);
      }
    }
  }
  Run r = run_f(src, {dense_f64({n}, x), dense_f64({m}, c)});
  REQUIRE(r.results.size() == 1);
  check_dense(r.results[0], {n}, want, scale);
}

TEST_CASE("2-D convolution with zero padding", "[unit]") {
  const char* src = R"adl(
func f(X: f64[n, m], K: f64[p, q]) -> f64[n, m] {
  return gen[i < n, j < m] sum[a < p, b < q] [0 <= i - a < n && 0 <= j - b < m] * (X[i - a, j - b] * K[a, b])
}
)adl";
  const std::int64_t n = 4, m = 5, p = 2, q = 3;
  auto X = random_normal({n, m}, 0, 1, 91).values;
  auto Kf = random_normal({p, q}, 0, 1, 92).values;
  std::vector<double> want(n * m, 0.0), scale(n * m, 0.0);
  for (std::int64_t i = 0; i < n; ++i) {
    for (std::int64_t j = 0; j < m; ++j) {
      for (std::int64_t a = 0; a < p; ++a) {
        for (std::int64_t b = 0; b < q; ++b) {
          if (i - a < 0 || j - b < 0) continue;
          double t = X[(i - a) * m + (j - b)] * Kf[a * q + b];
          want[i * m + j] += t;
          scale[i * m + j] += std::abs(t);
        }
      }
    }
  }
  Run r = run_f(src, {dense_f64({n, m}, X), dense_f64({p, q}, Kf)});
  REQUIRE(r.results.size() == 1);
  check_dense(r.results[0], {n, m}, want, scale);
}

// ---------------------------------------------------------------- sparse inputs and scatters

TEST_CASE("paper 004 BATAx", "[unit]") {
  const char* src = R"adl(
func f(A: f64[n, m] @csr, x: f64[m], beta: f64) -> f64[m] {
  let r = gen[i < n] sum[(k) in A[i]] A[i, k] * x[k]
  return scatter[(i, j) in A] to f64[m] at (j) add beta * A[i, j] * r[i]
}
)adl";
  const std::int64_t n = 4, m = 5;
  auto a = csr_dense(n, m, kRowPtr, kColIdx, kVals);
  std::vector<double> x = {0.5, -1.25, 2, 0.75, -3};
  const double beta = 1.75;
  std::vector<double> r(n, 0.0), want(m, 0.0);
  for (std::int64_t i = 0; i < n; ++i) {
    for (std::int64_t j = 0; j < m; ++j) r[i] += a[i * m + j] * x[j];
  }
  for (std::int64_t j = 0; j < m; ++j) {
    for (std::int64_t i = 0; i < n; ++i) want[j] += beta * a[i * m + j] * r[i];
  }
  Run res = run_f(src, {sample_csr(), dense_f64({m}, x), scalar(beta)});
  REQUIRE(res.results.size() == 1);
  check_dense(res.results[0], {m}, want, std::vector<double>(m, 10.0));
}

TEST_CASE("paper 004 SMVM over the stored entries of a CSR matrix", "[unit]") {
  const char* src = R"adl(
func f(A: f64[n, m] @csr, x: f64[m]) -> f64 {
  return sum[(i, j) in A] A[i, j] * x[j]
}
)adl";
  std::vector<double> x = {0.5, -1.25, 2, 0.75, -3};
  double want = 0;
  for (std::int64_t i = 0; i < 4; ++i) {
    for (std::int64_t k = kRowPtr[i]; k < kRowPtr[i + 1]; ++k) want += kVals[k] * x[kColIdx[k]];
  }
  CHECK(only_scalar(run_f(src, {sample_csr(), dense_f64({5}, x)})) == Approx(want).epsilon(kTol));
}

TEST_CASE("CSR row iteration sum[(j) in A[i]] (empty row gives 0)", "[unit]") {
  const char* src = R"adl(
func f(A: f64[n, m] @csr, x: f64[m]) -> f64[n] {
  return gen[i < n] sum[(j) in A[i]] A[i, j] * x[j] + 1
}
)adl";
  std::vector<double> x = {0.5, -1.25, 2, 0.75, -3};
  std::vector<double> want(4, 0.0);
  for (std::int64_t i = 0; i < 4; ++i) {
    for (std::int64_t k = kRowPtr[i]; k < kRowPtr[i + 1]; ++k)
      want[i] += kVals[k] * x[kColIdx[k]] + 1;
  }
  Run r = run_f(src, {sample_csr(), dense_f64({5}, x)});
  REQUIRE(r.results.size() == 1);
  check_dense(r.results[0], {4}, want);
  CHECK(r.results[0].values[2] == 0.0);
}

TEST_CASE("sparse-vector dot with an @coo vector", "[unit]") {
  const char* src = R"adl(
func f(v: f64[n] @coo, y: f64[n]) -> f64 {
  return sum[(i) in v] v[i] * y[i]
}
)adl";
  std::vector<std::int64_t> coords = {1, 4, 6};
  std::vector<double> vals = {2.5, -1, 0.5};
  auto y = normal(8, 101);
  double want = 0;
  for (std::size_t k = 0; k < coords.size(); ++k) want += vals[k] * y[coords[k]];
  Run r = run_f(src, {make_coo({8}, coords, vals), dense_f64({8}, y)});
  CHECK(only_scalar(r) == Approx(want).epsilon(kTol));
  CHECK(r.counts.muls == 3);
  CHECK(r.counts.adds == 2);
}

TEST_CASE("scatter with data-dependent indices: a weighted histogram", "[unit]") {
  const char* src = R"adl(
func f[m](idx: i64[n], w: f64[n]) -> (f64[m], f64[m]) {
  let h = scatter[i < n] to f64[m] at (idx[i]) add w[i]
  let c = scatter[i2 < n] to f64[m] at (idx[i2]) add 1
  return (h, c)
}
)adl";
  const std::int64_t n = 20, m = 5;
  Tensor idx = random_int({n}, 0, m, 111);
  auto w = random_uniform({n}, 0.5, 1.5, 112).values;
  std::vector<double> hist(m, 0.0), count(m, 0.0);
  for (std::int64_t i = 0; i < n; ++i) {
    hist[idx.ints[i]] += w[i];
    count[idx.ints[i]] += 1;
  }
  EvalOptions opts;
  opts.sizes["m"] = m;
  Run r = run_f(src, {idx, dense_f64({n}, w)}, opts);
  REQUIRE(r.results.size() == 2);
  check_dense(r.results[0], {m}, hist);
  check_dense(r.results[1], {m}, count);
  CHECK(r.counts.adds == 2 * n);  // one addition per contribution
}

TEST_CASE("scatter to an @coo result: scaled transpose and sparse row sums", "[unit]") {
  const char* src = R"adl(
func f(A: f64[n, m] @csr) -> (f64[m, n] @coo, f64[n] @coo) {
  let t = scatter[(i, j) in A] to f64[m, n] @coo at (j, i) add 2 * A[i, j]
  let s = scatter[(i2, j2) in A] to f64[n] @coo at (i2) add A[i2, j2]
  return (t, s)
}
)adl";
  // Expected: one stored entry per contributed key, keys sorted row-major.
  std::vector<std::tuple<std::int64_t, std::int64_t, double>> entries;
  std::vector<double> row_sum(4, 0.0);
  std::vector<bool> row_hit(4, false);
  for (std::int64_t i = 0; i < 4; ++i) {
    for (std::int64_t k = kRowPtr[i]; k < kRowPtr[i + 1]; ++k) {
      entries.emplace_back(kColIdx[k], i, 2 * kVals[k]);
      row_sum[i] += kVals[k];
      row_hit[i] = true;
    }
  }
  std::sort(entries.begin(), entries.end());
  Run r = run_f(src, {sample_csr()});
  REQUIRE(r.results.size() == 2);
  const Tensor& t = r.results[0];
  CHECK(t.storage == Storage::Coo);
  CHECK(t.shape == std::vector<std::int64_t>{5, 4});
  REQUIRE(t.values.size() == entries.size());
  REQUIRE(t.coords.size() == 2 * entries.size());
  for (std::size_t k = 0; k < entries.size(); ++k) {
    INFO("entry " << k);
    CHECK(t.coords[2 * k] == std::get<0>(entries[k]));
    CHECK(t.coords[2 * k + 1] == std::get<1>(entries[k]));
    CHECK(t.values[k] == Approx(std::get<2>(entries[k])).epsilon(kTol));
  }
  const Tensor& s = r.results[1];
  CHECK(s.storage == Storage::Coo);
  CHECK(s.shape == std::vector<std::int64_t>{4});
  std::vector<std::int64_t> want_coords;
  std::vector<double> want_vals;
  for (std::int64_t i = 0; i < 4; ++i) {
    if (!row_hit[i]) continue;
    want_coords.push_back(i);
    want_vals.push_back(row_sum[i]);
  }
  CHECK(s.coords == want_coords);
  REQUIRE(s.values.size() == want_vals.size());
  for (std::size_t k = 0; k < want_vals.size(); ++k) {
    CHECK(s.values[k] == Approx(want_vals[k]).epsilon(kTol));
  }
}

TEST_CASE("nz(A, i, j) on a CSR input is the stored pattern", "[unit]") {
  const char* src = R"adl(
func f(A: f64[n, m] @csr, x: f64[m]) -> (f64[n], f64[n, m]) {
  let s = gen[i < n] sum[j < m] [nz(A, i, j)] * x[j]
  let p = gen[i2 < n, j2 < m] [nz(A, i2, j2)] * 1
  return (s, p)
}
)adl";
  std::vector<double> x = {0.5, -1.25, 2, 0.75, -3};
  std::vector<double> pattern(4 * 5, 0.0), want(4, 0.0);
  for (std::int64_t i = 0; i < 4; ++i) {
    for (std::int64_t k = kRowPtr[i]; k < kRowPtr[i + 1]; ++k) {
      pattern[i * 5 + kColIdx[k]] = 1;  // the explicit zero at (3, 4) is stored, so nz holds
      want[i] += x[kColIdx[k]];
    }
  }
  Run r = run_f(src, {sample_csr(), dense_f64({5}, x)});
  REQUIRE(r.results.size() == 2);
  check_dense(r.results[0], {4}, want);
  check_dense(r.results[1], {4, 5}, pattern);
}

TEST_CASE("exists[k < m] in a bracket", "[unit]") {
  const char* src = R"adl(
func f(x: f64[n], idx: i64[m]) -> f64[n] {
  return gen[i < n] [exists[k < m] idx[k] == i] * x[i]
}
)adl";
  std::vector<std::int64_t> idx = {1, 4, 4, 6};
  auto x = normal(8, 121);
  std::vector<double> want(8, 0.0);
  for (std::int64_t i = 0; i < 8; ++i) {
    bool hit = false;
    for (auto k : idx) hit = hit || k == i;
    if (hit) want[i] = x[i];
  }
  Run r = run_f(src, {dense_f64({8}, x), dense_i64({4}, idx)});
  REQUIRE(r.results.size() == 1);
  check_dense(r.results[0], {8}, want);
}

// ---------------------------------------------------------------- loops and scans

// SYNTAX.md's rnn example writes `tanh(sum[c < h] W[r, c] * s[c] + sum[c < d] ...)`, which by
// the binder rule nests the second sum inside the first (and rebinds c): parenthesised here.
TEST_CASE("loop: RNN with tanh (SYNTAX.md example)", "[unit]") {
  const char* src = R"adl(
func f(W: f64[h, h], U: f64[h, d], X: f64[T, d], h0: f64[h]) -> f64 {
  let hT = loop[t < T] (s = h0) {
    next gen[r < h] tanh((sum[c < h] W[r, c] * s[c]) + sum[c2 < d] U[r, c2] * X[t, c2])
  }
  return sum[r < h] hT[r]
}
)adl";
  const std::int64_t h = 3, d = 2, T = 4;
  auto W = random_normal({h, h}, 0, 0.5, 131).values;
  auto U = random_normal({h, d}, 0, 0.5, 132).values;
  auto X = random_normal({T, d}, 0, 1, 133).values;
  auto h0 = normal(h, 134);
  std::vector<double> s = h0;
  for (std::int64_t t = 0; t < T; ++t) {
    std::vector<double> next(h);
    for (std::int64_t r = 0; r < h; ++r) {
      double a = 0, b = 0;
      for (std::int64_t c = 0; c < h; ++c) a += W[r * h + c] * s[c];
      for (std::int64_t c = 0; c < d; ++c) b += U[r * d + c] * X[t * d + c];
      next[r] = std::tanh(a + b);
    }
    s = next;
  }
  double want = 0;
  for (double e : s) want += e;
  Run r = run_f(
      src, {dense_f64({h, h}, W), dense_f64({h, d}, U), dense_f64({T, d}, X), dense_f64({h}, h0)});
  check_close(only_scalar(r), want, static_cast<double>(h));
}

TEST_CASE("loop with tuple state: Fibonacci", "[unit]") {
  const char* src = R"adl(
func f(T: i64) -> (f64, f64) {
  let (a, b) = loop[t < T] (a0 = 0, b0 = 1) {
    next (b0, a0 + b0)
  }
  return (a, b)
}
)adl";
  double a = 0, b = 1;
  for (int t = 0; t < 30; ++t) {
    double c = a + b;
    a = b;
    b = c;
  }
  Run r = run_f(src, {dense_i64({}, {30})});
  REQUIRE(r.results.size() == 2);
  CHECK(r.results[0].values.at(0) == a);  // F(30) = 832040
  CHECK(r.results[1].values.at(0) == b);
  CHECK(a == 832040.0);
}

TEST_CASE("loop with tuple state: 2-D rotation", "[unit]") {
  const char* src = R"adl(
func f(theta: f64, x0: f64, y0: f64, T: i64) -> (f64, f64) {
  let c = cos(theta)
  let s = sin(theta)
  let (x, y) = loop[t < T] (u = x0, v = y0) {
    next (c * u - s * v, s * u + c * v)
  }
  return (x, y)
}
)adl";
  const double theta = 0.3, x0 = 1.25, y0 = -0.5;
  const int T = 12;
  double u = x0, v = y0;
  for (int t = 0; t < T; ++t) {
    double u2 = std::cos(theta) * u - std::sin(theta) * v;
    double v2 = std::sin(theta) * u + std::cos(theta) * v;
    u = u2;
    v = v2;
  }
  Run r = run_f(src, {scalar(theta), scalar(x0), scalar(y0), dense_i64({}, {T})});
  REQUIRE(r.results.size() == 2);
  const double radius = std::hypot(x0, y0);
  check_close(r.results[0].values.at(0), u, radius);
  check_close(r.results[1].values.at(0), v, radius);
  // and the closed form: a rotation by T * theta
  CHECK(std::abs(r.results[0].values.at(0) -
                 (std::cos(T * theta) * x0 - std::sin(T * theta) * y0)) < 1e-13 * T);
}

TEST_CASE("polynomial evaluation by Horner's rule in a loop", "[unit]") {
  const char* src = R"adl(
func f(c: f64[d], x: f64) -> f64 {
  return loop[t < d] (acc = 0) {
    next acc * x + c[d - 1 - t]
  }
}
)adl";
  std::vector<double> c = {1.5, -2, 0.25, 3, -0.5, 0.125};  // p(x) = sum_k c[k] x^k
  for (double x : {0.0, 0.75, -1.3, 2.0}) {
    double want = 0, scale = 0;
    for (std::size_t k = 0; k < c.size(); ++k) {
      want += c[k] * std::pow(x, static_cast<double>(k));
      scale += std::abs(c[k] * std::pow(x, static_cast<double>(k)));
    }
    INFO("x = " << x);
    check_close(only_scalar(run_f(src, {dense_f64({6}, c), scalar(x)})), want, scale);
  }
}

TEST_CASE("scan (+) gives prefix sums", "[unit]") {
  const char* src = R"adl(
func f(x: f64[n]) -> f64[n] {
  return scan[i < n] (+) x[i]
}
)adl";
  auto x = random_uniform({7}, 0.5, 1.5, 141).values;
  std::vector<double> want(7);
  double acc = 0;
  for (std::size_t i = 0; i < 7; ++i) want[i] = acc += x[i];
  Run r = run_f(src, {dense_f64({7}, x)});
  REQUIRE(r.results.size() == 1);
  check_dense(r.results[0], {7}, want);
}

TEST_CASE("scan (*), (max) and (min)", "[unit]") {
  const char* src = R"adl(
func f(x: f64[n]) -> (f64[n], f64[n], f64[n]) {
  let p = scan[i < n] (*) x[i]
  let hi = scan[j < n] (max) x[j]
  let lo = scan[k < n] (min) x[k] * 2
  return (p, hi, lo)
}
)adl";
  std::vector<double> x = {1.5, -0.5, 2, 0.25, -3, 4, 1};
  std::vector<double> prod(7), hi(7), lo(7);
  double p = 1, mx = -INFINITY, mn = INFINITY;
  for (std::size_t i = 0; i < 7; ++i) {
    p *= x[i];
    mx = std::max(mx, x[i]);
    mn = std::min(mn, 2 * x[i]);
    prod[i] = p;
    hi[i] = mx;
    lo[i] = mn;
  }
  Run r = run_f(src, {dense_f64({7}, x)});
  REQUIRE(r.results.size() == 3);
  check_dense(r.results[0], {7}, prod);
  check_dense(r.results[1], {7}, hi);
  check_dense(r.results[2], {7}, lo);
}

// ---------------------------------------------------------------- reductions and predicates

TEST_CASE("max and min reductions", "[unit]") {
  const char* src = R"adl(
func f(x: f64[n], A: f64[n, m]) -> (f64, f64, f64, f64) {
  let a = max[i < n] x[i]
  let b = min[i2 < n] x[i2]
  let c = max[i3 < n] abs(x[i3])
  let d = min[i4 < n, j4 < m] A[i4, j4] - x[i4]
  return (a, b, c, d)
}
)adl";
  const std::int64_t n = 6, m = 3;
  auto x = normal(n, 151);
  auto A = random_normal({n, m}, 0, 1, 152).values;
  double a = x[0], b = x[0], c = std::abs(x[0]), d = A[0] - x[0];
  for (std::int64_t i = 0; i < n; ++i) {
    a = std::max(a, x[i]);
    b = std::min(b, x[i]);
    c = std::max(c, std::abs(x[i]));
    for (std::int64_t j = 0; j < m; ++j) d = std::min(d, A[i * m + j] - x[i]);
  }
  Run r = run_f(src, {dense_f64({n}, x), dense_f64({n, m}, A)});
  REQUIRE(r.results.size() == 4);
  CHECK(r.results[0].values.at(0) == a);
  CHECK(r.results[1].values.at(0) == b);
  CHECK(r.results[2].values.at(0) == c);
  CHECK(r.results[3].values.at(0) == d);
}

TEST_CASE("triangular sums sum[i < n, j < i]", "[unit]") {
  const char* src = R"adl(
func f(x: f64[n]) -> (f64, f64) {
  let a = sum[i < n, j < i] x[i] * x[j]
  let b = sum[i2 < n, j2 < i2] f64(i2 - j2)
  return (a, b)
}
)adl";
  const std::int64_t n = 8;
  auto x = random_uniform({n}, 0.5, 1.5, 161).values;
  double a = 0, s = 0, s2 = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    for (std::int64_t j = 0; j < i; ++j) a += x[i] * x[j];
    s += x[i];
    s2 += x[i] * x[i];
  }
  Run r = run_f(src, {dense_f64({n}, x)});
  REQUIRE(r.results.size() == 2);
  check_close(r.results[0].values.at(0), a);
  check_close(r.results[0].values.at(0), (s * s - s2) / 2);  // the closed form
  CHECK(r.results[1].values.at(0) == static_cast<double>((n - 1) * n * (n + 1) / 6));
}

TEST_CASE("select with scalar comparisons: ReLU, abs and a guarded log", "[unit]") {
  const char* src = R"adl(
func f(x: f64[n]) -> (f64[n], f64[n], f64[n]) {
  let relu = gen[i < n] select(x[i] > 0, x[i], 0)
  let a = gen[j < n] select(x[j] < 0, -x[j], x[j])
  let l = gen[k < n] select(x[k] > 0, log(x[k]), -1)
  return (relu, a, l)
}
)adl";
  std::vector<double> x = {1.5, -2, 0, 0.25, -0.125, 3};
  std::vector<double> relu(6), a(6), l(6);
  std::int64_t positives = 0;
  for (std::size_t i = 0; i < 6; ++i) {
    relu[i] = x[i] > 0 ? x[i] : 0;
    a[i] = x[i] < 0 ? -x[i] : x[i];
    l[i] = x[i] > 0 ? std::log(x[i]) : -1;
    positives += x[i] > 0;
  }
  Run r = run_f(src, {dense_f64({6}, x)});
  REQUIRE(r.results.size() == 3);
  check_dense(r.results[0], {6}, relu);
  check_dense(r.results[1], {6}, a);
  check_dense(r.results[2], {6}, l);
  CHECK(r.counts.prims == positives);  // only the taken branch is evaluated
}

// ---------------------------------------------------------------- primitives and integers

TEST_CASE("unary primitives against <cmath>", "[unit]") {
  struct Case {
    const char* name;
    std::function<double(double)> ref;
    std::vector<double> inputs;
  };
  const std::vector<double> any = {-2.5, -1.3, -0.5, 0.0, 0.5, 0.7, 1.5, 2.5, 3.25};
  const std::vector<double> positive = {1e-3, 0.25, 0.5, 1.5, 2.5, 7.0, 30.0};
  const std::vector<Case> cases = {
      {"exp", [](double v) { return std::exp(v); }, any},
      {"log", [](double v) { return std::log(v); }, positive},
      {"log1p", [](double v) { return std::log1p(v); }, {-0.5, -1e-10, 0.0, 1e-10, 0.7, 3.0}},
      {"expm1", [](double v) { return std::expm1(v); }, {-2.0, -1e-10, 0.0, 1e-10, 0.7, 3.0}},
      {"sin", [](double v) { return std::sin(v); }, any},
      {"cos", [](double v) { return std::cos(v); }, any},
      {"tan", [](double v) { return std::tan(v); }, {-1.3, -0.5, 0.0, 0.5, 0.7, 1.5}},
      {"tanh", [](double v) { return std::tanh(v); }, any},
      {"sigmoid", [](double v) { return 1 / (1 + std::exp(-v)); }, any},
      {"sqrt", [](double v) { return std::sqrt(v); }, positive},
      {"abs", [](double v) { return std::abs(v); }, any},
      {"lgamma", [](double v) { return std::lgamma(v); }, {0.25, 0.5, 1.5, 2.5, 7.0, 30.0}},
      {"floor", [](double v) { return std::floor(v); }, any},
      {"round", [](double v) { return std::round(v); }, any},  // halves round away from zero
  };
  for (const Case& c : cases) {
    INFO("primitive " << c.name);
    std::string src =
        std::string("func f(x: f64[n]) -> f64[n] {\n  return gen[i < n] ") + c.name + "(x[i])\n}\n";
    const auto n = static_cast<std::int64_t>(c.inputs.size());
    std::vector<double> want;
    for (double v : c.inputs) want.push_back(c.ref(v));
    Run r = run_f(src, {dense_f64({n}, c.inputs)});
    REQUIRE(r.results.size() == 1);
    check_dense(r.results[0], {n}, want);
  }
}

TEST_CASE("binary primitives pow, min, max and pi against <cmath>", "[unit]") {
  const char* src = R"adl(
func f(x: f64[n], y: f64[n]) -> (f64[n], f64[n], f64[n], f64[n]) {
  let p = gen[i < n] pow(x[i], y[i])
  let lo = gen[j < n] min(x[j], y[j])
  let hi = gen[k < n] max(x[k], y[k])
  let c = gen[l < n] pi * x[l]
  return (p, lo, hi, c)
}
)adl";
  std::vector<double> x = {0.5, 2, 3.5, 1e-3, 7};
  std::vector<double> y = {2, -1.5, 0.5, 0.25, 3};
  std::vector<double> p, lo, hi, c;
  for (std::size_t i = 0; i < x.size(); ++i) {
    p.push_back(std::pow(x[i], y[i]));
    lo.push_back(std::min(x[i], y[i]));
    hi.push_back(std::max(x[i], y[i]));
    c.push_back(std::acos(-1.0) * x[i]);
  }
  Run r = run_f(src, {dense_f64({5}, x), dense_f64({5}, y)});
  REQUIRE(r.results.size() == 4);
  check_dense(r.results[0], {5}, p);
  check_dense(r.results[1], {5}, lo);
  check_dense(r.results[2], {5}, hi);
  check_dense(r.results[3], {5}, c);
}

TEST_CASE("integer / and % are floor division and modulo for negative operands", "[unit]") {
  const char* src = R"adl(
func f(x: f64[n]) -> (f64[n], f64[n], f64[n], i64[n]) {
  let q = gen[i < n] f64((i - 3) / 2)
  let r = gen[j < n] f64((j - 3) % 2)
  let rot = gen[k < n] x[(k - 3) % n]
  let qi = gen[l < n] (l - 7) / 3
  return (q, r, rot, qi)
}
)adl";
  const std::int64_t n = 8;
  auto x = normal(n, 171);
  std::vector<double> q(n), r(n), rot(n);
  std::vector<std::int64_t> qi(n);
  auto floor_div = [](std::int64_t a, std::int64_t b) {
    return static_cast<std::int64_t>(std::floor(static_cast<double>(a) / static_cast<double>(b)));
  };
  for (std::int64_t i = 0; i < n; ++i) {
    q[i] = static_cast<double>(floor_div(i - 3, 2));
    r[i] = static_cast<double>((i - 3) - 2 * floor_div(i - 3, 2));
    rot[i] = x[(i - 3) - n * floor_div(i - 3, n)];
    qi[i] = floor_div(i - 7, 3);
  }
  CHECK(q[0] == -2);  // (-3) / 2 floors to -2, not -1
  CHECK(r[0] == 1);   // (-3) % 2 is 1, not -1
  Run res = run_f(src, {dense_f64({n}, x)});
  REQUIRE(res.results.size() == 4);
  check_dense(res.results[0], {n}, q);
  check_dense(res.results[1], {n}, r);
  check_dense(res.results[2], {n}, rot);
  CHECK(res.results[3].elem == ElemType::I64);
  CHECK(res.results[3].ints == qi);
}

TEST_CASE("band and bxor on index expressions", "[unit]") {
  const char* src = R"adl(
func f(x: f64[n]) -> (f64[n], f64[n], f64[n]) {
  let a = gen[i < n] f64(band(i, 5))
  let b = gen[j < n] f64(bxor(j, 3))
  let c = gen[k < n] x[bxor(k, 1)]
  return (a, b, c)
}
)adl";
  const std::int64_t n = 8;
  auto x = normal(n, 181);
  std::vector<double> a(n), b(n), c(n);
  for (std::int64_t i = 0; i < n; ++i) {
    a[i] = static_cast<double>(i & 5);
    b[i] = static_cast<double>(i ^ 3);
    c[i] = x[i ^ 1];
  }
  Run r = run_f(src, {dense_f64({n}, x)});
  REQUIRE(r.results.size() == 3);
  check_dense(r.results[0], {n}, a);
  check_dense(r.results[1], {n}, b);
  check_dense(r.results[2], {n}, c);
}

TEST_CASE("conversions f64(i), i64(floor(x)) and i64(round(x))", "[unit]") {
  const char* src = R"adl(
func f(x: f64[n], table: f64[m]) -> (f64[n], f64[n], f64[n]) {
  let fl = gen[i < n] table[i64(floor(x[i]))]
  let rd = gen[j < n] table[i64(round(x[j]))]
  let w = gen[k < n] f64(k) * x[k]
  return (fl, rd, w)
}
)adl";
  std::vector<double> x = {0.2, 1.5, 2.7, 3.49, 0.5, 3.999};
  std::vector<double> table = {10, 20, 30, 40, 50};
  std::vector<double> fl, rd, w;
  for (std::size_t i = 0; i < x.size(); ++i) {
    fl.push_back(table[static_cast<std::size_t>(std::floor(x[i]))]);
    rd.push_back(table[static_cast<std::size_t>(std::round(x[i]))]);
    w.push_back(static_cast<double>(i) * x[i]);
  }
  Run r = run_f(src, {dense_f64({6}, x), dense_f64({5}, table)});
  REQUIRE(r.results.size() == 3);
  check_dense(r.results[0], {6}, fl);
  check_dense(r.results[1], {6}, rd);
  check_dense(r.results[2], {6}, w);
}

// ---------------------------------------------------------------- tuples, blocks, sizes

TEST_CASE("paper 000 TC19: a generated pair read through projections", "[unit]") {
  const char* src = R"adl(
func f(x: f64[n]) -> (f64, f64[n], f64[n]) {
  let z = gen[i < n] (x[i] * x[i], x[i] + 1)
  let s = sum[i2 < n] z[i2].0 * z[i2].1
  let first = gen[j < n] z[j].0
  let second = gen[k < n] z[k].1
  return (s, first, second)
}
)adl";
  auto x = random_uniform({6}, -1, 1, 191).values;
  double s = 0, scale = 0;
  std::vector<double> first, second;
  for (double e : x) {
    s += e * e * (e + 1);
    scale += std::abs(e * e * (e + 1));
    first.push_back(e * e);
    second.push_back(e + 1);
  }
  Run r = run_f(src, {dense_f64({6}, x)});
  REQUIRE(r.results.size() == 3);
  check_close(r.results[0].values.at(0), s, scale);
  check_dense(r.results[1], {6}, first);
  check_dense(r.results[2], {6}, second);
}

TEST_CASE("let blocks { let a = ..., a * a }", "[unit]") {
  const char* src = R"adl(
func f(x: f64[n], y: f64) -> (f64[n], f64) {
  let v = gen[i < n] { let a = x[i] + 1; let b = a * a; b - a }
  let s = { let c = y * 2; let d = { let e = c + 1; e * e }; d / c }
  return (v, s)
}
)adl";
  auto x = normal(5, 201);
  const double y = 1.25;
  std::vector<double> v;
  for (double e : x) v.push_back((e + 1) * (e + 1) - (e + 1));
  const double c = y * 2;
  const double want_s = (c + 1) * (c + 1) / c;
  Run r = run_f(src, {dense_f64({5}, x), scalar(y)});
  REQUIRE(r.results.size() == 2);
  check_dense(r.results[0], {5}, v);
  CHECK(r.results[1].values.at(0) == Approx(want_s).epsilon(kTol));
}

TEST_CASE("a declared size given through EvalOptions.sizes", "[unit]") {
  const char* src = R"adl(
func f[m](x: f64[n]) -> f64[m] {
  return gen[j < m] sum[i < n] x[i] * f64(j + 1)
}
)adl";
  auto x = random_uniform({5}, 0.5, 1.5, 211).values;
  double s = 0;
  for (double e : x) s += e;
  EvalOptions opts;
  opts.sizes["m"] = 4;
  Module module = parse_module(src, "declared_size.adl");
  Interpreter<double> interp(opts);
  auto out = interp.run_tensors(*module.entry("f"), {dense_f64({5}, x)});
  REQUIRE(out.size() == 1);
  check_dense(out[0], {4}, {s, 2 * s, 3 * s, 4 * s});
  auto sizes = interp.bound_sizes(*module.entry("f"));
  CHECK(sizes["m"] == 4);
  CHECK(sizes["n"] == 5);
}

// ---------------------------------------------------------------- other scalar types

TEST_CASE("multiprecision interpreter: exp(1) and sum of 1/k^2 to 40 digits", "[unit]") {
  const char* src = R"adl(
func f[n](x: f64) -> (f64, f64, f64) {
  let (term, taylor) = loop[k < n] (t0 = 1, a0 = 1) {
    let t1 = t0 * x / f64(k + 1)
    next (t1, a0 + t1)
  }
  let basel = sum[k2 < n] 1 / (f64(k2 + 1) * f64(k2 + 1))
  return (taylor, exp(x), basel)
}
)adl";
  // e, and sum_{k=1}^{50} 1/k^2 computed exactly as a fraction and printed to 60 digits.
  const mp50 e("2.71828182845904523536028747135266249775724709369995957496697");
  const mp50 basel50("1.62513273362152931066644452158029214244513195928021041923052");
  const mp50 tol("1e-40");
  Module module = parse_module(src, "mp.adl");
  EvalOptions opts;
  opts.sizes["n"] = 50;
  Interpreter<mp50> interp(opts);
  auto out = interp.run_tensors(*module.entry("f"), {convert_scalar<mp50>(scalar(1.0))});
  REQUIRE(out.size() == 3);
  using boost::multiprecision::abs;
  INFO("taylor " << out[0].values.at(0).str(50));
  CHECK(abs(out[0].values.at(0) - e) < tol * e);
  INFO("exp " << out[1].values.at(0).str(50));
  CHECK(abs(out[1].values.at(0) - e) < tol * e);
  INFO("basel " << out[2].values.at(0).str(50));
  CHECK(abs(out[2].values.at(0) - basel50) < tol * basel50);
}

TEST_CASE("float interpreter on a small program", "[unit]") {
  const char* src = R"adl(
func f(x: f64[n], y: f64[n]) -> (f64, f64[n]) {
  let d = sum[i < n] x[i] * y[i]
  let t = gen[j < n] tanh(x[j]) + y[j]
  return (d, t)
}
)adl";
  auto x = random_uniform({6}, 0.5, 1.5, 221).values;
  auto y = random_uniform({6}, 0.5, 1.5, 222).values;
  std::vector<float> xf(x.begin(), x.end()), yf(y.begin(), y.end());
  float d = 0;
  std::vector<float> t;
  for (std::size_t i = 0; i < xf.size(); ++i) {
    d += xf[i] * yf[i];
    t.push_back(std::tanh(xf[i]) + yf[i]);
  }
  Module module = parse_module(src, "float.adl");
  Interpreter<float> interp;
  auto out = interp.run_tensors(*module.entry("f"), {convert_scalar<float>(dense_f64({6}, x)),
                                                     convert_scalar<float>(dense_f64({6}, y))});
  REQUIRE(out.size() == 2);
  CHECK(out[0].values.at(0) == Approx(d).epsilon(1e-6));
  REQUIRE(out[1].values.size() == t.size());
  for (std::size_t i = 0; i < t.size(); ++i) CHECK(out[1].values[i] == Approx(t[i]).epsilon(1e-6));
}

// ---------------------------------------------------------------- paper 000 cost model (Fig. 6)

TEST_CASE("paper 000 Fig. 6 cost: dot product costs n muls and n - 1 adds", "[unit]") {
  const char* src = R"adl(
func f(x: f64[n], y: f64[n]) -> f64 {
  return sum[i < n] x[i] * y[i]
}
)adl";
  const std::int64_t n = 10;
  Run r = run_f(src, {dense_f64({n}, normal(n, 231)), dense_f64({n}, normal(n, 232))});
  CHECK(r.counts.muls == n);
  CHECK(r.counts.adds == n - 1);
  CHECK(r.counts.divs == 0);
  CHECK(r.counts.prims == 0);
  CHECK(r.counts.paper_cost() == 2 * n - 1);
}

TEST_CASE("paper 000 Fig. 6 cost: TC1 trace of diag costs n - 1 adds and no muls", "[unit]") {
  const char* once = R"adl(
func f(x: f64[n]) -> f64 {
  let A = gen[i < n, j < n] [i == j] * x[i]
  return sum[i2 < n] A[i2, i2]
}
)adl";
  const char* thrice = R"adl(
func f(x: f64[n]) -> f64 {
  let A = gen[i < n, j < n] [i == j] * x[i]
  let t = sum[i < n] A[i, i]
  return t + t + t
}
)adl";
  const std::int64_t n = 6;
  Run r = run_f(once, {dense_f64({n}, normal(n, 241))});
  CHECK(r.counts.adds == n - 1);
  CHECK(r.counts.muls == 0);
  CHECK(r.counts.paper_cost() == n - 1);
  Run r3 = run_f(thrice, {dense_f64({n}, normal(n, 241))});
  CHECK(r3.counts.adds == n - 1 + 2);  // the let-bound trace is computed once
  CHECK(r3.counts.muls == 0);
}

TEST_CASE("paper 000 Fig. 6 cost: [p] * a + [q] * b costs 1 only where both hold", "[unit]") {
  const char* src = R"adl(
func f(x: f64[n], y: f64[n]) -> f64[n] {
  return gen[i < n] [i < 4] * x[i] + [i >= 2] * y[i]
}
)adl";
  const std::int64_t n = 7;
  auto x = normal(n, 251), y = normal(n, 252);
  std::vector<double> want(n);
  std::int64_t both = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    want[i] = (i < 4 ? x[i] : 0.0) + (i >= 2 ? y[i] : 0.0);
    both += (i < 4 && i >= 2);
  }
  Run r = run_f(src, {dense_f64({n}, x), dense_f64({n}, y)});
  REQUIRE(r.results.size() == 1);
  check_dense(r.results[0], {n}, want);
  CHECK(r.counts.adds == both);  // i = 2, 3
  CHECK(r.counts.muls == 0);
}

TEST_CASE("paper 000 Fig. 6 cost: zero-padded convolution pays only for in-range terms", "[unit]") {
  const char* src = R"adl(
func f(x: f64[n], c: f64[m]) -> f64[n] {
  return gen[i < n] sum[j < m] [0 <= i - j < n] * x[i - j] * c[j]
}
)adl";
  const std::int64_t n = 7, m = 3;
  std::int64_t muls = 0, adds = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    std::int64_t terms = std::min(i + 1, m);  // j <= i
    muls += terms;
    adds += terms - 1;
  }
  Run r = run_f(src, {dense_f64({n}, normal(n, 261)), dense_f64({m}, normal(m, 262))});
  CHECK(r.counts.muls == muls);
  CHECK(r.counts.adds == adds);
}

TEST_CASE("paper 000 Fig. 6 cost: matmul, nested and triangular sums", "[unit]") {
  const char* matmul = R"adl(
func f(A: f64[n, k], B: f64[k, m]) -> f64[n, m] {
  return gen[i < n, j < m] sum[l < k] A[i, l] * B[l, j]
}
)adl";
  const char* nested = R"adl(
func f(A: f64[n, m]) -> f64 {
  return sum[i < n] sum[j < m] A[i, j]
}
)adl";
  const char* triangle = R"adl(
func f(x: f64[n]) -> f64 {
  return sum[i < n, j < i] x[i] * x[j]
}
)adl";
  const std::int64_t n = 3, k = 4, m = 5;
  Run r = run_f(matmul, {random_normal({n, k}, 0, 1, 271), random_normal({k, m}, 0, 1, 272)});
  CHECK(r.counts.muls == n * m * k);
  CHECK(r.counts.adds == n * m * (k - 1));
  Run rn = run_f(nested, {random_normal({n, m}, 0, 1, 273)});
  CHECK(rn.counts.adds == n * m - 1);  // a sum of nm non-zero terms
  CHECK(rn.counts.muls == 0);
  const std::int64_t len = 6, terms = len * (len - 1) / 2;
  Run rt = run_f(triangle, {random_normal({len}, 0, 1, 274)});
  CHECK(rt.counts.muls == terms);
  CHECK(rt.counts.adds == terms - 1);
}

TEST_CASE("op counts: max over n points costs n - 1 comparisons", "[unit]") {
  const char* src = R"adl(
func f(x: f64[n]) -> f64 {
  return max[i < n] x[i]
}
)adl";
  const std::int64_t n = 9;
  Run r = run_f(src, {dense_f64({n}, normal(n, 281))});
  CHECK(r.counts.compares == n - 1);
  CHECK(r.counts.adds == 0);
  CHECK(r.counts.paper_cost() == 0);
}

}  // namespace
}  // namespace adlab::ir
