// Side by side: `scatter` (paper 002, `+=` adjoints: one scatter per index
// site) and `iverson` (paper 000, gathers only) on every suite program both
// differentiate (issue: scatter's comparison with iverson). Same gradients;
// operation counts and scatters reported, so the cost of
// `+=` against gather is visible (docs/strategies/scatter.md).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "ad/strategy.h"
#include "ir/suite/inputs.h"
#include "ir/suite/manifest.h"
#include "ir/syntax/parser.h"

using namespace adlab;
using namespace adlab::ad;

namespace {

struct Run {
  std::vector<double> gradient;
  std::int64_t cost = 0;  // paper cost: + - * / and primitives
  std::size_t scatters = 0;
};

// The gradient of `e` by `strategy` on interp, or nothing when the strategy
// declines.
std::optional<Run> gradient(const std::string& strategy, const ir::FunctionPtr& f,
                            const ir::SuiteEntry& e, const std::vector<ir::Tensor>& in,
                            const ir::SizeMap& sizes) {
  const Strategy* s = StrategyRegistry::instance().find(strategy);
  REQUIRE(s != nullptr);
  Derivative d;
  try {
    d = s->differentiate(f, Request{e.wrt, Mode::Gradient, ""});
  } catch (const Unsupported&) {
    return std::nullopt;
  }
  REQUIRE(d.is_function());
  backends::Options o;
  o.sizes = sizes;
  o.count_ops = true;
  auto exe = d.executable("interp", o);
  auto out = exe->run(in);
  Run r;
  for (std::size_t k = 1; k < out.size(); ++k)
    r.gradient.insert(r.gradient.end(), out[k].values.begin(), out[k].values.end());
  r.cost = exe->counts()->paper_cost();
  r.scatters = ir::count_nodes(*d.function, ir::NodeKind::Scatter);
  return r;
}

}  // namespace

TEST_CASE(
    "scatter and iverson side by side: same gradients, the cost of += "
    "against gather",
    "[slow][report]") {
  std::ostringstream table;
  table << "| entry | primal | scatter | scatters | iverson | iverson / "
           "scatter |\n"
        << "|---|---|---|---|---|---|\n";
  std::size_t both = 0;
  for (const auto& suite : ir::find_suites(std::string(ADLAB_SOURCE_DIR) + "/suites")) {
    for (const auto& e : suite.entries) {
      if (e.expect_at_kink) continue;
      if (!e.modes.empty() &&
          std::find(e.modes.begin(), e.modes.end(), "gradient") == e.modes.end())
        continue;
      auto f = ir::parse_file(e.program).entry(e.function);
      if (f->results.size() != 1 || !f->results[0]->type.is_float_scalar()) continue;
      const auto& sizes = e.size_set("small");
      auto in = ir::entry_inputs(*f, e, "small");
      auto sc = gradient("scatter", f, e, in, sizes);
      auto iv = gradient("iverson", f, e, in, sizes);
      if (!sc || !iv) continue;
      ++both;
      INFO(e.id());
      REQUIRE(sc->gradient.size() == iv->gradient.size());
      double scale = 0;
      for (double g : sc->gradient) scale = std::max(scale, std::fabs(g));
      for (std::size_t k = 0; k < sc->gradient.size(); ++k)
        CHECK(iv->gradient[k] == Approx(sc->gradient[k]).epsilon(1e-10).margin(1e-12 * scale));
      CHECK(iv->scatters == 0);  // paper 000: gathers only
      backends::Options o;
      o.sizes = sizes;
      o.count_ops = true;
      auto primal = backends::BackendRegistry::instance().find("interp")->compile(f, o);
      primal->run(in);
      auto p = primal->counts()->paper_cost();
      table << "| " << e.id() << " | " << p << " | " << sc->cost << " | " << sc->scatters << " | "
            << iv->cost << " | " << std::fixed << std::setprecision(2)
            << static_cast<double>(iv->cost) /
                   static_cast<double>(std::max<std::int64_t>(sc->cost, 1))
            << " |\n";
    }
  }
  CHECK(both >= 20);  // the paper 000 suite and the array programs both strategies handle
  std::cout << table.str() << both << " programs differentiated by both\n";
}
