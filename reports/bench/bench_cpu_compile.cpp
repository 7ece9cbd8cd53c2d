// The cpu backend's build step (issue 10: "compile time under 3 s per suite function at -O2; a
// cache hit under 10 ms"): every suite function generated and compiled into an empty cache, and
// a cached unit found and loaded again.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <filesystem>
#include <string>
#include <vector>

#include "backends/cpu/codegen.h"
#include "backends/cpu/compiler.h"
#include "ir/suite/manifest.h"
#include "ir/syntax/parser.h"
#include "reports/bench/bench_main.h"

using namespace adlab;
namespace fs = std::filesystem;

namespace {

struct SuiteFunction {
  std::string id;
  ir::FunctionPtr f;
};

// Every function of the built-in suites the cpu backend translates (each entry's function once).
const std::vector<SuiteFunction>& suite_functions() {
  static std::deque<ir::Module> modules;  // the functions' callees live in their modules
  static const std::vector<SuiteFunction> fs_ = [] {
    std::vector<SuiteFunction> out;
    for (const auto& s : ir::find_suites(std::string(ADLAB_SOURCE_DIR) + "/suites"))
      for (const auto& e : s.entries) {
        auto f = modules.emplace_back(ir::parse_file(e.program)).entry(e.function);
        try {
          backends::cpu::generate(*f);
        } catch (const std::exception&) {
          continue;  // declined (UNSUPPORTED in adlab check): nothing to compile
        }
        out.push_back({e.id(), f});
      }
    return out;
  }();
  return fs_;
}

backends::cpu::CompilerConfig config_in(const fs::path& dir, const std::string& flags) {
  auto c = backends::cpu::CompilerConfig::from_environment();
  c.flags = flags;
  c.cache_dir = dir.string();
  return c;
}

// All suite functions at -O2 into an empty cache, one build each: the slowest and the mean.
void BM_CpuCompileSuiteO2(benchmark::State& state) {
  const auto& fns = suite_functions();
  fs::path dir = fs::temp_directory_path() / "adlab_bench_cpu_compile";
  double worst = 0, total = 0;
  std::string worst_id;
  for (auto _ : state) {
    fs::remove_all(dir);
    auto config = config_in(dir, "-O2");
    for (const auto& sf : fns) {
      auto unit = backends::cpu::generate(*sf.f);
      auto t0 = std::chrono::steady_clock::now();
      auto built = backends::cpu::build(unit, sf.f->name,
                                        backends::cpu::ScalarType::builtin("double"), config, "");
      double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      benchmark::DoNotOptimize(built.library);
      total += s;
      if (s > worst) {
        worst = s;
        worst_id = sf.id;
      }
    }
  }
  fs::remove_all(dir);
  state.counters["functions"] = static_cast<double>(fns.size());
  state.counters["max_s"] = worst;
  state.counters["mean_s"] = total / static_cast<double>(fns.size() * state.iterations());
  state.SetLabel("slowest: " + worst_id);
}

// A cache hit: the content hash of a unit, the lookup and a fresh dlopen (the previous handle is
// closed first, as in a new process).
void BM_CpuCacheHit(benchmark::State& state) {
  const auto& fns = suite_functions();
  auto it = std::find_if(fns.begin(), fns.end(), [](const SuiteFunction& sf) {
    return sf.id.find("gmm") != std::string::npos;
  });
  const SuiteFunction& sf = it != fns.end() ? *it : fns.front();
  fs::path dir = fs::temp_directory_path() / "adlab_bench_cpu_cache_hit";
  fs::remove_all(dir);
  auto config = config_in(dir, "-O2");
  auto unit = backends::cpu::generate(*sf.f);
  backends::cpu::build(unit, sf.f->name, backends::cpu::ScalarType::builtin("double"), config, "");
  bool all_hits = true;
  for (auto _ : state) {
    auto built = backends::cpu::build(unit, sf.f->name,
                                      backends::cpu::ScalarType::builtin("double"), config, "");
    all_hits = all_hits && built.cache_hit;
    benchmark::DoNotOptimize(built.library);
  }  // each iteration's library is closed before the next loads it
  if (!all_hits) bench::fail(state, "a build missed the cache");
  state.SetLabel(sf.id);
  fs::remove_all(dir);
}

}  // namespace

BENCHMARK(BM_CpuCompileSuiteO2)->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();
BENCHMARK(BM_CpuCacheHit)->Unit(benchmark::kMillisecond)->UseRealTime();
ADLAB_BENCHMARK_MAIN()
