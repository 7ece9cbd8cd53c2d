// Inputs that once made `adlab check` pass a wrong derivative or miss a kink (the checker review):
// each must now FAIL or be AT-KINK, never PASS.
#include <catch2/catch.hpp>

#include <map>

#include "checker/harness/harness.h"

using namespace adlab;
using namespace adlab::checker;

TEST_CASE("review cases: no wrong finite-difference derivative passes, kinks are found", "[unit]") {
  auto suite = ir::load_manifest(std::string(ADLAB_SOURCE_DIR) +
                                 "/checker/tests/data/false_pass/manifest.json");
  HarnessOptions o;
  o.strategies = {"fd"};
  o.complexity = false;
  HarnessResult r = run_harness({suite}, o);
  std::map<std::string, Status> status;
  for (const auto& c : r.cells) status[c.entry] = c.status;
  // A huge cancelling offset (rho near 1): the tolerance is capped, fd's 0 for 1 fails.
  CHECK(status["false_pass/cancel"] == Status::Fail);
  // f = x + 1e20: the primal's magnitude must not hide a derivative of 0 instead of 1.
  CHECK(status["false_pass/offset"] == Status::Fail);
  // A NaN in the reference fails, whatever comes after it.
  CHECK(status["false_pass/nanref"] == Status::Fail);
  CHECK(status["false_pass/nanref1"] == Status::Fail);
  CHECK(status["false_pass/rhoinf"] == Status::Fail);
  // Jacobian rows are scaled per row: a 1e8 entry elsewhere does not hide a 4e-4 error.
  CHECK(status["false_pass/jrow"] == Status::Fail);
  // Exact ties and switches inside the finite-difference step are kinks.
  CHECK(status["false_pass/tie"] == Status::AtKink);
  CHECK(status["false_pass/redtie"] == Status::AtKink);
  CHECK(status["false_pass/steep"] == Status::AtKink);
  for (const auto& c : r.cells) CHECK(c.status != Status::Pass);
  CHECK_FALSE(r.ok());
}
