// The rounding probe (decision 239): the interpreter's one-rounding-per-operation mode, and the
// harness resampling inputs where a derivative is far worse conditioned than its function
// (an audit fuzz's false FAIL, decision 236 (a): sin(0.1 x) where cos(0.1 x) is small).
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "checker/harness/harness.h"
#include "ir/interp/interpreter.h"
#include "ir/interp/scalar.h"
#include "ir/suite/manifest.h"
#include "ir/syntax/parser.h"

using namespace adlab;
using namespace adlab::checker;
using ir::mp50;

namespace {

ir::Suite probe_suite() {
  return ir::load_manifest(std::string(ADLAB_SOURCE_DIR) +
                           "/checker/tests/data/rounding_probe/manifest.json");
}

HarnessResult run(bool probe, const std::string& filter) {
  HarnessOptions o;
  o.strategies = {"fwdvec", "dualrev"};
  o.backends = {"interp"};
  o.complexity = false;
  o.rounding_probe = probe;
  o.filter = filter;
  return run_harness({probe_suite()}, o);
}

template <class T>
ir::BasicTensor<T> scalar(T x) {
  ir::BasicTensor<T> t;
  t.values = {x};
  return t;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("rounding probe: one relative rounding of 2^-53 per operation, the same in every run",
          "[unit]") {
  auto m = ir::parse_module(
      "func f(x: f64, y: f64) -> f64 {\n  return sum[i < 4] x * y + f64(i)\n}\n", "probe.adl");
  const auto& f = *m.entry("f");
  std::vector<ir::BasicTensor<mp50>> in{scalar(mp50(3)), scalar(mp50(mp50(1) / 3))};
  ir::EvalOptions exact_options, probe_options;
  probe_options.rounding_probe = 17;
  ir::Interpreter<mp50> exact(exact_options), probed(probe_options);
  const mp50 want = exact.run_tensors(f, in)[0].values[0];  // 4 x y + 6 = 10
  const mp50 got = probed.run_tensors(f, in)[0].values[0];
  CHECK(abs(want - 10) < mp50(1e-45));
  // 4 products, 4 additions of i, 3 additions of the sum: 11 roundings of at most 2^-53 each
  const double moved = static_cast<double>(abs(got - want) / want);
  CHECK(moved > 0);
  CHECK(moved < 11 * 0x1p-53);
  CHECK(probed.run_tensors(f, in)[0].values[0] == got);  // restarted by every run
  probe_options.rounding_probe = 18;
  ir::Interpreter<mp50> other(probe_options);
  CHECK(other.run_tensors(f, in)[0].values[0] != got);  // another seed, other signs
  // a scatter's additions into a slot: the first (into 0) is exact, each later one is rounded
  auto sc = ir::parse_module(
      "func g(x: f64) -> f64[2] {\n  return scatter[i < 4] to f64[2] at "
      "(i / 3) add x\n}\n",
      "scatter.adl");
  const auto& g = *sc.entry("g");
  ir::Interpreter<mp50> g_exact(exact_options),
      g_probed(ir::EvalOptions{{}, true, false, nullptr, 17});
  const auto ge = g_exact.run_tensors(g, {in[1]})[0].values;
  const auto gp = g_probed.run_tensors(g, {in[1]})[0].values;
  const double slot0 = static_cast<double>(abs(gp[0] - ge[0]) / ge[0]);
  CHECK(slot0 > 0);  // x + x and (x + x) + x: two roundings
  CHECK(slot0 < 2.01 * 0x1p-53);
  CHECK(gp[1] == ge[1]);  // one contribution: 0 + x, exact
  // double runs ignore it
  ir::EvalOptions d;
  d.rounding_probe = 17;
  ir::Interpreter<double> in_double(d);
  ir::Interpreter<double> plain(ir::EvalOptions{});
  const std::vector<ir::Tensor> din{scalar(3.0), scalar(1.0 / 3)};
  CHECK(in_double.run_tensors(f, din)[0].values[0] == plain.run_tensors(f, din)[0].values[0]);
}

TEST_CASE("rounding probe: a derivative ill-conditioned at fixed inputs FAILs and says why",
          "[unit]") {
  // x = 10005.97: cos(0.1 x) = 2.6e-5, so the rounding of 0.1 x moves 0.1 cos(0.1 x) by about
  // 4e-11 relative in every correct strategy, against a tolerance of 1.7e-14
  for (bool probe : {true, false}) {
    HarnessResult r = run(probe, "near_zero_of_derivative");
    int failed = 0;
    for (const auto& c : r.cells) {
      if (c.status == Status::Unsupported) continue;
      INFO(c.strategy << " " << c.mode << ": " << c.detail);
      CHECK(c.status == Status::Fail);  // the inputs are the manifest's: no resample helps
      CHECK(contains(c.detail, "ill-conditioned at these inputs (fixed: no other draw)") == probe);
      ++failed;
    }
    CHECK(failed == 5);  // fwdvec gradient, jvp, vjp; dualrev gradient, vjp
  }
}

TEST_CASE("rounding probe: an ill-conditioned random draw is resampled", "[unit]") {
  // seed 3 draws x where cos(0.1 x) is about 0.04: every correct strategy is 9.2e-13 off
  // against 2.3e-13 without the probe; the probe's move is 2.9e-12, and seed 1000006 is taken
  HarnessResult with = run(true, "resampled");
  HarnessResult without = run(false, "resampled");
  REQUIRE(with.cells.size() == without.cells.size());
  for (std::size_t k = 0; k < with.cells.size(); ++k) {
    const Cell& a = with.cells[k];
    const Cell& b = without.cells[k];
    if (a.status == Status::Unsupported) continue;
    INFO(a.strategy << " " << a.mode << ": " << a.detail << " / " << b.detail);
    CHECK(a.status == Status::Pass);
    CHECK(contains(a.detail, "inputs resampled (seed 1000006): at seed 3"));
    CHECK(b.status == Status::Fail);
    CHECK(b.worst_error > 3 * b.tolerance);
  }
}
