// f32 parameters and results (decision 177): every strategy's derivative blocks have the element
// type DESIGN 2.3 gives (a gradient its parameter's, a Jacobian f64), and the error model judges
// f32 computations with f32's unit roundoff.
#include <catch2/catch.hpp>

#include "checker/harness/harness.h"

using namespace adlab;
using namespace adlab::checker;

TEST_CASE("f32 programs: every strategy passes, with the element types of DESIGN 2.3", "[unit]") {
  auto suite =
      ir::load_manifest(std::string(ADLAB_SOURCE_DIR) + "/checker/tests/data/f32/manifest.json");
  HarnessOptions o;
  o.complexity = false;
  HarnessResult r = run_harness({suite}, o);
  int passed = 0;
  for (const auto& c : r.cells) {
    INFO(c.entry << " " << c.strategy << " " << c.mode << ": " << c.detail);
    CHECK((c.status == Status::Pass || c.status == Status::Unsupported));
    passed += c.status == Status::Pass;
  }
  // fd, dualrev, sparse, fwdvec, iverson, scatter over 8 mode cells: most are offered
  CHECK(passed >= 30);
  for (const auto& a : r.adjoints) {
    INFO(a.entry << " " << a.forward << " / " << a.reverse << ": " << a.detail);
    CHECK(a.status == Status::Pass);
  }
  CHECK(r.ok());
}
