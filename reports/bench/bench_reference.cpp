// Google Benchmark: the multiprecision finite-difference reference (issue target: 1,000 inputs
// and 10^5 operations in under 30 s on 2 cores).
#include <benchmark/benchmark.h>

#include "checker/gradcheck/reference.h"
#include "ir/interp/interpreter.h"
#include "ir/interp/interpreter_mp.h"
#include "ir/syntax/parser.h"
#include "ir/tensor/random.h"
#include "ir/tensor/tensor_ops.h"
#include "reports/bench/bench_main.h"

using namespace adlab;

namespace {

// 1,000 inputs; 50 * 1,000 products and sums: 10^5 operations.
const char* kProgram =
    "func band_quadratic(x: f64[n]) -> f64 {\n"
    "  return sum[i < n, k < 50] x[i] * x[(i + k) % n]\n"
    "}\n";

void BM_ReferenceGradient(benchmark::State& state) {
  ir::Module m = ir::parse_module(kProgram, "band.adl");
  const std::int64_t n = state.range(0);
  std::vector<ir::Tensor> in = {ir::random_normal({n}, 0, 1, 7)};
  ir::Interpreter<double> counter;
  counter.run_tensors(*m.functions[0], in);
  checker::ReferenceOptions o;
  o.threads = static_cast<int>(state.range(1));
  for (auto _ : state)
    benchmark::DoNotOptimize(checker::reference_jacobian(*m.functions[0], in, {}, o));
  state.counters["inputs"] = static_cast<double>(n);
  state.counters["primal_ops"] = static_cast<double>(counter.counts().total());
  state.counters["threads"] = static_cast<double>(o.threads);
}
BENCHMARK(BM_ReferenceGradient)
    ->Args({100, 2})
    ->Args({1000, 1})
    ->Args({1000, 2})
    ->Unit(benchmark::kSecond)
    ->Iterations(1);

void BM_Mp50Primal(benchmark::State& state) {
  ir::Module m = ir::parse_module(kProgram, "band.adl");
  std::vector<ir::BasicTensor<ir::mp50>> in = {
      ir::convert_scalar<ir::mp50>(ir::random_normal({1000}, 0, 1, 7))};
  ir::Interpreter<ir::mp50> interp(ir::EvalOptions{{}, false, false});
  for (auto _ : state) benchmark::DoNotOptimize(interp.run_tensors(*m.functions[0], in));
}
BENCHMARK(BM_Mp50Primal)->Unit(benchmark::kMillisecond);

}  // namespace

ADLAB_BENCHMARK_MAIN()
