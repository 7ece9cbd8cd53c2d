// Rule proofs (issue 3): every core rule proves, every erratum of the papers is refuted.
#include <catch2/catch.hpp>
#include <iostream>

#include "checker/smt/rule_prover.h"
#include "ir/rewrite/tables/tables.h"

using namespace adlab;
using namespace adlab::checker::smt;

TEST_CASE("print all verdicts", "[smt][.dev]") {
  for (const auto* t : ir::rewrite::TableRegistry::instance().tables())
    for (const auto& p : prove_table(*t))
      std::cout << p.table << " " << p.rule << " " << verdict_name(p.verdict) << " " << p.bound
                << " [" << p.theory << "] " << p.seconds << "s " << p.detail << "\n   "
                << p.counterexample << "\n   replay: " << p.replay.available << " "
                << p.replay.confirmed << " " << p.replay.left << " | " << p.replay.right << " "
                << p.replay.reason << "\n";
}
