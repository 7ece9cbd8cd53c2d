// Google Benchmark: the reference interpreter's speed (foundation issue: dot at n = 10^6 under
// 100 ms; no super-linear blow-up on shared DAGs).
#include <benchmark/benchmark.h>

#include <string>

#include "ir/interp/interpreter.h"
#include "ir/syntax/parser.h"
#include "ir/tensor/random.h"
#include "ir/tensor/tensor_ops.h"
#include "reports/bench/bench_main.h"

using namespace adlab::ir;

namespace {

void BM_Dot(benchmark::State& state) {
  Module m = parse_module(
      "func dot(x: f64[n], y: f64[n]) -> f64 {\n  return sum[i < n] x[i] * y[i]\n}\n", "dot.adl");
  const std::int64_t n = state.range(0);
  std::vector<Tensor> in = {random_normal({n}, 0, 1, 1), random_normal({n}, 0, 1, 2)};
  Interpreter<double> interp;
  for (auto _ : state) benchmark::DoNotOptimize(interp.run_tensors(*m.functions[0], in));
  state.SetItemsProcessed(state.iterations() * n);
  state.SetComplexityN(n);
}
BENCHMARK(BM_Dot)
    ->RangeMultiplier(10)
    ->Range(1000, 1000000)
    ->Unit(benchmark::kMillisecond)
    ->Complexity();

// The same without operation counting (the checker's multiprecision reference runs like this).
void BM_DotNoCounts(benchmark::State& state) {
  Module m = parse_module(
      "func dot(x: f64[n], y: f64[n]) -> f64 {\n  return sum[i < n] x[i] * y[i]\n}\n", "dot.adl");
  const std::int64_t n = state.range(0);
  std::vector<Tensor> in = {random_normal({n}, 0, 1, 1), random_normal({n}, 0, 1, 2)};
  Interpreter<double> interp(EvalOptions{{}, false});
  for (auto _ : state) benchmark::DoNotOptimize(interp.run_tensors(*m.functions[0], in));
  state.SetItemsProcessed(state.iterations() * n);
}
BENCHMARK(BM_DotNoCounts)->Arg(1000000)->Unit(benchmark::kMillisecond);

// A let-bound sharing chain (paper 003): each level reads the previous twice. Linear in depth.
std::string chain_program(int depth) {
  std::string src = "func chain(x0: f64) -> f64 {\n";
  for (int k = 1; k <= depth; ++k)
    src += "  let x" + std::to_string(k) + " = x" + std::to_string(k - 1) + " * x" +
           std::to_string(k - 1) + " * 0.5\n";
  return src + "  return x" + std::to_string(depth) + "\n}\n";
}

void BM_SharingChain(benchmark::State& state) {
  const int depth = static_cast<int>(state.range(0));
  Module m = parse_module(chain_program(depth), "chain.adl");
  std::vector<Tensor> in = {scalar(0.999)};
  Interpreter<double> interp;
  for (auto _ : state) benchmark::DoNotOptimize(interp.run_tensors(*m.functions[0], in));
  state.SetComplexityN(depth);
}
BENCHMARK(BM_SharingChain)
    ->RangeMultiplier(2)
    ->Range(15, 960)
    ->Unit(benchmark::kMicrosecond)
    ->Complexity(benchmark::oN);

void BM_Matmul(benchmark::State& state) {
  Module m = parse_module(
      "func mm(A: f64[n, k], B: f64[k, m]) -> f64[n, m] {\n  return gen[i < n, j < m] sum[l < k] "
      "A[i, l] * B[l, j]\n}\n",
      "mm.adl");
  const std::int64_t n = state.range(0);
  std::vector<Tensor> in = {random_normal({n, n}, 0, 1, 1), random_normal({n, n}, 0, 1, 2)};
  Interpreter<double> interp;
  for (auto _ : state) benchmark::DoNotOptimize(interp.run_tensors(*m.functions[0], in));
  state.SetItemsProcessed(state.iterations() * n * n * n);
}
BENCHMARK(BM_Matmul)->Arg(64)->Arg(128)->Unit(benchmark::kMillisecond);

void BM_Parse(benchmark::State& state) {
  std::string src = chain_program(200);
  for (auto _ : state) benchmark::DoNotOptimize(parse_module(src, "chain.adl"));
}
BENCHMARK(BM_Parse)->Unit(benchmark::kMicrosecond);

}  // namespace

ADLAB_BENCHMARK_MAIN()
