// Google Benchmark: fwdvec derivatives compiled by the cpu backend (issue 7 performance targets):
// the gradient of dot at n = 10^6 against the primal, and the bundle-adjustment `project`
// Jacobian (2N x 11) against reverse mode run once per output row (scatter's Jacobian mode).
// Run with MALLOC_MMAP_THRESHOLD_=4294967296 (docs/strategies/fwdvec.md): otherwise glibc maps
// and unmaps every 8 MB array per run and page faults dominate.
#include <benchmark/benchmark.h>

#include <cmath>
#include <string>

#include "ad/strategy.h"
#include "backends/backend.h"
#include "ir/syntax/parser.h"
#include "ir/tensor/random.h"
#include "reports/bench/bench_checks.h"
#include "reports/bench/bench_main.h"

using namespace adlab;

namespace {

const std::string kSuite = std::string(ADLAB_SOURCE_DIR) + "/suites/papers/dftilde/";

ir::FunctionPtr program(const std::string& file, const std::string& func) {
  static std::map<std::string, ir::Module> cache;
  auto it = cache.find(file);
  if (it == cache.end()) it = cache.emplace(file, ir::parse_file(kSuite + file)).first;
  return it->second.entry(func);
}

std::unique_ptr<backends::Executable> compiled(const ir::FunctionPtr& f) {
  return backends::BackendRegistry::instance().get("cpu").compile(f, backends::Options{});
}

ir::FunctionPtr derivative(const ir::FunctionPtr& f, const std::string& strategy, ad::Mode m,
                           std::vector<std::string> wrt) {
  auto [s, variant] = ad::StrategyRegistry::instance().resolve(strategy);
  return s->differentiate(f, ad::Request{std::move(wrt), m, variant, 0}).function;
}

// ---- the checks every timed result passes (decision 182) ----

// `what` for the first result that is not (dot(v1, v2), then the tensors in `exact`).
std::string dot_results_error(const std::vector<ir::Tensor>& out, const std::vector<ir::Tensor>& in,
                              bool with_value, const std::vector<const ir::Tensor*>& exact) {
  const std::size_t first = with_value ? 1 : 0;
  if (out.size() != first + exact.size()) return "wrong number of results";
  if (with_value) {
    double bound = 0, want = bench::dot_reference(in[0].values, in[1].values, bound);
    if (!(std::fabs(out[0].values.at(0) - want) <= bound)) return "wrong dot product";
  }
  for (std::size_t k = 0; k < exact.size(); ++k)
    if (out[first + k].values != exact[k]->values) return "wrong vector result";
  return "";
}

void BM_DotPrimal(benchmark::State& state) {
  const std::int64_t n = state.range(0);
  auto exe = compiled(program("micro_dot.adl", "vector_dot"));
  std::vector<ir::Tensor> in = {ir::random_normal({n}, 0, 1, 1), ir::random_normal({n}, 0, 1, 2)};
  std::vector<ir::Tensor> out;
  for (auto _ : state) benchmark::DoNotOptimize(out = exe->run(in));
  if (auto why = dot_results_error(out, in, true, {}); !why.empty()) bench::fail(state, why);
}

// The floor for any gradient: returning an n-vector (one pass plus the copy into adlab's tensor).
void BM_ReturnVector(benchmark::State& state) {
  const std::int64_t n = state.range(0);
  static ir::Module m = ir::parse_module(
      "func copy(v1: f64[n], v2: f64[n]) -> f64[n] {\n  return gen[i < n] v2[i]\n}\n", "copy.adl");
  auto exe = compiled(m.entry("copy"));
  std::vector<ir::Tensor> in = {ir::random_normal({n}, 0, 1, 1), ir::random_normal({n}, 0, 1, 2)};
  std::vector<ir::Tensor> out;
  for (auto _ : state) benchmark::DoNotOptimize(out = exe->run(in));
  if (auto why = dot_results_error(out, in, false, {&in[1]}); !why.empty()) bench::fail(state, why);
}

// The hand-written gradient of dot: (v1 . v2, v2).
void BM_DotGradientByHand(benchmark::State& state) {
  const std::int64_t n = state.range(0);
  static ir::Module m = ir::parse_module(
      "func g(v1: f64[n], v2: f64[n]) -> (f64, f64[n]) {\n"
      "  return (sum[i < n] v1[i] * v2[i], gen[j < n] v2[j])\n}\n",
      "dot_grad.adl");
  auto exe = compiled(m.entry("g"));
  std::vector<ir::Tensor> in = {ir::random_normal({n}, 0, 1, 1), ir::random_normal({n}, 0, 1, 2)};
  std::vector<ir::Tensor> out;
  for (auto _ : state) benchmark::DoNotOptimize(out = exe->run(in));
  if (auto why = dot_results_error(out, in, true, {&in[1]}); !why.empty()) bench::fail(state, why);
}

void BM_DotGradientFwdvec(benchmark::State& state) {
  const std::int64_t n = state.range(0);
  auto exe = compiled(
      derivative(program("micro_dot.adl", "vector_dot"), "fwdvec", ad::Mode::Gradient, {"v1"}));
  std::vector<ir::Tensor> in = {ir::random_normal({n}, 0, 1, 1), ir::random_normal({n}, 0, 1, 2)};
  std::vector<ir::Tensor> out;
  for (auto _ : state) benchmark::DoNotOptimize(out = exe->run(in));
  // d(v1 . v2)/dv1 = v2 exactly, beside the primal
  if (auto why = dot_results_error(out, in, true, {&in[1]}); !why.empty()) bench::fail(state, why);
}

std::vector<ir::Tensor> ba_inputs(std::int64_t points) {
  auto cam = ir::random_normal({11}, 0, 1, 3);
  auto X = ir::random_normal({points, 3}, 0, 1, 4);
  for (std::int64_t p = 0; p < points; ++p) X.values[static_cast<std::size_t>(p * 3 + 2)] += 10;
  return {cam, X};
}

void BM_BAJacobian(benchmark::State& state, const char* strategy) {
  auto exe = compiled(
      derivative(program("ba_project.adl", "project"), strategy, ad::Mode::Jacobian, {"cam"}));
  auto in = ba_inputs(state.range(0));
  std::vector<ir::Tensor> out;
  for (auto _ : state) benchmark::DoNotOptimize(out = exe->run(in));
  // Against dualrev's Jacobian on the interpreter (another engine and backend), untimed.
  const ad::Strategy& dualrev = *ad::StrategyRegistry::instance().resolve("dualrev").first;
  auto ref = dualrev
                 .differentiate(program("ba_project.adl", "project"),
                                ad::Request{{"cam"}, ad::Mode::Jacobian, "", 0})
                 .executable("interp", backends::Options{})
                 ->run(in);
  if (auto why = bench::apart_from(out, ref, 1e-10, "dualrev on interp"); !why.empty())
    bench::fail(state, "Jacobian " + why);
}

}  // namespace

BENCHMARK(BM_DotPrimal)->Arg(1000000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ReturnVector)->Arg(1000000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DotGradientByHand)->Arg(1000000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DotGradientFwdvec)->Arg(1000000)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_BAJacobian, fwdvec, "fwdvec")->Arg(1000)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_BAJacobian, fwdvec_naive, "fwdvec/naive")
    ->Arg(1000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_BAJacobian, scatter_per_row, "scatter")
    ->Arg(1000)
    ->Unit(benchmark::kMillisecond);

ADLAB_BENCHMARK_MAIN()
