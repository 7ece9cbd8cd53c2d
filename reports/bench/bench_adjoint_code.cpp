// Google Benchmark: generated adjoint code against the tape on paper 003 section 7's benchmarks
// (issue 6, decisions 120 and 137: "the route to < 10 is the compiled CPU backend emitting adjoint
// code"). For dot (n = 10^6), rotate_vec_by_quat (full 3x7 Jacobian) and neural (50-100-50), in
// one run: the hand-written C++ primal, the primal compiled on the cpu backend, the scatter
// strategy's derivative compiled on the cpu backend (adjoint code), and dualrev through the cpu
// backend (the unit with T = Dual records the tape). Every derivative is checked against a known
// answer; a wrong one skips its benchmark with an error. One OpenMP thread throughout: the hand
// primal and dualrev's unit run on one core, so the generated code does too.
#include <benchmark/benchmark.h>
#include <omp.h>

#include <chrono>
#include <cmath>
#include <map>
#include <string>

#include "ad/strategy.h"
#include "backends/backend.h"
#include "ir/syntax/parser.h"
#include "reports/bench/bench_checks.h"
#include "reports/bench/bench_main.h"
#include "reports/bench/paper003_checks.h"
#include "reports/bench/paper003_primals.h"

using namespace adlab;
namespace p003 = adlab::bench::paper003;

namespace {

// ---- the programs and their inputs (paper 003's bench/Main.hs values) ----

struct Program {
  ir::FunctionPtr f;
  std::vector<ir::Tensor> inputs;
};

ir::Tensor tensor(std::vector<std::int64_t> shape, std::vector<double> values) {
  ir::Tensor t;
  t.shape = std::move(shape);
  t.values = std::move(values);
  return t;
}

ir::FunctionPtr suite_function(const std::string& file, const std::string& name) {
  static std::map<std::string, ir::Module> modules;  // parsed once per file
  const std::string path = std::string(ADLAB_SOURCE_DIR) + "/suites/papers/dualrev/" + file;
  auto it = modules.find(path);
  if (it == modules.end()) it = modules.emplace(path, ir::parse_file(path)).first;
  return it->second.entry(name);
}

constexpr std::int64_t kDotN = 1000000;

std::vector<double> iota(std::int64_t n, double start, double step) {
  std::vector<double> v(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = start + step * static_cast<double>(i);
  return v;
}

// x = 1, 2, 3, ...; y = 3, 5, 7, ... (paper 003: [1..] and [3, 5..])
const Program& dot_program() {
  static const Program p{suite_function("dotprod.adl", "dotprod"),
                         {tensor({kDotN}, iota(kDotN, 1, 1)), tensor({kDotN}, iota(kDotN, 3, 2))}};
  return p;
}

// v = (1, 2, 3), q = (4, 5, 6, 7): u = (4, 5, 6), s = 7 (the suite manifest's point).
const Program& rotate_program() {
  static const Program p{suite_function("rotvecquat.adl", "rotate_vec_by_quat"),
                         {tensor({3}, {1, 2, 3}), tensor({4}, {4, 5, 6, 7})}};
  return p;
}
// The same point in bench_dualrev's layout a = (v, s, u).
const double kRotateHandInput[7] = {1, 2, 3, 7, 4, 5, 6};

// w1, b1, w2, b2, x cut from neural_params() (weights sin(i + j), vectors sin(0.41 i)).
const Program& neural_program() {
  static const Program p = [] {
    auto all = p003::neural_params();
    Program q{suite_function("neural.adl", "neural"), {}};
    std::size_t at = 0;
    auto take = [&](std::vector<std::int64_t> shape) {
      std::int64_t n = 1;
      for (auto d : shape) n *= d;
      std::vector<double> v(
          all.begin() + static_cast<std::ptrdiff_t>(at),
          all.begin() + static_cast<std::ptrdiff_t>(at + static_cast<std::size_t>(n)));
      at += static_cast<std::size_t>(n);
      q.inputs.push_back(tensor(std::move(shape), std::move(v)));
    };
    take({p003::kH1, p003::kIn});
    take({p003::kH1});
    take({p003::kH2, p003::kH1});
    take({p003::kH2});
    take({p003::kIn});
    return q;
  }();
  return p;
}

// ---- the executables, built once (the cpu backend caches its units on disk) ----

std::unique_ptr<backends::Executable> cpu_primal(const Program& p) {
  return backends::BackendRegistry::instance().get("cpu").compile(p.f, backends::Options{});
}

std::unique_ptr<backends::Executable> cpu_derivative_or_throw(const std::string& strategy,
                                                              const Program& p, ad::Mode mode) {
  const ad::Strategy& s = *ad::StrategyRegistry::instance().resolve(strategy).first;
  ad::Derivative d = s.differentiate(p.f, ad::Request{{}, mode, ""});
  return d.executable("cpu", backends::Options{});
}

// Null (and the benchmark skipped with the reason) when the strategy or the backend declines.
std::unique_ptr<backends::Executable> cpu_derivative(benchmark::State& st,
                                                     const std::string& strategy, const Program& p,
                                                     ad::Mode mode) {
  try {
    return cpu_derivative_or_throw(strategy, p, mode);
  } catch (const std::exception& e) {
    bench::fail(st, strategy + " on cpu: " + e.what());
    return nullptr;
  }
}

// ---- timing: ns per iteration of each benchmark's latest run, for the ratio counters ----

std::map<std::string, double>& latest_ns() {
  static std::map<std::string, double> m;
  return m;
}

template <class Body>
void timed(benchmark::State& st, const std::string& key, Body&& body) {
  omp_set_num_threads(1);
  body();  // untimed warm-up: result buffers allocated, pages touched
  auto t0 = std::chrono::steady_clock::now();
  for (auto _ : st) body();
  double ns =
      std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
  latest_ns()[key] =
      ns / static_cast<double>(std::max<benchmark::IterationCount>(st.iterations(), 1));
}

// Ratios against the primals timed earlier in this run (hand C++ and cpu-compiled).
void ratio_counters(benchmark::State& st, const std::string& fn, const std::string& key) {
  auto& m = latest_ns();
  if (m.count(fn + "/cpp") && m.count(key) && key != fn + "/cpp")
    st.counters["ratio_to_cpp_primal"] = m[key] / m[fn + "/cpp"];
  if (m.count(fn + "/cpu") && m.count(key) && key != fn + "/cpu")
    st.counters["ratio_to_cpu_primal"] = m[key] / m[fn + "/cpu"];
}

std::string tensor_layout(const std::vector<ir::Tensor>& out) {
  std::string s = std::to_string(out.size()) + " results:";
  for (const auto& t : out) s += " " + std::to_string(t.values.size());
  return s;
}

// ---- dot product, n = 10^6: gradient (y, x) ----

void BM_DotCppPrimal(benchmark::State& st) {
  auto x = iota(kDotN, 1, 1), y = iota(kDotN, 3, 2);
  double r = 0;
  timed(st, "dot/cpp", [&] {
    benchmark::DoNotOptimize(x.data());
    r = p003::dot(x, y);
    benchmark::DoNotOptimize(r);
  });
  ratio_counters(st, "dot", "dot/cpp");
}

// The sum of i (2i + 1) for i = 1..n, n (n + 1) (4n + 5) / 6, exceeds 2^53: checked relatively.
bool dot_value_ok(double r) {
  const double n = static_cast<double>(kDotN);
  const double exact = n * (n + 1) * (4 * n + 5) / 6;
  return std::fabs(r - exact) <= 1e-12 * exact;
}

void BM_DotCpuPrimal(benchmark::State& st) {
  const Program& p = dot_program();
  auto exe = cpu_primal(p);
  std::vector<ir::Tensor> out;
  timed(st, "dot/cpu", [&] {
    exe->run_into(p.inputs, out);
    benchmark::DoNotOptimize(out[0].values.data());
  });
  ratio_counters(st, "dot", "dot/cpu");
  if (!dot_value_ok(out[0].values[0])) bench::fail(st, "wrong dot product");
}

// (result, d/dx, d/dy) with d/dx = y and d/dy = x exactly.
bool dot_gradient_ok(const std::vector<ir::Tensor>& out, const Program& p) {
  return out.size() == 3 && dot_value_ok(out[0].values[0]) && out[1].values == p.inputs[1].values &&
         out[2].values == p.inputs[0].values;
}

void dot_gradient(benchmark::State& st, const std::string& strategy) {
  const Program& p = dot_program();
  auto exe = cpu_derivative(st, strategy, p, ad::Mode::Gradient);
  if (!exe) return;
  std::vector<ir::Tensor> out;
  const std::string key = "dot/" + strategy;
  timed(st, key, [&] {
    exe->run_into(p.inputs, out);
    benchmark::DoNotOptimize(out.data());
  });
  ratio_counters(st, "dot", key);
  if (!dot_gradient_ok(out, p)) bench::fail(st, "wrong gradient: " + tensor_layout(out));
}
void BM_DotScatterCpu(benchmark::State& st) {
  dot_gradient(st, "scatter");
}
void BM_DotDualrevCpu(benchmark::State& st) {
  dot_gradient(st, "dualrev");
}

// ---- rotate_vec_by_quat: the full 3x7 Jacobian ----

const double kRotateValue[3] = {270, 180, 342};  // the manifest's primal values

void BM_RotateCppPrimal(benchmark::State& st) {
  double a[7], r[3];
  std::copy(kRotateHandInput, kRotateHandInput + 7, a);
  timed(st, "rotate/cpp", [&] {
    benchmark::DoNotOptimize(a);
    p003::rotate_vec_by_quat(a, r);
    benchmark::DoNotOptimize(r);
  });
  ratio_counters(st, "rotate", "rotate/cpp");
  if (r[0] != kRotateValue[0] || r[1] != kRotateValue[1] || r[2] != kRotateValue[2])
    bench::fail(st, "wrong rotation");
}

void BM_RotateCpuPrimal(benchmark::State& st) {
  const Program& p = rotate_program();
  auto exe = cpu_primal(p);
  std::vector<ir::Tensor> out;
  timed(st, "rotate/cpu", [&] {
    exe->run_into(p.inputs, out);
    benchmark::DoNotOptimize(out[0].values.data());
  });
  ratio_counters(st, "rotate", "rotate/cpu");
  if (out[0].values != std::vector<double>(kRotateValue, kRotateValue + 3))
    bench::fail(st, "wrong rotation");
}

// Jacobian mode: (r, dr/dv as f64[3, 3], dr/dq as f64[3, 4]), compared entry by entry, exactly.
bool rotate_jacobian_ok(const std::vector<ir::Tensor>& out, const Program& p) {
  if (out.size() != 3 || out[1].values.size() != 9 || out[2].values.size() != 12) return false;
  if (out[0].values != std::vector<double>(kRotateValue, kRotateValue + 3)) return false;
  // The formula itself against bench_dualrev's known entries at its point (s = 4, u = (5, 6, 7)):
  // J[0][0] = dr0/dv0 = -44, J[2][6] there (dr2/du2) is column q2 here = 76.
  const double v[3] = {1, 2, 3}, q[4] = {5, 6, 7, 4};
  double J[3][7];
  p003::rotate_jacobian_by_hand(v, q, J);
  if (J[0][0] != -44 || J[2][5] != 76) return false;
  p003::rotate_jacobian_by_hand(p.inputs[0].values.data(), p.inputs[1].values.data(), J);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 7; ++j) {
      const double got = j < 3 ? out[1].values[static_cast<std::size_t>(3 * i + j)]
                               : out[2].values[static_cast<std::size_t>(4 * i + j - 3)];
      if (got != J[i][j]) return false;
    }
  return true;
}

void rotate_jacobian(benchmark::State& st, const std::string& strategy) {
  const Program& p = rotate_program();
  auto exe = cpu_derivative(st, strategy, p, ad::Mode::Jacobian);
  if (!exe) return;
  std::vector<ir::Tensor> out;
  const std::string key = "rotate/" + strategy;
  timed(st, key, [&] {
    exe->run_into(p.inputs, out);
    benchmark::DoNotOptimize(out.data());
  });
  ratio_counters(st, "rotate", key);
  if (!rotate_jacobian_ok(out, p)) bench::fail(st, "wrong Jacobian: " + tensor_layout(out));
}
void BM_RotateScatterCpu(benchmark::State& st) {
  rotate_jacobian(st, "scatter");
}
void BM_RotateDualrevCpu(benchmark::State& st) {
  rotate_jacobian(st, "dualrev");
}

// ---- neural: the gradient wrt all 10,250 parameters ----

void BM_NeuralCppPrimal(benchmark::State& st) {
  auto params = p003::neural_params();
  double r = 0;
  timed(st, "neural/cpp", [&] {
    benchmark::DoNotOptimize(params.data());
    r = p003::neural(params);
    benchmark::DoNotOptimize(r);
  });
  ratio_counters(st, "neural", "neural/cpp");
  if (std::fabs(r - 1) > 1e-12) bench::fail(st, "wrong summed softmax");
}

void BM_NeuralCpuPrimal(benchmark::State& st) {
  const Program& p = neural_program();
  auto exe = cpu_primal(p);
  std::vector<ir::Tensor> out;
  timed(st, "neural/cpu", [&] {
    exe->run_into(p.inputs, out);
    benchmark::DoNotOptimize(out[0].values.data());
  });
  ratio_counters(st, "neural", "neural/cpu");
  if (std::fabs(out[0].values[0] - p003::neural(p003::neural_params())) > 1e-12)
    bench::fail(st, "cpu primal differs from the C++ primal");
}

// The summed softmax is 1 for every input, so the exact gradient is 0 (the suite's note): every
// entry must be rounding noise, and scatter and dualrev must agree on it.
// The reference: dualrev's gradient on the interpreter, computed once and untimed, so that the
// check does not depend on which benchmarks a filter selects.
const std::vector<ir::Tensor>& neural_reference() {
  static const std::vector<ir::Tensor> ref = [] {
    const ad::Strategy& dualrev = *ad::StrategyRegistry::instance().resolve("dualrev").first;
    const Program& p = neural_program();
    return dualrev.differentiate(p.f, ad::Request{{}, ad::Mode::Gradient, ""})
        .executable("interp", backends::Options{})
        ->run(p.inputs);
  }();
  return ref;
}

bool neural_gradient_ok(const std::vector<ir::Tensor>& out, std::string& why) {
  if (out.size() != 6) {
    why = tensor_layout(out);
    return false;
  }
  if (std::fabs(out[0].values[0] - 1) > 1e-12) {
    why = "result " + std::to_string(out[0].values[0]);
    return false;
  }
  double worst = 0, apart = 0;
  const auto& ref = neural_reference();
  if (ref.size() != out.size()) {
    why = "the reference has another layout: " + tensor_layout(ref);
    return false;
  }
  for (std::size_t k = 1; k < out.size(); ++k)
    if (out[k].values.size() != ref[k].values.size()) {
      why = "result " + std::to_string(k) + " has the wrong size";
      return false;
    }
  for (std::size_t k = 1; k < out.size(); ++k)
    for (std::size_t i = 0; i < out[k].values.size(); ++i) {
      worst = bench::worst_of(worst, std::fabs(out[k].values[i]));
      apart = bench::worst_of(apart, std::fabs(out[k].values[i] - ref[k].values[i]));
    }
  why = "largest gradient entry " + std::to_string(worst) + ", apart from dualrev's " +
        std::to_string(apart);
  return worst <= 1e-12 && apart <= 1e-12;
}

// The same network with the softmax weighting a2 (gradient not zero): the check the timed
// function cannot give. Its cpu-compiled gradient is compared with dualrev's on the interpreter
// (an independent engine and backend) at 1e-10 of the largest entry.
const char* kNeuralWeighted = R"(
func neural_weighted(w1: f64[h1, m], b1: f64[h1], w2: f64[h2, h1], b2: f64[h2], x: f64[m]) -> f64 {
  let z1 = gen[i1 < h1] (sum[j1 < m] w1[i1, j1] * x[j1]) + b1[i1]
  let a1 = gen[i2 < h1] select(z1[i2] < 0, 0, z1[i2])
  let z2 = gen[i3 < h2] (sum[j3 < h1] w2[i3, j3] * a1[j3]) + b2[i3]
  let a2 = gen[i4 < h2] select(z2[i4] < 0, 0, z2[i4])
  let mx = max[i5 < h2] a2[i5]
  let ex = gen[i6 < h2] exp(a2[i6] - mx)
  let se = sum[i7 < h2] ex[i7]
  return sum[i8 < h2] ex[i8] / se * a2[i8]
}
)";

// Empty when the gradients agree, else what differs.
std::string neural_weighted_disagreement(const std::string& strategy) {
  static const ir::Module m = ir::parse_module(kNeuralWeighted, "bench_adjoint_code.adl");
  const Program p{m.entry("neural_weighted"), neural_program().inputs};
  auto exe = cpu_derivative_or_throw(strategy, p, ad::Mode::Gradient);
  const ad::Strategy& dualrev = *ad::StrategyRegistry::instance().resolve("dualrev").first;
  auto ref = dualrev.differentiate(p.f, ad::Request{{}, ad::Mode::Gradient, ""})
                 .executable("interp", backends::Options{})
                 ->run(p.inputs);
  auto got = exe->run(p.inputs);
  if (got.size() != ref.size()) return "result counts differ";
  double scale = 0, apart = 0;
  for (std::size_t k = 1; k < ref.size(); ++k) {
    if (got[k].values.size() != ref[k].values.size()) return "result sizes differ";
    for (std::size_t i = 0; i < ref[k].values.size(); ++i) {
      scale = std::max(scale, std::fabs(ref[k].values[i]));
      apart = bench::worst_of(apart, std::fabs(got[k].values[i] - ref[k].values[i]));
    }
  }
  if (scale == 0) return "the weighted network's gradient is zero: the check would be vacuous";
  if (!(apart <= 1e-10 * scale))
    return "weighted network: gradient apart from dualrev on interp by " + std::to_string(apart) +
           " (largest entry " + std::to_string(scale) + ")";
  return "";
}

void neural_gradient(benchmark::State& st, const std::string& strategy) {
  if (auto why = neural_weighted_disagreement(strategy); !why.empty()) {
    bench::fail(st, why);
    return;
  }
  const Program& p = neural_program();
  auto exe = cpu_derivative(st, strategy, p, ad::Mode::Gradient);
  if (!exe) return;
  std::vector<ir::Tensor> out;
  const std::string key = "neural/" + strategy;
  timed(st, key, [&] {
    exe->run_into(p.inputs, out);
    benchmark::DoNotOptimize(out.data());
  });
  ratio_counters(st, "neural", key);
  std::string why;
  if (!neural_gradient_ok(out, why)) bench::fail(st, "wrong gradient: " + why);
}
void BM_NeuralDualrevCpu(benchmark::State& st) {
  neural_gradient(st, "dualrev");
}
void BM_NeuralScatterCpu(benchmark::State& st) {
  neural_gradient(st, "scatter");
}

}  // namespace

// Registration order is run order: the primals first, so the ratio counters use this run's.
BENCHMARK(BM_DotCppPrimal)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DotCpuPrimal)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DotScatterCpu)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DotDualrevCpu)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RotateCppPrimal)->Unit(benchmark::kNanosecond);
BENCHMARK(BM_RotateCpuPrimal)->Unit(benchmark::kNanosecond);
BENCHMARK(BM_RotateScatterCpu)->Unit(benchmark::kNanosecond);
BENCHMARK(BM_RotateDualrevCpu)->Unit(benchmark::kNanosecond);
BENCHMARK(BM_NeuralCppPrimal)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_NeuralCpuPrimal)->Unit(benchmark::kMicrosecond);
// (neural_reference is dualrev on the interpreter, computed once whatever runs first.)
BENCHMARK(BM_NeuralDualrevCpu)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_NeuralScatterCpu)->Unit(benchmark::kMicrosecond);
ADLAB_BENCHMARK_MAIN()
