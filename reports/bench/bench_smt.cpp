// The SMT checker's speed (issue 3): the whole rule library under 60 s on 2 cores, a typical rule
// under 2 s, translation validation of a 50-statement program at size 4 under 10 s.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <sstream>

#include "checker/smt/rule_prover.h"
#include "checker/smt/translation_validation.h"
#include "ir/rewrite/tables/tables.h"
#include "ir/syntax/parser.h"
#include "reports/bench/bench_main.h"

using namespace adlab;

// Every registered table, core and errata, proved once: total time and the per-rule median and
// maximum as counters.
static void BM_ProveRuleLibrary(benchmark::State& state) {
  std::vector<double> per_rule;
  int not_as_expected = 0;
  for (auto _ : state) {
    per_rule.clear();
    for (const auto* t : ir::rewrite::TableRegistry::instance().tables())
      for (const auto& p : checker::smt::prove_table(*t)) {
        per_rule.push_back(p.seconds);
        bool ok = p.errata ? p.verdict == checker::smt::Verdict::Refuted
                           : checker::smt::is_pass(p.verdict);
        not_as_expected += ok ? 0 : 1;
      }
  }
  std::sort(per_rule.begin(), per_rule.end());
  state.counters["rules"] = static_cast<double>(per_rule.size());
  state.counters["median_rule_s"] = per_rule[per_rule.size() / 2];
  state.counters["max_rule_s"] = per_rule.back();
  state.counters["not_as_expected"] = not_as_expected;
}
BENCHMARK(BM_ProveRuleLibrary)->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();

// A chain of `statements` gen statements, each reading the previous one at two points, through
// an uninterpreted primitive; the second program writes every product and sum the other way round.
static std::string chain_program(const std::string& name, int statements, bool commuted) {
  std::ostringstream os;
  os << "func " << name << "(x: f64[n], w: f64[n]) -> f64 {\n";
  os << "  let y0 = gen[i < n] x[i]\n";
  for (int k = 1; k <= statements; ++k) {
    std::string p = "y" + std::to_string(k - 1);
    if (!commuted)
      os << "  let y" << k << " = gen[i < n] " << p << "[i] * w[i] + sin(" << p
         << "[(i + 1) % n]) * 1\n";
    else
      os << "  let y" << k << " = gen[i < n] sin(" << p << "[(i + 1) % n]) + w[i] * " << p
         << "[i]\n";
  }
  os << "  return sum[i < n] y" << statements << "[i]\n}\n";
  return os.str();
}

static void BM_TranslationValidation(benchmark::State& state) {
  int statements = static_cast<int>(state.range(0));
  ir::Module m = ir::parse_module(chain_program("f", statements, false) +
                                  chain_program("g", statements, true));
  checker::smt::Validation v;
  for (auto _ : state)
    v = checker::smt::validate_equivalent(*m.find("f"), *m.find("g"), {{"n", 4}});
  state.counters["proved"] = v.verdict == checker::smt::Verdict::Proved;
  state.counters["entries"] = static_cast<double>(v.entries);
}
BENCHMARK(BM_TranslationValidation)->Arg(10)->Arg(50)->Unit(benchmark::kMillisecond)->UseRealTime();

ADLAB_BENCHMARK_MAIN()
