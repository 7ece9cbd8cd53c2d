// Google Benchmark: the cpu backend against a copy loop's bandwidth, Eigen and hand-written C++
// (issue 10 performance targets; ratios are taken within one run of this binary).
#include <benchmark/benchmark.h>
#include <omp.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include "backends/backend.h"
#include "ir/syntax/parser.h"
#include "ir/tensor/random.h"
#include "reports/bench/bench_checks.h"
#include "reports/bench/bench_main.h"

using namespace adlab;

namespace {

const char* kPrograms = R"(func dot(x: f64[n], y: f64[n]) -> f64 {
  return sum[i < n] x[i] * y[i]
}

func axpy(x: f64[n], y: f64[n]) -> f64[n] {
  return gen[i < n] 2 * x[i] + y[i]
}

func matmul(A: f64[n, p], B: f64[p, m]) -> f64[n, m] {
  return gen[i < n, j < m] sum[k < p] A[i, k] * B[k, j]
}

func matmul_loops(A: f64[n, p], B: f64[p, m]) -> f64[n, m] {
  return gen[i < n, j < m] sum[k < p] A[i, k] * B[k, j] + 0 * A[i, 0]
}
)";

std::unique_ptr<backends::Executable> compiled(const std::string& name) {
  static ir::Module m = ir::parse_module(kPrograms, "bench_cpu.adl");
  return backends::BackendRegistry::instance().get("cpu").compile(m.entry(name),
                                                                  backends::Options{});
}

std::unique_ptr<backends::Executable> compiled_file(const std::string& path,
                                                    const std::string& name) {
  static std::map<std::string, ir::Module> modules;  // parsed once per file
  auto it = modules.find(path);
  if (it == modules.end()) it = modules.emplace(path, ir::parse_file(path)).first;
  return backends::BackendRegistry::instance().get("cpu").compile(it->second.entry(name),
                                                                  backends::Options{});
}

ir::Tensor vec(std::int64_t n, std::uint64_t seed) {
  return ir::random_normal({n}, 0, 1, seed);
}

// The reference bandwidth: read x, write y (16 bytes per element).
void BM_CopyLoop(benchmark::State& state) {
  omp_set_num_threads(static_cast<int>(state.range(1)));
  const std::int64_t n = state.range(0);
  auto x = vec(n, 1);
  std::vector<double> y(static_cast<std::size_t>(n));
  for (auto _ : state) {
    const double* src = x.values.data();
    double* dst = y.data();
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < n; ++i) dst[i] = src[i];
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * n * 16);
}

// 2 x + y, exactly (2 x is exact, so a fused multiply-add rounds the same).
std::string axpy_error(const std::vector<ir::Tensor>& in, const std::vector<ir::Tensor>& out) {
  if (out.size() != 1 || out[0].values.size() != in[0].values.size()) return "wrong result shape";
  for (std::size_t i = 0; i < in[0].values.size(); ++i)
    if (out[0].values[i] != 2 * in[0].values[i] + in[1].values[i])
      return "wrong axpy entry " + std::to_string(i);
  return "";
}

void BM_CpuDot(benchmark::State& state) {
  omp_set_num_threads(static_cast<int>(state.range(1)));
  const std::int64_t n = state.range(0);
  auto exe = compiled("dot");
  std::vector<ir::Tensor> in = {vec(n, 1), vec(n, 2)}, out;
  exe->run_into(in, out);  // allocates (and touches) the result once, as y of the copy loop
  for (auto _ : state) {
    exe->run_into(in, out);
    benchmark::DoNotOptimize(out[0].values.data());
  }
  state.SetBytesProcessed(state.iterations() * n * 16);
  double bound = 0, want = bench::dot_reference(in[0].values, in[1].values, bound);
  if (!(std::fabs(out[0].values[0] - want) <= bound)) bench::fail(state, "wrong dot product");
}

// Bytes counted: read x and y, write the result (24 per element). run_into: the unit writes
// into adlab's result tensor, reused across runs as the copy loop reuses y.
void BM_CpuAxpy(benchmark::State& state) {
  omp_set_num_threads(static_cast<int>(state.range(1)));
  const std::int64_t n = state.range(0);
  auto exe = compiled("axpy");
  std::vector<ir::Tensor> in = {vec(n, 1), vec(n, 2)}, out;
  exe->run_into(in, out);  // allocates (and touches) the result once, as y of the copy loop
  for (auto _ : state) {
    exe->run_into(in, out);
    benchmark::DoNotOptimize(out[0].values.data());
  }
  state.SetBytesProcessed(state.iterations() * n * 24);
  if (auto why = axpy_error(in, out); !why.empty()) bench::fail(state, why);
}

// The same through run(): a fresh 80 MB result per run (allocation and first-touch page faults
// included; no copy).
void BM_CpuAxpyFresh(benchmark::State& state) {
  omp_set_num_threads(static_cast<int>(state.range(1)));
  const std::int64_t n = state.range(0);
  auto exe = compiled("axpy");
  std::vector<ir::Tensor> in = {vec(n, 1), vec(n, 2)}, out;
  for (auto _ : state) benchmark::DoNotOptimize(out = exe->run(in));
  state.SetBytesProcessed(state.iterations() * n * 24);
  if (auto why = axpy_error(in, out); !why.empty()) bench::fail(state, why);
}

ir::Tensor mat(std::int64_t r, std::int64_t c, std::uint64_t seed) {
  return ir::random_normal({r, c}, 0, 1, seed);
}

void BM_CpuMatmul(benchmark::State& state) {
  omp_set_num_threads(static_cast<int>(state.range(1)));
  Eigen::setNbThreads(static_cast<int>(state.range(1)));  // the contraction kernel is Eigen's
  const std::int64_t n = state.range(0);
  auto exe = compiled(state.range(2) ? "matmul_loops" : "matmul");
  std::vector<ir::Tensor> in = {mat(n, n, 1), mat(n, n, 2)}, out;
  exe->run_into(in, out);  // allocates (and touches) the result once, as y of the copy loop
  for (auto _ : state) {
    exe->run_into(in, out);
    benchmark::DoNotOptimize(out[0].values.data());
  }
  state.SetItemsProcessed(state.iterations() * 2 * n * n * n);
  using M = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  M c = Eigen::Map<const M>(in[0].values.data(), n, n) *
        Eigen::Map<const M>(in[1].values.data(), n, n);
  ir::Tensor want = out.at(0);
  std::copy(c.data(), c.data() + n * n, want.values.begin());
  if (auto why = bench::apart_from(out, {want}, 1e-12, "Eigen's product"); !why.empty())
    bench::fail(state, why);
}

void BM_EigenMatmul(benchmark::State& state) {
  Eigen::setNbThreads(static_cast<int>(state.range(1)));
  const std::int64_t n = state.range(0);
  using M = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  M a = M::Random(n, n), b = M::Random(n, n), c(n, n);
  for (auto _ : state) {
    c.noalias() = a * b;
    benchmark::DoNotOptimize(c.data());
  }
  state.SetItemsProcessed(state.iterations() * 2 * n * n * n);
}

// GMM objective (suites/papers/accelerate/gmm.adl), d = 64, K = 100, N = 10,000.
struct Gmm {
  std::int64_t D = 64, K = 100, N = 10000;
  std::vector<ir::Tensor> in;
  Gmm() {
    std::int64_t L = D + D * (D - 1) / 2;
    in = {vec(K, 1),    mat(K, D, 2), ir::random_normal({K, L}, 0, 0.1, 3),
          mat(N, D, 4), ir::Tensor{}, ir::Tensor{}};
    in[4].values = {1.5};
    in[5].values = {2.0};
  }
};

double logsumexp(const double* v, std::int64_t k) {
  double mx = v[0];
  for (std::int64_t i = 1; i < k; ++i) mx = mx < v[i] ? v[i] : mx;
  double s = 0;
  for (std::int64_t i = 0; i < k; ++i) s += std::exp(v[i] - mx);
  return std::log(s) + mx;
}

// The same formula written by hand (the thesis's icf layout), OpenMP over the data points.
double gmm_by_hand(const Gmm& g) {
  const std::int64_t D = g.D, K = g.K, N = g.N, L = D + D * (D - 1) / 2;
  const double *alphas = g.in[0].values.data(), *means = g.in[1].values.data(),
               *icf = g.in[2].values.data(), *x = g.in[3].values.data();
  const double wg = g.in[4].values[0], wm = g.in[5].values[0];
  std::vector<double> qdiag(static_cast<std::size_t>(K * D)), sumq(static_cast<std::size_t>(K));
  for (std::int64_t k = 0; k < K; ++k) {
    double s = 0;
    for (std::int64_t d = 0; d < D; ++d) {
      qdiag[static_cast<std::size_t>(k * D + d)] = std::exp(icf[k * L + d]);
      s += icf[k * L + d];
    }
    sumq[static_cast<std::size_t>(k)] = s;
  }
  double slse = 0;
#pragma omp parallel for schedule(static) reduction(+ : slse)
  for (std::int64_t n = 0; n < N; ++n) {
    std::vector<double> xc(static_cast<std::size_t>(D)), inner(static_cast<std::size_t>(K));
    for (std::int64_t k = 0; k < K; ++k) {
      for (std::int64_t d = 0; d < D; ++d)
        xc[static_cast<std::size_t>(d)] = x[n * D + d] - means[k * D + d];
      double sq = 0;
      for (std::int64_t r = 0; r < D; ++r) {
        double q = qdiag[static_cast<std::size_t>(k * D + r)] * xc[static_cast<std::size_t>(r)];
        for (std::int64_t c = 0; c < r; ++c)
          q += icf[k * L + D + (D * (D - 1) / 2 - (D - 1 - c) * (D - c) / 2 + r - c - 1)] *
               xc[static_cast<std::size_t>(c)];
        sq += q * q;
      }
      inner[static_cast<std::size_t>(k)] = alphas[k] + sumq[static_cast<std::size_t>(k)] - 0.5 * sq;
    }
    slse += logsumexp(inner.data(), K);
  }
  double c1 = 0.5 * static_cast<double>(N * D) * std::log(2 * M_PI);
  double np = static_cast<double>(D) + wm + 1;
  double lmg = 0.25 * static_cast<double>(D * (D - 1)) * std::log(M_PI);
  for (std::int64_t j = 0; j < D; ++j) lmg += std::lgamma(0.5 * np - 0.5 * static_cast<double>(j));
  double c2 = static_cast<double>(K) *
              (np * static_cast<double>(D) * (std::log(wg) - 0.5 * std::log(2)) - lmg);
  double prior = 0;
  for (std::int64_t k = 0; k < K; ++k) {
    double a = 0, b = 0;
    for (std::int64_t d = 0; d < D; ++d)
      a += qdiag[static_cast<std::size_t>(k * D + d)] * qdiag[static_cast<std::size_t>(k * D + d)];
    for (std::int64_t l = 0; l < D * (D - 1) / 2; ++l) b += icf[k * L + D + l] * icf[k * L + D + l];
    prior += 0.5 * wg * wg * (a + b) - wm * sumq[static_cast<std::size_t>(k)];
  }
  return -c1 + slse - static_cast<double>(N) * logsumexp(alphas, K) + prior - c2;
}

void BM_CpuGmm(benchmark::State& state) {
  omp_set_num_threads(static_cast<int>(state.range(0)));
  static Gmm g;
  auto exe = compiled_file(std::string(ADLAB_SOURCE_DIR) + "/suites/papers/accelerate/gmm.adl",
                           "gmm_objective");
  double r = 0;
  std::vector<ir::Tensor> out;
  for (auto _ : state) {
    exe->run_into(g.in, out);
    r = out[0].values[0];
  }
  const double apart = std::fabs(r - gmm_by_hand(g)) / std::fabs(r);
  state.counters["relative_to_hand"] = apart;
  if (!(apart <= 1e-10)) bench::fail(state, "GMM objective apart from the hand-written one");
}

void BM_HandGmm(benchmark::State& state) {
  omp_set_num_threads(static_cast<int>(state.range(0)));
  static Gmm g;
  for (auto _ : state) benchmark::DoNotOptimize(gmm_by_hand(g));
}

// BA reprojection and weight errors (suites/papers/accelerate/ba.adl, the ADBench formulas):
// C = 100 cameras, P = 10,000 points, O = 100,000 observations, points in front of the cameras.
struct Ba {
  std::int64_t C = 100, P = 10000, O = 100000;
  std::vector<ir::Tensor> in;
  Ba() {
    ir::Tensor cams = ir::random_normal({C, 11}, 0, 0.1, 11);
    for (std::int64_t c = 0; c < C; ++c) {
      double* cam = cams.values.data() + c * 11;
      cam[6] = 1 + 0.1 * cam[6];  // focal length near 1
    }
    ir::Tensor pts = ir::random_normal({P, 3}, 0, 1, 12);
    for (std::int64_t p = 0; p < P; ++p) pts.values[static_cast<std::size_t>(p * 3 + 2)] += 10;
    in = {cams,
          pts,
          ir::random_uniform({O}, 0.5, 1.5, 13),
          ir::random_normal({O, 2}, 0, 0.1, 14),
          ir::random_int({O}, 0, C, 15),
          ir::random_int({O}, 0, P, 16)};
  }
};

// ADBench's computeReprojError and computeZachWeightError written by hand (rodrigues with the
// theta = 0 branch, p2e, radial distortion, focal length and principal point).
void ba_by_hand(const Ba& b, std::vector<double>& reproj, std::vector<double>& werrs) {
  const double *cams = b.in[0].values.data(), *pts = b.in[1].values.data(),
               *w = b.in[2].values.data(), *feats = b.in[3].values.data();
  const std::int64_t *ci = b.in[4].ints.data(), *pi = b.in[5].ints.data();
  reproj.resize(static_cast<std::size_t>(2 * b.O));
  werrs.resize(static_cast<std::size_t>(b.O));
#pragma omp parallel for schedule(static)
  for (std::int64_t o = 0; o < b.O; ++o) {
    const double* cam = cams + ci[o] * 11;
    const double* X = pts + pi[o] * 3;
    double xc[3], xr[3];
    for (int e = 0; e < 3; ++e) xc[e] = X[e] - cam[3 + e];
    const double* r = cam;
    double sqtheta = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
    if (sqtheta == 0) {
      for (int e = 0; e < 3; ++e)
        xr[e] = xc[e] + (r[(e + 1) % 3] * xc[(e + 2) % 3] - r[(e + 2) % 3] * xc[(e + 1) % 3]);
    } else {
      double theta = std::sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
      double v[3] = {r[0] / theta, r[1] / theta, r[2] / theta};
      double vdp = v[0] * xc[0] + v[1] * xc[1] + v[2] * xc[2];
      double c = std::cos(theta), s = std::sin(theta);
      for (int e = 0; e < 3; ++e) {
        double vp = v[(e + 1) % 3] * xc[(e + 2) % 3] - v[(e + 2) % 3] * xc[(e + 1) % 3];
        xr[e] = xc[e] * c + vp * s + v[e] * (vdp * (1 - c));
      }
    }
    double u[2] = {xr[0] / xr[2], xr[1] / xr[2]};
    double lensq = u[0] * u[0] + u[1] * u[1];
    double dist = 1 + cam[9] * lensq + cam[10] * lensq * lensq;
    for (int e = 0; e < 2; ++e)
      reproj[static_cast<std::size_t>(2 * o + e)] =
          w[o] * (u[e] * dist * cam[6] + cam[7 + e] - feats[2 * o + e]);
    werrs[static_cast<std::size_t>(o)] = 1 - w[o] * w[o];
  }
}

void BM_CpuBa(benchmark::State& state) {
  omp_set_num_threads(static_cast<int>(state.range(0)));
  static Ba b;
  auto exe = compiled_file(std::string(ADLAB_SOURCE_DIR) + "/suites/papers/accelerate/ba.adl",
                           "ba_objective");
  std::vector<ir::Tensor> out;
  exe->run_into(b.in, out);
  for (auto _ : state) {
    exe->run_into(b.in, out);
    benchmark::DoNotOptimize(out[0].values.data());
  }
  std::vector<double> reproj, werrs;
  ba_by_hand(b, reproj, werrs);
  if (out.size() != 2 || out[0].values.size() != reproj.size() ||
      out[1].values.size() != werrs.size())
    return bench::fail(state, "BA results have the wrong sizes");
  double worst = 0;
  for (std::size_t k = 0; k < reproj.size(); ++k)
    worst = bench::worst_of(
        worst, std::fabs(out[0].values[k] - reproj[k]) / std::max(1e-300, std::fabs(reproj[k])));
  for (std::size_t k = 0; k < werrs.size(); ++k)
    worst = bench::worst_of(
        worst, std::fabs(out[1].values[k] - werrs[k]) / std::max(1e-300, std::fabs(werrs[k])));
  state.counters["relative_to_hand"] = worst;
  if (!(worst <= 1e-10)) bench::fail(state, "BA errors apart from the hand-written ones");
}

void BM_HandBa(benchmark::State& state) {
  omp_set_num_threads(static_cast<int>(state.range(0)));
  static Ba b;
  std::vector<double> reproj, werrs;
  for (auto _ : state) {
    ba_by_hand(b, reproj, werrs);
    benchmark::DoNotOptimize(reproj.data());
  }
}

}  // namespace

BENCHMARK(BM_CopyLoop)
    ->Args({10000000, 1})
    ->Args({10000000, 2})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_CpuDot)
    ->Args({10000000, 1})
    ->Args({10000000, 2})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_CpuAxpy)
    ->Args({10000000, 1})
    ->Args({10000000, 2})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_CpuAxpyFresh)
    ->Args({10000000, 1})
    ->Args({10000000, 2})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_EigenMatmul)
    ->Args({512, 1})
    ->Args({512, 2})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_CpuMatmul)
    ->Args({512, 1, 0})
    ->Args({512, 2, 0})
    ->Args({512, 1, 1})
    ->Args({512, 2, 1})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_HandGmm)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_CpuGmm)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_HandBa)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_CpuBa)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
ADLAB_BENCHMARK_MAIN()
