// The iverson strategy on every suite (not only paper 000's): PASS or UNSUPPORTED, never FAIL;
// the adjoint test (forward rules against transposition) on every supported program.
#include <catch2/catch.hpp>

#include "ad/iverson/tests/iverson_test_util.h"
#include "checker/harness/harness.h"

using namespace adlab;
using namespace adlab::ad::iverson::testing;

TEST_CASE("digest 000 section 12 and every other suite: iverson never FAILs", "[slow]") {
  checker::HarnessOptions o;
  o.strategies = {"iverson"};
  o.backends = {"interp"};
  auto r = checker::run_harness(ir::find_suites(suites_root()), o);
  std::size_t pass = 0, unsupported = 0;
  for (const auto& c : r.cells) {
    INFO(c.entry << " " << c.mode << ": " << c.detail);
    CHECK(c.status != checker::Status::Fail);
    CHECK(c.status != checker::Status::Error);
    if (c.status == checker::Status::Pass) ++pass;
    if (c.status == checker::Status::Unsupported) {
      ++unsupported;
      CHECK(c.detail.find("iverson") != std::string::npos);  // says which construct, and why
    }
  }
  CHECK(pass >= 190);
  for (const auto& cf : r.closed_forms) {
    INFO(cf.entry << ": " << cf.detail);
    CHECK(cf.status == checker::Status::Pass);
  }
  CHECK(r.adjoints.size() >= 100);
  for (const auto& a : r.adjoints) {
    INFO(a.entry << ": " << a.lhs << " vs " << a.rhs << " " << a.detail);
    CHECK(a.status == checker::Status::Pass);
  }
}
