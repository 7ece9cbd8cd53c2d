// Google Benchmark: the time to parse and differentiate a program, against its size. A chain of n
// lets in a helper that a sum calls (inlined by every strategy) was cubic in n before decision
// 191 (the parser's positions of a shared literal, FreshNames' probing, iverson's let lifting):
// 4000 lets took 5.5 s to parse and 17 s for iverson. The fitted complexity (`_BigO`) shows
// the growth now; every timed derivative is run once, untimed, and checked.
#include <benchmark/benchmark.h>

#include <cmath>
#include <string>

#include "ad/strategy.h"
#include "backends/backend.h"
#include "ir/syntax/parser.h"
#include "ir/tensor/tensor_ops.h"
#include "reports/bench/bench_main.h"

using namespace adlab;

namespace {

constexpr double kScale = 1.0001;

// h(x): v0 = x c, v_k = v_{k-1} c + x; f(y) = sum_i h(y_i). Every let reads the literal c.
std::string helper_chain(int lets) {
  std::string src = "func h(x: f64) -> f64 {\n  let v0 = x * 1.0001\n";
  for (int k = 1; k < lets; ++k)
    src += "  let v" + std::to_string(k) + " = v" + std::to_string(k - 1) + " * 1.0001 + x\n";
  src += "  return v" + std::to_string(lets - 1) + "\n}\n";
  return src + "func f(y: f64[m]) -> f64 {\n  return sum[i < m] h(y[i])\n}\n";
}

// dh/dx by the recurrence d0 = c, d_k = d_{k-1} c + 1: every gradient entry.
double helper_chain_derivative(int lets) {
  double d = kScale;
  for (int k = 1; k < lets; ++k) d = d * kScale + 1;
  return d;
}

void BM_ParseLetChain(benchmark::State& st) {
  const std::string src = helper_chain(static_cast<int>(st.range(0)));
  for (auto _ : st) benchmark::DoNotOptimize(ir::parse_module(src, "chain.adl"));
  st.SetComplexityN(st.range(0));
}
BENCHMARK(BM_ParseLetChain)
    ->Arg(250)
    ->Arg(1000)
    ->Arg(4000)
    ->Arg(16000)
    ->Unit(benchmark::kMillisecond)
    ->Complexity();

// Differentiation only (the parse is untimed); the derivative is then run once and checked.
void differentiate_chain(benchmark::State& st, const char* strategy) {
  const int lets = static_cast<int>(st.range(0));
  ir::Module m = ir::parse_module(helper_chain(lets), "chain.adl");
  const ad::Strategy& s = *ad::StrategyRegistry::instance().resolve(strategy).first;
  ad::Derivative d;
  for (auto _ : st) {
    d = s.differentiate(m.functions.back(), ad::Request{});
    benchmark::DoNotOptimize(d.function);
  }
  st.SetComplexityN(lets);
  auto out = d.executable("interp", backends::Options{})->run({ir::dense_f64({2}, {0.3, -0.2})});
  const double want = helper_chain_derivative(lets);
  for (double g : out.at(1).values)
    if (!(std::fabs(g - want) <= 1e-9 * std::fabs(want)))
      return bench::fail(
          st, "wrong gradient entry " + std::to_string(g) + ", want " + std::to_string(want));
}
void BM_DifferentiateLetChain_iverson(benchmark::State& st) {
  differentiate_chain(st, "iverson");
}
void BM_DifferentiateLetChain_fwdvec(benchmark::State& st) {
  differentiate_chain(st, "fwdvec");
}
void BM_DifferentiateLetChain_scatter(benchmark::State& st) {
  differentiate_chain(st, "scatter");
}
void BM_DifferentiateLetChain_dualrev(benchmark::State& st) {
  differentiate_chain(st, "dualrev");
}
BENCHMARK(BM_DifferentiateLetChain_iverson)
    ->Arg(250)
    ->Arg(1000)
    ->Arg(4000)
    ->Unit(benchmark::kMillisecond)
    ->Complexity();
BENCHMARK(BM_DifferentiateLetChain_fwdvec)
    ->Arg(250)
    ->Arg(1000)
    ->Arg(4000)
    ->Unit(benchmark::kMillisecond)
    ->Complexity();
BENCHMARK(BM_DifferentiateLetChain_scatter)
    ->Arg(250)
    ->Arg(1000)
    ->Arg(4000)
    ->Unit(benchmark::kMillisecond)
    ->Complexity();
BENCHMARK(BM_DifferentiateLetChain_dualrev)
    ->Arg(250)
    ->Arg(1000)
    ->Arg(4000)
    ->Unit(benchmark::kMillisecond)
    ->Complexity();

}  // namespace

ADLAB_BENCHMARK_MAIN()
