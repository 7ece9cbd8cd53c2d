// Tests of the harness (DESIGN 4, 6) on the paper 001 (dF~) suite with the fd baseline: cell
// statuses, closed forms, adjoint tests, the JSON results, and the complexity fits (DESIGN 4.3).
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include <sstream>

#include "backends/backend.h"
#include "checker/complexity/complexity.h"
#include "checker/harness/harness.h"
#include "ir/suite/manifest.h"

namespace adlab::checker {
namespace {

std::string dftilde_dir() {
  return std::string(ADLAB_SOURCE_DIR) + "/suites/papers/dftilde";
}

const std::vector<ir::Suite>& dftilde() {
  static const std::vector<ir::Suite> suites = ir::find_suites(dftilde_dir());
  return suites;
}

HarnessOptions fd_options() {
  HarnessOptions o;
  o.strategies = {"fd"};
  o.backends = {"interp"};
  return o;
}

// One run per process, shared by the sections below.
const HarnessResult& dftilde_with_fd() {
  static const HarnessResult r = run_harness(dftilde(), fd_options());
  return r;
}

std::string describe(const Cell& c) {
  return c.entry + " " + c.mode + ": " + status_name(c.status) + " " + c.detail;
}

TEST_CASE("fd passes every supported cell of the dftilde suite", "[unit]") {
  const auto& suites = dftilde();
  REQUIRE(suites.size() == 1);
  CHECK(suites[0].name == "papers/dftilde");
  const auto& entries = suites[0].entries;
  REQUIRE(entries.size() >= 20);
  const HarnessResult& r = dftilde_with_fd();

  SECTION("one cell per entry and manifest mode, PASS or UNSUPPORTED") {
    REQUIRE(r.entries.size() == entries.size());
    std::size_t modes = 0;
    for (const auto& e : entries) modes += e.modes.empty() ? 1 : e.modes.size();
    CHECK(r.cells.size() == modes);
    std::set<std::pair<std::string, std::string>> seen;
    for (const auto& c : r.cells) {
      INFO(describe(c));
      CHECK((c.status == Status::Pass || c.status == Status::Unsupported));
      CHECK(c.strategy == "fd");
      CHECK(c.backend == "engine/interp");
      CHECK(seen.insert({c.entry, c.mode}).second);
      if (c.status == Status::Pass) {
        CHECK(c.worst_error <= c.tolerance);
        CHECK(c.tolerance == 1e-5);  // fd's declared accuracy is the floor
      }
      if (c.status == Status::Unsupported) {
        CHECK(c.mode == "hvp");
        CHECK(c.detail == "fd does not offer mode hvp");
      }
    }
    CHECK(r.ok());
  }

  SECTION("every closed form and printed primal value in the manifest passes") {
    std::size_t expected = 0;
    for (const auto& e : entries)
      for (const char* kind : {"gradient", "primal", "primal_values"})
        if (e.expected.contains(kind)) ++expected;
    CHECK(expected > 0);
    CHECK(r.closed_forms.size() == expected);
    for (const auto& c : r.closed_forms) {
      INFO(c.entry << " " << c.function << ": " << status_name(c.status) << " " << c.detail);
      CHECK(c.status == Status::Pass);
      CHECK(c.worst_error <= c.tolerance);
      CHECK(c.tolerance <= 1e-10);  // closed forms are exact: no fd floor
    }
  }

  SECTION("every adjoint test (fd forward against fd reverse) passes") {
    CHECK(r.adjoints.size() == entries.size());
    for (const auto& a : r.adjoints) {
      INFO(a.entry << ": " << status_name(a.status) << " lhs " << a.lhs << " rhs " << a.rhs << " "
                   << a.detail);
      CHECK(a.status == Status::Pass);
      CHECK(a.forward == "fd");
      CHECK(a.reverse == "fd");
      CHECK(a.error <= a.tolerance);
    }
  }

  SECTION("to_json: schema adlab-check/1, one cell entry per cell") {
    HarnessOptions o = fd_options();
    nlohmann::json j = to_json(r, o);
    CHECK(j["schema"] == "adlab-check/1");
    CHECK(j["sizes"] == "small");
    REQUIRE(j["cells"].is_array());
    REQUIRE(j["cells"].size() == r.cells.size());
    for (std::size_t k = 0; k < r.cells.size(); ++k) {
      const auto& x = j["cells"][k];
      CHECK(x["entry"] == r.cells[k].entry);
      CHECK(x["mode"] == r.cells[k].mode);
      CHECK(x["status"] == status_name(r.cells[k].status));
      for (const char* key : {"strategy", "backend", "detail", "worst_error", "tolerance", "where",
                              "got", "want", "seconds"})
        CHECK(x.contains(key));
      // Only PASS and FAIL cells have a tolerance, and only measured ones an error, a got and a
      // want: the others say null, not a perfect 0.
      const bool judged = r.cells[k].status == Status::Pass || r.cells[k].status == Status::Fail;
      const bool measured = judged && r.cells[k].measured;
      CHECK(measured == (r.cells[k].status == Status::Pass));  // fd passes everything here
      CHECK(x["worst_error"].is_null() == !measured);
      CHECK(x["got"].is_null() == !measured);
      CHECK(x["tolerance"].is_null() == !judged);
    }
    CHECK(j["entries"].size() == r.entries.size());
    CHECK(j["closed_forms"].size() == r.closed_forms.size());
    CHECK(j["adjoint_tests"].size() == r.adjoints.size());
    CHECK(j["summary"]["ok"] == true);
    int tallied = 0;
    for (auto& [status, n] : j["summary"]["cells"].items()) tallied += n.get<int>();
    CHECK(tallied == static_cast<int>(r.cells.size()));
    // The closed forms and adjoint tests, which decide `ok` as the cells do, are counted too.
    int forms = 0, adjoints = 0;
    for (auto& [status, n] : j["summary"]["closed_forms"].items()) forms += n.get<int>();
    for (auto& [status, n] : j["summary"]["adjoint_tests"].items()) adjoints += n.get<int>();
    CHECK(forms == static_cast<int>(r.closed_forms.size()));
    CHECK(adjoints == static_cast<int>(r.adjoints.size()));
    CHECK(j["summary"]["compared"] == r.compared());
  }
}

TEST_CASE("a run that compared nothing is not OK, and a failed closed form is named", "[unit]") {
  // Every cell UNSUPPORTED (an hvp-only entry checked with dualrev) printed `OK: every supported
  // cell passed` and exited 0 (an audit finding).
  HarnessResult r;
  r.entries = {"e"};
  Cell c;
  c.entry = "e";
  c.strategy = "dualrev";
  c.backend = "engine/interp";
  c.mode = "hvp";
  c.status = Status::Unsupported;
  r.cells = {c};
  CHECK(r.compared() == 0);
  CHECK_FALSE(r.ok());
  std::ostringstream table;
  print_table(table, r);
  CHECK(table.str().find("NOTHING CHECKED") != std::string::npos);
  CHECK(to_json(r, HarnessOptions{})["summary"]["ok"] == false);
  // A passing cell beside a wrong closed form: the last line says what failed.
  r.cells[0].status = Status::Pass;
  ClosedFormCheck f;
  f.entry = "e";
  f.function = "e_grad";
  f.status = Status::Fail;
  r.closed_forms = {f};
  CHECK(r.compared() == 2);
  CHECK_FALSE(r.ok());
  std::ostringstream table2;
  print_table(table2, r);
  CHECK(
      table2.str().find("NOT OK: 0 cell(s), 1 closed form(s) and 0 adjoint test(s) did not pass") !=
      std::string::npos);
  // Its error was never measured: null, not a perfect 0.
  CHECK(to_json(r, HarnessOptions{})["closed_forms"][0]["worst_error"].is_null());
}

TEST_CASE("loglog_slope recovers the exponent of exact power laws", "[unit]") {
  auto law = [](double c, double p, std::vector<double> xs) {
    std::vector<std::pair<double, double>> xy;
    for (double x : xs) xy.emplace_back(x, c * std::pow(x, p));
    return xy;
  };
  CHECK(loglog_slope(law(3, 2, {1, 2, 4, 8})) == Approx(2).epsilon(1e-12));
  CHECK(loglog_slope(law(5, 1, {6, 12, 24})) == Approx(1).epsilon(1e-12));
  CHECK(loglog_slope(law(0.5, 3, {10, 100, 1000})) == Approx(3).epsilon(1e-12));
  CHECK(loglog_slope(law(7, 0, {1, 3, 9})) == Approx(0).margin(1e-12));
  CHECK(loglog_slope(law(2, 1.5, {2, 3})) == Approx(1.5).epsilon(1e-12));
  SECTION("points with x or y <= 0 are left out") {
    auto xy = law(3, 2, {1, 2, 4});
    xy.emplace_back(0, 5);
    xy.emplace_back(8, 0);
    xy.emplace_back(-1, 3);
    CHECK(loglog_slope(xy) == Approx(2).epsilon(1e-12));
  }
  SECTION("fewer than two usable points, or one x, give NaN") {
    CHECK(std::isnan(loglog_slope({})));
    CHECK(std::isnan(loglog_slope({{2, 3}})));
    CHECK(std::isnan(loglog_slope({{2, 3}, {0, 4}})));
    CHECK(std::isnan(loglog_slope({{2, 3}, {2, 5}})));
  }
}

TEST_CASE("sweep_sizes multiplies the base sizes and keeps structural 0 and 1", "[unit]") {
  ir::SuiteEntry e;
  e.suite = "t";
  e.name = "sweep";
  e.sizes["small"] = {{"n", 6}, {"m", 3}, {"one", 1}, {"none", 0}};
  auto s = sweep_sizes(e, "small");
  REQUIRE(s.size() == 3);
  CHECK(s[0] == ir::SizeMap{{"n", 6}, {"m", 3}, {"one", 1}, {"none", 0}});
  CHECK(s[1] == ir::SizeMap{{"n", 12}, {"m", 6}, {"one", 1}, {"none", 0}});
  CHECK(s[2] == ir::SizeMap{{"n", 24}, {"m", 12}, {"one", 1}, {"none", 0}});
  CHECK(sweep_sizes(e, "small", {3}).at(0).at("n") == 18);
  CHECK_THROWS_AS(sweep_sizes(e, "full"), Error);
}

TEST_CASE("fd on a dot product: primal cost grows linearly, the gradient's quadratically",
          "[unit]") {
  HarnessOptions o = fd_options();
  o.filter = "papers/dftilde/micro_dot";
  HarnessResult r = run_harness(dftilde(), o);
  REQUIRE(r.entries == std::vector<std::string>{"papers/dftilde/micro_dot"});
  const Cell* gradient = nullptr;
  for (const auto& c : r.cells)
    if (c.mode == "gradient") gradient = &c;
  REQUIRE(gradient);
  REQUIRE(gradient->status == Status::Pass);
  REQUIRE(gradient->complexity);
  const Complexity& c = *gradient->complexity;
  REQUIRE(c.points.size() == 3);
  for (std::size_t k = 1; k < c.points.size(); ++k) {
    CHECK(c.points[k].size == 2 * c.points[k - 1].size);
    CHECK(c.points[k].primal > c.points[k - 1].primal);
    CHECK(c.points[k].derivative > 3 * c.points[k - 1].derivative);
  }
  INFO("primal slope " << c.primal_slope << ", derivative slope " << c.derivative_slope);
  CHECK(c.primal_slope == Approx(1).margin(0.1));
  CHECK(c.derivative_slope == Approx(2).margin(0.15));
  // 2 n + 1 primal evaluations: the ratio is about 2 n + 1, the worst at the last point n = 24.
  CHECK(c.ratio == Approx(49).margin(1.5));
  CHECK_FALSE(c.bound);  // fd is not a reverse mode: no cheap-gradient bound
  CHECK(c.within_bound);
  // Only the first mode is measured.
  for (const auto& cell : r.cells)
    if (&cell != gradient) CHECK_FALSE(cell.complexity);
}

}  // namespace

// A backend that declines every function, as `cpu` declines a construct it cannot compile.
class DecliningBackend : public backends::Backend {
 public:
  std::string_view name() const override { return "test-declines"; }
  std::string description() const override { return "declines everything (harness test)"; }
  // Opt-in, so that the test cases that run after this one keep their default backends.
  bool default_in_checks() const override { return false; }
  std::unique_ptr<backends::Executable> compile(const ir::FunctionPtr&,
                                                const backends::Options&) override {
    throw backends::Unsupported("test-declines: no translation");
  }
};

TEST_CASE("a backend's Unsupported is an UNSUPPORTED cell, compiling backends are opt-in",
          "[unit]") {
  auto& registry = backends::BackendRegistry::instance();
  if (!registry.find("test-declines")) registry.add(std::make_unique<DecliningBackend>());
  HarnessOptions o;
  o.strategies = {"scatter"};
  o.backends = {"test-declines"};
  o.filter = "papers/dftilde/micro_dot";
  o.complexity = false;
  HarnessResult r = run_harness(dftilde(), o);
  REQUIRE(!r.cells.empty());
  for (const auto& c : r.cells) {
    CHECK(c.backend == "test-declines");
    CHECK(c.status == Status::Unsupported);
    if (c.mode == "jvp") continue;  // declined by the strategy itself
    CHECK(c.detail == "error: test-declines: no translation");
  }
  o.backends = {};
  r = run_harness(dftilde(), o);
  for (const auto& c : r.cells) CHECK(c.backend != "cpu");
}

TEST_CASE("adjoint test on an identically zero derivative: rounding noise against the function",
          "[unit]") {
  // paper 003 digest section 9, `neural` (summed softmax: gradient exactly 0). Both sides of
  // <y', J x'> = <J^T y', x'> are rounding noise; judged against the function's magnitude, as a
  // zero group of the error model is, they agree.
  ir::Suite s =
      ir::load_manifest(std::string(ADLAB_SOURCE_DIR) + "/suites/papers/dualrev/manifest.json");
  HarnessOptions o;
  o.strategies = {"fwdvec", "dualrev"};
  o.backends = {"interp"};
  o.complexity = false;
  o.filter = "papers/dualrev/neural";
  HarnessResult r = run_harness({s}, o);
  REQUIRE_FALSE(r.adjoints.empty());
  for (const auto& a : r.adjoints) {
    INFO(a.forward << "/" << a.reverse << ": error " << a.error << " tolerance " << a.tolerance);
    CHECK(a.status == Status::Pass);
    CHECK(a.error > 0);  // noise, not an exact zero: the criterion is exercised
  }
}

TEST_CASE("a strategy named with a variant is checked in that variant, and labelled so", "[unit]") {
  // `--strategy dualrev/naive` ran the default tape variant under the label `dualrev`; naive's
  // own call limit on paper 003's sharing chain shows which variant ran (UNSUPPORTED with its
  // reason since decision 246).
  ir::Suite s =
      ir::load_manifest(std::string(ADLAB_SOURCE_DIR) + "/suites/papers/dualrev/manifest.json");
  HarnessOptions o;
  o.strategies = {"dualrev/naive", "dualrev/staged-map"};
  o.backends = {"interp"};
  o.complexity = false;
  o.filter = "papers/dualrev/sharing8";
  HarnessResult r = run_harness({s}, o);
  REQUIRE(r.cells.size() == 2);
  for (const auto& c : r.cells) {
    INFO(c.strategy << ": " << status_name(c.status) << " " << c.detail);
    if (c.strategy == "dualrev/naive") {
      CHECK(c.status == Status::Unsupported);
      CHECK_THAT(c.detail, Catch::Contains("backpropagator calls"));
    } else {
      CHECK(c.strategy == "dualrev/staged-map");
      CHECK(c.status == Status::Pass);
    }
  }
}

TEST_CASE("sparse/coo's Jacobian blocks of stored entries are compared as dense tensors",
          "[unit]") {
  // digest 004 9.1 test 11 (outer product): the block's keys are full indices (i, j, k).
  ir::Suite s =
      ir::load_manifest(std::string(ADLAB_SOURCE_DIR) + "/suites/papers/nablasd/manifest.json");
  HarnessOptions o;
  o.strategies = {"sparse/coo"};
  o.backends = {"interp"};
  o.complexity = false;
  o.filter = "papers/nablasd/outer";
  HarnessResult r = run_harness({s}, o);
  bool jacobian = false;
  for (const auto& c : r.cells) {
    INFO(c.mode << ": " << status_name(c.status) << " " << c.detail);
    CHECK(c.strategy == "sparse/coo");
    if (c.mode == "jacobian") {
      jacobian = true;
      CHECK(c.status == Status::Pass);
    }
  }
  CHECK(jacobian);
}

}  // namespace adlab::checker

namespace adlab::checker {

TEST_CASE(
    "a gradient whose work grows faster than the primal's FAILs its cost bound (decisions 240, "
    "242)",
    "[unit]") {
  ir::Suite s = ir::load_manifest(std::string(ADLAB_SOURCE_DIR) +
                                  "/checker/tests/data/work_growth/manifest.json");
  HarnessOptions o;
  o.strategies = {"iverson", "dualrev", "scatter", "fwdvec"};
  o.backends = {"interp"};
  HarnessResult r = run_harness({s}, o);
  int seen = 0;
  for (const auto& c : r.cells) {
    INFO(c.entry << " " << c.strategy << ": " << c.detail);
    REQUIRE(c.complexity);
    const Complexity& cx = *c.complexity;
    if (c.strategy == "iverson") {
      // within paper 000's model it is cheap; its iterations are n^2: the marginal work per
      // unit of the primal's doubles with n. dD/dP rises, so the sweep goes on to n = 256
      // (decision 242): three points missed poly_mod15 (1.45) and mod_dot_step (0.73)
      REQUIRE(cx.points.size() == 5);
      CHECK(cx.ratio < 2.6);
      CHECK(cx.within_bound);
      CHECK(cx.work_growth > 3);
      CHECK(cx.work_grows_faster);
      CHECK(c.status == Status::Fail);
      CHECK_THAT(c.detail, Catch::Contains("the derivative's work grows faster than the primal's"));
      if (c.entry == "work_growth/mod_dot") CHECK(cx.work_growth == Approx(7.34).margin(0.01));
    } else if (c.strategy == "fwdvec") {  // forward mode: n passes, no bound claimed
      REQUIRE(cx.points.size() == 3);     // its growth is not judged: no longer sweep
      CHECK(c.status == Status::Pass);
      CHECK(c.detail.find("work grows") == std::string::npos);
    } else {  // dualrev and scatter: linear
      CHECK_FALSE(cx.work_grows_faster);
      CHECK(c.status == Status::Pass);
      // a flat D / P ends the sweep at three points; mod_dot_step's part starting at n = 64
      // raises D / P at one step and the sweep goes on, without a verdict of growth
      if (c.entry == "work_growth/mod_dot_step") {
        CHECK(cx.points.size() == 5);
      } else {
        CHECK(cx.points.size() == 3);
        CHECK(cx.work_growth == Approx(1).margin(0.1));
      }
    }
    ++seen;
  }
  CHECK(seen == 12);
}

}  // namespace adlab::checker

namespace adlab::checker {

TEST_CASE(
    "other variants: each strategy's non-default variants are checked, and dualrev/naive's call "
    "budget is UNSUPPORTED with its reason, not an ERROR (decision 246)",
    "[slow]") {
  // paper 003's sharing chain of depth 8, repeated: 2^n backpropagator calls for stage 1
  ir::Suite s =
      ir::load_manifest(std::string(ADLAB_SOURCE_DIR) + "/suites/papers/dualrev/manifest.json");
  HarnessOptions o;
  o.strategies = {"dualrev", "fd"};  // fd has one variant: none to check
  o.other_variants = true;
  o.filter = "sharing8";
  o.complexity = false;
  HarnessResult r = run_harness({s}, o);
  std::set<std::string> labels;
  for (const auto& c : r.cells) {
    INFO(c.strategy << ": " << c.detail);
    labels.insert(c.strategy);
    if (c.strategy == "dualrev/naive") {
      CHECK(c.status == Status::Unsupported);
      CHECK_THAT(c.detail, Catch::Contains("backpropagator calls"));
    } else {
      CHECK(c.status == Status::Pass);
    }
  }
  CHECK(labels == std::set<std::string>{"dualrev/staged-map", "dualrev/naive"});
  CHECK(r.ok());
}

}  // namespace adlab::checker

namespace adlab::checker {

TEST_CASE("an adjoint test over a variant's declared budget is recorded UNSUPPORTED (decision 246)",
          "[slow]") {
  ir::Suite s = ir::load_manifest(std::string(ADLAB_SOURCE_DIR) +
                                  "/checker/tests/data/over_budget/manifest.json");
  HarnessOptions o;
  o.strategies = {"fwdvec", "dualrev/naive"};
  o.complexity = false;
  HarnessResult r = run_harness({s}, o);
  for (const auto& c : r.cells) {
    INFO(c.strategy << ": " << c.detail);
    CHECK(c.status == Status::Pass);  // one row at a time stays within the budget
  }
  bool seen = false;
  for (const auto& a : r.adjoints) {
    INFO(a.forward << " / " << a.reverse << ": " << a.detail);
    if (a.reverse != "dualrev/naive") continue;
    seen = true;
    CHECK(a.status == Status::Unsupported);
    CHECK_THAT(a.detail, Catch::Contains("backpropagator calls"));
  }
  CHECK(seen);
  CHECK(r.ok());
}

}  // namespace adlab::checker

namespace adlab::checker {

TEST_CASE(
    "sqrt at a base of 0 that perturbation moves is a kink where the one-sided slopes "
    "differ, a flat 0 is not, along any of the stepped directions (decisions 249, 254)",
    "[unit]") {
  ir::Suite s = ir::load_manifest(std::string(ADLAB_SOURCE_DIR) +
                                  "/checker/tests/data/branch_point/manifest.json");
  HarnessOptions o;
  o.strategies = {"fwdvec", "scatter"};  // forward mode gives 0 at both points, reverse NaN
  o.complexity = false;
  HarnessResult r = run_harness({s}, o);
  REQUIRE(r.cells.size() == 24);
  for (const auto& c : r.cells) {
    INFO(c.entry << " " << c.strategy << ": " << c.detail);
    if (c.entry == "branch_point/x_abs_x") {  // differentiable (0), its differences O(h): judged
      CHECK(c.status == (c.strategy == "fwdvec" ? Status::Pass : Status::Fail));  // 0 * inf
      continue;  // (the Richardson step's 3.3e-13 was a false FAIL before decision 254)
    }
    if (c.entry == "branch_point/flat") {
      CHECK(c.status == Status::Pass);  // sqrt(max(x, 0)) at x = -1: derivative 0
      continue;
    }
    if (c.entry == "branch_point/quartic") {  // x^2: judged, not a kink; reverse mode's
      CHECK(c.status == (c.strategy == "fwdvec" ? Status::Pass : Status::Fail));  // inf * 0
      continue;
    }
    CHECK(c.status == Status::AtKink);
    if (c.entry == "branch_point/diagonal") {  // seen only with both coordinates stepped
      CHECK_THAT(c.detail, Catch::Contains("every input coordinate together along (1, ..., 1)"));
      continue;
    }
    if (c.entry == "branch_point/anti_diagonal" || c.entry == "branch_point/sextic_root") {
      CHECK_THAT(c.detail, Catch::Contains("together along (1, -1, 1, ...)"));  // decision 254
      continue;
    }
    if (c.entry == "branch_point/octic_root" ||  // 0 along all four lines the others step
        c.entry == "branch_point/wide_cone") {   // a cone no fixed direction enters
      CHECK_THAT(c.detail, Catch::Contains("together along seeded direction"));
      continue;
    }
    if (c.entry == "branch_point/two_orders") {
      CHECK_THAT(c.detail, Catch::Contains("converge to no single order"));
      continue;
    }
    if (c.entry == "branch_point/constant_root_first") {  // not the constant sqrt at 0 before it
      CHECK_THAT(c.detail, Catch::Contains("branch_point/cusps.adl:39:31)"));
      continue;
    }
    // the node sqrt(x * x) is shared by both functions: each note cites its own line
    CHECK_THAT(c.detail, Catch::Contains(c.entry == "branch_point/abs_by_sqrt" ? "cusps.adl:7:"
                                                                               : "cusps.adl:4:"));
  }
}

}  // namespace adlab::checker
