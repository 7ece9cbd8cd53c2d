// Shared by the benchmark binaries: a timed result that fails its check makes the run fail.
// Google Benchmark prints "ERROR OCCURRED" for a benchmark skipped with an error but still exits
// 0 (and writes real_time 0 to JSON, which reads as fast), so a script or a person reading only
// the exit status or the numbers would take a wrong result's time for a measurement.
#pragma once

#include <benchmark/benchmark.h>

#include <cstdio>
#include <string>

namespace adlab::bench {

inline bool& any_failed() {
  static bool failed = false;
  return failed;
}

// Skips the benchmark with `why` and makes the binary exit 1.
inline void fail(benchmark::State& st, const std::string& why) {
  any_failed() = true;
  st.SkipWithError(why.c_str());
}

inline int run_benchmarks(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  if (any_failed()) std::fprintf(stderr, "FAILED: a timed result did not pass its check\n");
  return any_failed() ? 1 : 0;
}

}  // namespace adlab::bench

#define ADLAB_BENCHMARK_MAIN()                       \
  int main(int argc, char** argv) {                  \
    return adlab::bench::run_benchmarks(argc, argv); \
  }
