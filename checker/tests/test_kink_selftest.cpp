// Checker self-tests (`"expect": "at-kink"` entries): paper 002 digest section 9.1, test 7, the
// ReLU finite-difference self-test of thesis section 4.3.3 must be reported as a kink, not a pass.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "checker/harness/harness.h"
#include "ir/error.h"

using namespace adlab;
using namespace adlab::checker;

namespace {

ir::Suite relu_entries() {
  ir::Suite s =
      ir::load_manifest(std::string(ADLAB_SOURCE_DIR) + "/suites/papers/accelerate/manifest.json");
  std::vector<ir::SuiteEntry> keep;
  for (const auto& e : s.entries)
    if (e.name.rfind("relu_", 0) == 0) keep.push_back(e);
  s.entries = keep;
  return s;
}

HarnessResult run(const ir::Suite& s) {
  HarnessOptions o;
  o.strategies = {"fd", "scatter"};
  o.backends = {"interp"};
  o.complexity = false;
  return run_harness({s}, o);
}

}  // namespace

TEST_CASE("digest 002 9.1 test 7: the ReLU self-test is AT-KINK, away from the kink it passes",
          "[unit]") {
  ir::Suite s = relu_entries();
  REQUIRE(s.entries.size() == 3);
  HarnessResult r = run(s);
  std::map<std::string, std::vector<const Cell*>> by_entry;
  for (const auto& c : r.cells) by_entry[c.entry].push_back(&c);
  REQUIRE(by_entry.size() == 3);
  for (const char* name : {"relu_fd_selftest", "relu_at_zero"}) {
    const auto& cells = by_entry[std::string("papers/accelerate/") + name];
    REQUIRE(cells.size() == 2);  // fd and scatter, gradient
    for (const Cell* c : cells) {
      INFO(name << " " << c->strategy << ": " << c->detail);
      CHECK(c->status == Status::AtKink);
      CHECK(c->expected_kink);
    }
  }
  // The thesis's steps 2^-4..2^-7 at x = 0.001 cross the switch of max(0, x).
  CHECK(by_entry["papers/accelerate/relu_fd_selftest"][0]->detail.find("crosses a switch") !=
        std::string::npos);
  for (const Cell* c : by_entry["papers/accelerate/relu_away_from_kink"]) {
    INFO(c->strategy << ": " << c->detail);
    CHECK(c->status == Status::Pass);
    CHECK_FALSE(c->expected_kink);
  }
  CHECK(r.ok());
}

TEST_CASE("a self-test whose kink the checker does not see FAILs", "[unit]") {
  ir::Suite s = relu_entries();
  for (auto& e : s.entries) e.expect_at_kink = true;
  // relu_fd_selftest without the thesis's steps: adlab's 1e-12 steps stay on one side of 0.
  for (auto& e : s.entries) e.fd_step.reset(), e.fd_levels.reset();
  HarnessResult r = run(s);
  for (const auto& c : r.cells) {
    INFO(c.entry << " " << c.strategy << ": " << c.detail);
    if (c.entry == "papers/accelerate/relu_at_zero")
      CHECK(c.status == Status::AtKink);
    else
      CHECK(c.status == Status::Fail);
  }
  CHECK_FALSE(r.ok());
}

TEST_CASE("manifest `expect` and `fd` are validated with the entry named", "[unit]") {
  auto dir = std::filesystem::temp_directory_path() / "adlab_kink_selftest";
  std::filesystem::create_directories(dir);
  auto write = [&](const std::string& extra) {
    std::ofstream(dir / "manifest.json")
        << R"({"suite": "t", "entries": [{"name": "e", "program": "p.adl", "function": "f",
              "sizes": {"small": {}}, "inputs": {}, )"
        << extra << "}]}";
    return (dir / "manifest.json").string();
  };
  CHECK(ir::load_manifest(write(R"("expect": "at-kink", "fd": {"step": 0.0625, "levels": 4})"))
            .entries[0]
            .expect_at_kink);
  CHECK_THROWS_WITH(ir::load_manifest(write(R"("expect": "pass")")),
                    Catch::Contains("entry `e`") && Catch::Contains("at-kink"));
  CHECK_THROWS_WITH(ir::load_manifest(write(R"("fd": {"step": 2})")), Catch::Contains("fd.step"));
  CHECK_THROWS_WITH(ir::load_manifest(write(R"("fd": {"levels": 0})")),
                    Catch::Contains("fd.levels"));
  CHECK_THROWS_WITH(ir::load_manifest(write(R"("fd": {"steps": 0.1})")),
                    Catch::Contains("fd.steps"));
  std::filesystem::remove_all(dir);
}
