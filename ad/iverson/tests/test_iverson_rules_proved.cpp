// The rule objects the iverson strategy applies on paper 000's test cases are proved: the link
// between `adlab grad --trace` and `adlab rules` (STYLE: one rule object, applied and proved).
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>

#include "ad/iverson/tests/iverson_test_util.h"
#include "checker/smt/rule_prover.h"
#include "ir/rewrite/tables/tables.h"

using namespace adlab;
using namespace adlab::ad;
using namespace adlab::ad::iverson::testing;
using checker::smt::Verdict;

TEST_CASE("digest 000 section 12 TC1-TC20: every rule applied is the registered, proved object",
          "[smt]") {
  const auto& registry = ir::rewrite::TableRegistry::instance();
  const ir::rewrite::RuleTable* tables[] = {registry.find("iverson-forward"),
                                            registry.find("iverson-adjoint")};
  REQUIRE(tables[0] == &ir::rewrite::iverson_forward_table());
  REQUIRE(tables[1] == &ir::rewrite::iverson_adjoint_table());
  // the rule objects the engine applied, found by name in the registered tables
  std::set<const ir::rewrite::Rule*> applied;
  auto suite = ir::load_manifest(suites_root() + "/papers/iverson/manifest.json", suites_root());
  for (const auto& e : suite.entries)
    for (Mode m : {Mode::Gradient, Mode::Vjp, Mode::Jvp}) {
      if (std::find(e.modes.begin(), e.modes.end(), mode_name(m)) == e.modes.end()) continue;
      auto d = strategy().differentiate(load(e), Request{e.wrt, m, ""});
      for (const auto* t : tables)
        for (const auto& r : t->rules)
          if (d.notes.find("  " + r.name() + " [" + r.spec.cite + "]") != std::string::npos)
            applied.insert(&r);
    }
  CHECK(applied.size() >= 8);
  for (const auto* r : applied) {
    auto p = checker::smt::prove_rule(*r);
    INFO(r->name() << ": " << checker::smt::verdict_name(p.verdict) << " " << p.detail);
    CHECK((p.verdict == Verdict::Proved || p.verdict == Verdict::ProvedUpToN));
  }
}

TEST_CASE("paper 000 (6.17): a wrong adjoint rule is refuted, so the applied ones could fail",
          "[smt]") {
  ir::rewrite::RuleSpec spec;
  for (const auto& r : ir::rewrite::iverson_adjoint_table().rules)
    if (r.name() == "adj-mul") spec = r.spec;
  REQUIRE(spec.name == "adj-mul");
  spec.rhs = "(?e * ?e1) * ?e3 + (?e * ?e2) * ?e4";  // the operands' roles swapped
  auto p = checker::smt::prove_rule(ir::rewrite::make_rule(spec));
  CHECK(p.verdict == Verdict::Refuted);
}
