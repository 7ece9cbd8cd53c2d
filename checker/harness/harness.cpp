// The harness loop: entries x strategies x backends x modes (DESIGN 4, 6).
#include "checker/harness/harness.h"

#include "checker/gradcheck/magnitude.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <optional>
#include <set>

#include "ad/strategy.h"
#include "checker/gradcheck/error_model.h"
#include "checker/harness/cell_check.h"
#include "checker/harness/expected_values.h"
#include "checker/harness/rounding_probe.h"
#include "ir/context.h"
#include "ir/interp/interpreter.h"
#include "ir/interp/scalar.h"
#include "ir/suite/inputs.h"
#include "ir/syntax/parser.h"
#include "ir/syntax/printer.h"
#include "ir/tensor/tensor_ops.h"

namespace adlab::checker {

const char* status_name(Status s) {
  switch (s) {
    case Status::Pass:
      return "PASS";
    case Status::Fail:
      return "FAIL";
    case Status::AtKink:
      return "AT-KINK";
    case Status::Unsupported:
      return "UNSUPPORTED";
    case Status::Error:
      return "ERROR";
  }
  return "?";
}

std::size_t HarnessResult::compared() const {
  std::size_t n = closed_forms.size();
  for (const auto& c : cells) n += c.status != Status::Unsupported;
  for (const auto& a : adjoints) n += a.status != Status::Unsupported;
  return n;
}

bool HarnessResult::ok() const {
  if (compared() == 0) return false;  // every cell UNSUPPORTED: nothing was checked
  for (const auto& c : cells)
    if (c.status != Status::Pass && c.status != Status::Unsupported &&
        !(c.status == Status::AtKink && c.expected_kink))
      return false;
  for (const auto& c : closed_forms)
    if (c.status != Status::Pass) return false;
  for (const auto& a : adjoints)
    if (a.status != Status::Pass && a.status != Status::Unsupported) return false;
  return true;
}

namespace {

std::vector<ad::Mode> entry_modes(const ir::SuiteEntry& e, const ir::Function& f) {
  std::vector<ad::Mode> modes;
  const bool scalar = f.results.size() == 1 && f.results[0]->type.is_float_scalar();
  for (const auto& m : e.modes) {
    modes.push_back(ad::parse_mode(m));
    // A manifest mistake, not a strategy's limit: as UNSUPPORTED it would pass unchecked.
    if (!scalar && (modes.back() == ad::Mode::Gradient || modes.back() == ad::Mode::Hvp))
      throw Error("manifest: mode " + m + " needs one floating scalar result, and " + e.id() +
                  " does not return one (use jacobian, jvp or vjp)");
  }
  if (modes.empty()) modes.push_back(scalar ? ad::Mode::Gradient : ad::Mode::Jacobian);
  return modes;
}

// Inputs away from kinks: resample (new seeds) while the primal comes within the margin.
bool prepare_entry(EntryContext& ctx, const HarnessOptions& o, std::string& kink_note) {
  const ir::SuiteEntry& e = *ctx.entry;
  ctx.module = ir::parse_file(e.program);
  ctx.f = ctx.module.entry(e.function);
  ctx.sizes = e.size_set(o.sizes);
  ctx.wrt = e.wrt;
  // The first attempt away from kinks where the rounding probe moved the derivative too far:
  // used when no attempt is better (decision 239).
  struct Attempt {
    std::uint64_t seed;
    std::vector<ir::Tensor> inputs;
    Reference ref;
    Tolerance tolerance;
    RoundingProbe probe;
  };
  std::optional<Attempt> ill_conditioned;
  int resamples = 0;
  for (int attempt = 0; attempt <= o.kink_resamples; ++attempt) {
    ir::SuiteEntry shifted = e;
    shifted.seed = e.seed + static_cast<std::uint64_t>(attempt) * 1000003;
    std::vector<ir::Tensor> inputs = ir::entry_inputs(*ctx.f, shifted, o.sizes);
    if (attempt > 0 && inputs == ctx.inputs) break;  // fixed inputs: every seed draws the same
    resamples = attempt;
    ctx.seed = shifted.seed;
    ctx.inputs = std::move(inputs);
    ReferenceOptions ro = o.reference;
    ro.sizes = ctx.sizes;
    if (e.fd_step) ro.step = *e.fd_step;
    if (e.fd_levels) ro.levels = *e.fd_levels;
    ctx.reference_options = ro;
    ctx.ref = reference_jacobian(*ctx.f, ctx.inputs, ctx.wrt, ro);
    ctx.ref.magnitude = reference_magnitudes(*ctx.f, ctx.inputs, ctx.ref, ro);
    bool near = ctx.ref.kink.margin < o.kink_margin;
    if (!near && !ctx.ref.branch_change) {
      ctx.tolerance = derive_tolerance(*ctx.f, ctx.inputs, ctx.ref, ctx.sizes, 0, ctx.wrt);
      if (!o.rounding_probe) return true;
      RoundingProbe probe = probe_rounding(ctx);
      if (!probe.ran || probe.within) {
        if (ill_conditioned)
          ctx.resampled_note = "inputs resampled (seed " + std::to_string(ctx.seed) +
                               "): at seed " + std::to_string(ill_conditioned->seed) + ", " +
                               describe(ill_conditioned->probe);
        return true;
      }
      if (!ill_conditioned)
        ill_conditioned = Attempt{ctx.seed, ctx.inputs, ctx.ref, ctx.tolerance, probe};
      continue;
    }
    ir::FunctionPositions cite_in(ctx.f->pos);  // a shared node: its occurrence in this function
    auto p = ir::pos_of(ctx.ref.kink.where, ctx.f->pos.source);
    std::string closest = ctx.ref.kink.where.defined()
                              ? ctx.ref.kink.what + (p.valid() ? " at " + p.str() : std::string())
                              : std::string("no switch recorded");
    if (auto b = ir::pos_of(ctx.ref.kink.branch_point, ctx.f->pos.source);
        ctx.ref.kink.branch_point.defined())
      closest += std::string("; at 0: `") +
                 ir::op_name(ctx.ref.kink.branch_point.as<ir::Prim>()->op) + "`" +
                 (b.valid() ? " at " + b.str() : std::string());
    char margin[32];
    std::snprintf(margin, sizeof margin, "%.3g", ctx.ref.kink.margin);
    kink_note = near ? (ctx.ref.kink.margin == 0 ? std::string("the inputs are exactly at a switch")
                                                 : "the inputs are within " + std::string(margin) +
                                                       " (relative) of a switch") +
                           " (" + closest + ")"
                     : "the finite-difference stencil crosses a switch: " + ctx.ref.branch_note +
                           " (closest: " + closest + ")";
  }
  if (ill_conditioned) {  // no attempt both away from kinks and well conditioned: the first one
    ctx.seed = ill_conditioned->seed;
    ctx.inputs = std::move(ill_conditioned->inputs);
    ctx.ref = std::move(ill_conditioned->ref);
    ctx.tolerance = std::move(ill_conditioned->tolerance);
    ctx.conditioning_note = "the derivative is ill-conditioned at these inputs (" +
                            (resamples == 0 ? std::string("fixed: no other draw")
                                            : std::to_string(resamples) + " resamples tried") +
                            "): " + describe(ill_conditioned->probe);
    return true;
  }
  return false;
}

void check_closed_form(const EntryContext& ctx, HarnessResult& r) {
  const ir::SuiteEntry& e = *ctx.entry;
  if (!e.expected.contains("gradient") || !e.expected["gradient"].is_string()) return;
  ClosedFormCheck c;
  c.entry = e.id();
  c.function = e.expected["gradient"].get<std::string>();
  try {
    auto g = ctx.module.entry(c.function);
    ir::Interpreter<double> interp(ir::EvalOptions{ctx.sizes, false, false});
    auto out = interp.run_tensors(*g, ctx.inputs);
    std::vector<double> got;
    for (const auto& t : out) got.insert(got.end(), t.values.begin(), t.values.end());
    if (ctx.ref.out.size != 1) throw Error("expected.gradient needs a scalar result");
    const Tolerance& tol = ctx.tolerance;
    // A closed form is a different program: allow its own rounding (its op count) too.
    ir::Interpreter<double> counter(ir::EvalOptions{ctx.sizes, true, false});
    counter.run_tensors(*g, ctx.inputs);
    c.tolerance = tol.allowing_ops(counter.counts().total()).value;
    const std::vector<std::size_t> groups = ctx.ref.in.block_sizes();
    // the gradient's blocks, as a strategy's gradient cell judges them (decisions 199, 202)
    const std::vector<double> tolerances =
        group_tolerances(ctx, ad::Mode::Gradient, tol.allowing_ops(counter.counts().total()));
    Comparison cmp =
        compare(got, ctx.ref.jacobian, c.tolerance, groups, ctx.ref.primal_scale(), {}, tolerances);
    c.tolerance = cmp.tolerance;
    const std::string structure =
        structure_mismatch(out, ctx.ref.in, ctx.inputs, "differentiated parameter");
    if (got.size() != ctx.ref.jacobian.size()) {
      c.status = Status::Fail;
      c.detail = "the closed form has " + std::to_string(got.size()) + " entries, the gradient " +
                 std::to_string(ctx.ref.jacobian.size());
    } else if (!structure.empty()) {
      c.status = Status::Fail;
      c.detail = "closed form: " + structure;
    } else {
      c.status = cmp.pass ? Status::Pass : Status::Fail;
      // a count or structure FAIL measured no error (a reviewing helper; decision 223)
      c.worst_error = cmp.worst_error;
      c.measured = true;
      c.where = ctx.ref.in.describe(cmp.worst_index, ctx.inputs);
      if (!cmp.pass)
        c.detail =
            "closed form " + ir::number_str(cmp.got) + ", reference " + ir::number_str(cmp.want);
    }
  } catch (const std::exception& ex) {
    c.status = Status::Error;
    c.detail = ex.what();
  }
  r.closed_forms.push_back(c);
}

// The paper's printed primal values and closed forms (`expected.primal`, `primal_values`) against
// the program run by the reference interpreter on the same inputs.
void check_expected_primals(const EntryContext& ctx, HarnessResult& r) {
  const ir::SuiteEntry& e = *ctx.entry;
  if (!e.expected.contains("primal") && !e.expected.contains("primal_values")) return;
  try {
    ir::Interpreter<double> interp(ir::EvalOptions{ctx.sizes, false, false});
    const auto got = interp.run_tensors(*ctx.f, ctx.inputs);
    for (const auto& want : expected_primals(ctx.module, *ctx.f, e, ctx.inputs, ctx.sizes)) {
      ClosedFormCheck c;
      c.entry = e.id();
      c.function = want.source;
      c.tolerance = e.tolerance;
      c.detail = compare_results(got, want.results, e.tolerance);
      c.status = c.detail.empty() ? Status::Pass : Status::Fail;
      r.closed_forms.push_back(c);
    }
  } catch (const std::exception& ex) {
    ClosedFormCheck c;
    c.entry = e.id();
    c.function = "expected primal";
    c.status = Status::Error;
    c.detail = ex.what();
    r.closed_forms.push_back(c);
  }
}

// A strategy as the run names it: `name/variant` checks that variant (it ran the default one
// under the strategy's name).
struct ChosenStrategy {
  const ad::Strategy* strategy;
  std::string variant;  // "" = the default
  std::string label;    // "sparse/coo", or the name alone
  ad::Request request(const std::vector<std::string>& wrt, ad::Mode m) const {
    return ad::Request{wrt, m, variant};
  }
};

// <y', J x'> by the forward strategy against <J^T y', x'> by the reverse one.
// `over_budget`: a side whose cell exceeded its declared budget on this entry; each run would
// spend it again, so the test is recorded UNSUPPORTED, not run (decision 246).
void check_adjoint(const EntryContext& ctx, const ChosenStrategy& forward,
                   const ChosenStrategy& reverse, const std::string& over_budget,
                   HarnessResult& r) {
  const ad::Strategy &fwd = *forward.strategy, &rev = *reverse.strategy;
  AdjointCheck a;
  a.entry = ctx.entry->id();
  a.forward = forward.label;
  a.reverse = reverse.label;
  if (!over_budget.empty()) {
    a.status = Status::Unsupported;
    a.detail = "not run: " + over_budget + " exceeded its declared budget on this entry";
    r.adjoints.push_back(a);
    return;
  }
  try {
    backends::Options bo;
    bo.sizes = ctx.sizes;
    std::unique_ptr<backends::Executable> jf, jr;
    try {
      jf = fwd.differentiate(ctx.f, forward.request(ctx.wrt, ad::Mode::Jvp))
               .executable("interp", bo);
      jr = rev.differentiate(ctx.f, reverse.request(ctx.wrt, ad::Mode::Vjp))
               .executable("interp", bo);
    } catch (const ad::Unsupported&) {
      return;  // not a pair that applies to this entry
    }
    Tolerance tol = ctx.tolerance.with_floor(
        std::max(fwd.capabilities().accuracy, rev.capabilities().accuracy));
    // both sides sum over every block: the loosest block's tolerance (decision 202)
    a.tolerance = 0;
    for (ad::Mode m : {ad::Mode::Jvp, ad::Mode::Vjp})
      for (double t : group_tolerances(ctx, m, tol)) a.tolerance = std::max(a.tolerance, t);
    // Equilibrated directions (decision 193) and plain random ones (decision 202), as the jvp
    // and vjp cells use them; random ones only for a strategy with a declared accuracy (finite
    // differences): entries 1e8 apart degrade its own truncation error. f32 blocks are rounded.
    const bool exact = fwd.capabilities().accuracy == 0 && rev.capabilities().accuracy == 0;
    std::vector<std::pair<std::vector<double>, std::vector<double>>> pairs;
    if (exact)
      pairs.emplace_back(equilibrated_direction(ctx.ref, Along::Columns, ctx.seed * 31 + 5),
                         equilibrated_direction(ctx.ref, Along::Rows, ctx.seed * 31 + 6));
    pairs.emplace_back(random_direction(ctx.ref.in.size, ctx.seed * 31 + 5),
                       random_direction(ctx.ref.out.size, ctx.seed * 31 + 6));
    for (std::size_t p = 0; p < pairs.size(); ++p) {
      const auto xdir = representable(ctx.ref.in, ctx.inputs, pairs[p].first);
      const auto ydir = representable(ctx.ref.out, ctx.ref.results, pairs[p].second);
      // Declined while running is an ERROR of the test, not a pair that does not apply: it was
      // dropped from the report silently (an audit finding).
      auto jx = run_mode(ctx, *jf, ad::Mode::Jvp, xdir).derivative;
      auto jty = run_mode(ctx, *jr, ad::Mode::Vjp, ydir).derivative;
      if (jx.size() != ydir.size() || jty.size() != xdir.size())
        throw Error("derivative sizes do not match the layout");
      double lhs = 0, rhs = 0, terms = 0;
      for (std::size_t i = 0; i < jx.size(); ++i) {
        lhs += ydir[i] * jx[i];
        terms += std::fabs(ydir[i] * jx[i]);
      }
      for (std::size_t j = 0; j < jty.size(); ++j) {
        rhs += jty[j] * xdir[j];
        terms += std::fabs(jty[j] * xdir[j]);
      }
      // Cancelling sums: judge against the sum of absolute terms (DESIGN 2.3).
      double primal_scale = ctx.ref.primal_scale();
      // Only when every term vanishes (an identically zero derivative) against the function's
      // magnitude, as the error model judges a zero group (rounding noise of a few u times it is
      // what correct derivatives compute there, e.g. paper 003's summed softmax). "Vanishes" is
      // decided by the reference, not by the strategies' own noise: no chain-rule term (|J|)
      // and no reference entry beyond its resolution. Where |J| is known, the terms of |y'| |J|
      // |x'| count too: a Jacobian zero by cancellation (exp(x + y) - exp(x) exp(y)) is rounding
      // noise of those terms, not of f (decision 209). An absolute threshold (1e-30 |f|) called
      // x^3's 3x^2 = 1e-79 at -2e-40 zero and judged it against |f| = 8e-120 (a false FAIL at
      // 1e24), and let a derivative of 1e-25 beside f = 1e10 differ by 100% (decision 229).
      const std::vector<double>& mag = ctx.ref.magnitude;
      const bool has_mag = mag.size() == ydir.size() * xdir.size();
      const bool has_res = ctx.ref.resolution.size() == ydir.size() * xdir.size();
      double ref_terms = 0, mag_terms = 0, res_terms = 0;
      for (std::size_t i = 0; i < ydir.size(); ++i)
        for (std::size_t j = 0; j < xdir.size(); ++j) {
          const std::size_t k = i * xdir.size() + j;
          ref_terms += std::fabs(ydir[i] * ir::math::to_double(ctx.ref.at(i, j)) * xdir[j]);
          if (has_mag && std::isfinite(mag[k]))
            mag_terms += std::fabs(ydir[i]) * mag[k] * std::fabs(xdir[j]);
          if (has_res) res_terms += std::fabs(ydir[i]) * ctx.ref.resolution[k] * std::fabs(xdir[j]);
        }
      const bool vanishes =
          has_res ? !(mag_terms > 0) && !(ref_terms > res_terms)
                  : !(std::max(ref_terms, mag_terms) > 1e-30 * std::max(1.0, primal_scale));
      double denom =
          vanishes ? std::max(primal_scale, 1e-300) : std::max({terms, mag_terms, 1e-300});
      const double error = std::isfinite(lhs) && std::isfinite(rhs)
                               ? std::fabs(lhs - rhs) / denom
                               : std::numeric_limits<double>::infinity();
      // the pair furthest from agreeing is the one reported; NaN and inf fail
      if (p == 0 || !(error <= a.error)) {
        a.lhs = lhs;
        a.rhs = rhs;
        a.error = error;
      }
      if (!(error <= a.tolerance)) break;
    }
    a.status = a.error <= a.tolerance ? Status::Pass : Status::Fail;  // NaN and inf fail
    if (a.status == Status::Fail) a.detail = "<y', J x'> and <J^T y', x'> differ";
  } catch (const ad::OverBudget& ex) {
    // a side's declared budget (dualrev/naive's calls): recorded, as a cell is (decision 246)
    a.status = Status::Unsupported;
    a.detail = ex.what();
  } catch (const std::exception& ex) {
    a.status = Status::Error;
    a.detail = ex.what();
  }
  r.adjoints.push_back(a);
}

// The mode whose cost is measured: one reverse pass (gradient, else vjp) where the entry asks
// for one, since that is what the cheap-gradient bound speaks of; else its Jacobian.
std::optional<ad::Mode> cost_mode(const std::vector<ad::Mode>& modes) {
  for (ad::Mode m : {ad::Mode::Gradient, ad::Mode::Vjp, ad::Mode::Jacobian})
    if (std::find(modes.begin(), modes.end(), m) != modes.end()) return m;
  return std::nullopt;
}

// Operation counts over a size sweep (DESIGN 4.3), in the cost mode.
// `no_counts` is set when the backend's executable counts no operations.
std::optional<Complexity> measure(const EntryContext& ctx, const ad::Strategy& s,
                                  const ad::Request& req, const std::string& backend,
                                  const HarnessOptions& o, bool* no_counts) {
  if (req.mode != ad::Mode::Gradient && req.mode != ad::Mode::Vjp && req.mode != ad::Mode::Jacobian)
    return std::nullopt;
  Complexity c;
  double last_primal_seconds = 0, last_derivative_seconds = 0;
  // the sweep goes on only where its growth is judged (a reverse gradient or vjp)
  const bool growth_judged = s.capabilities().reverse && req.mode != ad::Mode::Jacobian;
  bool stopped_by_budget = false;
  // A larger point is skipped when its derivative would take more than this long: the estimate
  // scales the last point's derivative time by the growth of primal time times input count
  // (fd's growth). Time, not operation counts: iterations under false brackets cost no
  // operations but do take time in the interpreter.
  constexpr double kSecondsBudget = 1.0;
  double previous_primal_seconds = 0;
  for (int factor = 1; factor <= kLongestSweepFactor; factor *= 2) {
    if (factor > kShortestSweepFactor) {
      if (!(growth_judged && sweep_goes_on(c.points))) break;
      // past 4 times the base sizes the primal itself is estimated before it runs, from its
      // last doubling: a primal of n^4 points runs 65536 times its base time at 16 times
      const double growth = last_primal_seconds / std::max(previous_primal_seconds, 1e-6);
      if (std::max(last_primal_seconds, last_derivative_seconds) * growth > kSecondsBudget) {
        stopped_by_budget = true;
        break;
      }
    }
    const ir::SizeMap sizes = sweep_sizes(*ctx.entry, o.sizes, {factor}).front();
    bool primal_ran = false;  // past here, an exception is the derivative's
    try {
      ir::SuiteEntry e = *ctx.entry;
      e.sizes[o.sizes] = sizes;
      e.seed = ctx.seed;
      auto inputs = ir::entry_inputs(*ctx.f, e, o.sizes);
      ir::Interpreter<double> interp(ir::EvalOptions{sizes, true, false});
      auto t0 = std::chrono::steady_clock::now();
      auto results = interp.run_tensors(*ctx.f, inputs);
      double primal_seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      double size = 0;
      for (const auto& t : inputs)
        if (ir::is_float(t.elem)) size += static_cast<double>(t.nnz());
      if (!c.points.empty()) {
        double growth = primal_seconds / std::max(last_primal_seconds, 1e-6) * size /
                        std::max(1.0, c.points.back().size);
        if (last_derivative_seconds * growth > kSecondsBudget) {
          stopped_by_budget = true;
          break;
        }
      }
      previous_primal_seconds = last_primal_seconds;
      last_primal_seconds = primal_seconds;
      primal_ran = true;
      backends::Options bo;
      bo.sizes = sizes;
      bo.count_ops = true;
      auto exe = s.differentiate(ctx.f, req).executable(backend, bo);
      if (req.mode == ad::Mode::Vjp) {  // a cotangent of ones per floating result
        Layout out = output_layout(results);
        for (auto& ct : result_cotangents(out, results, std::vector<double>(out.size, 1.0)))
          inputs.push_back(std::move(ct));
      }
      auto t1 = std::chrono::steady_clock::now();
      exe->run(inputs);
      last_derivative_seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
      if (!exe->counts()) {
        if (no_counts) *no_counts = true;
        return std::nullopt;
      }
      CostPoint p;
      p.size = size;
      p.primal = interp.counts().total();
      p.derivative = exe->counts()->total();
      p.primal_work = p.primal + interp.counts().iterations;
      p.derivative_work = p.derivative + exe->counts()->iterations;
      c.points.push_back(p);
    } catch (const ad::OverBudget&) {
      // a larger point past the variant's declared budget (dualrev/naive's calls) ends the sweep
      break;
    } catch (const std::exception& ex) {
      // A sweep point that cannot be generated (fixed-size data) is left out; a derivative that
      // fails where the primal runs is reported.
      if (primal_ran && c.error.empty()) {
        std::string at;
        for (const auto& [name, v] : sizes)
          at += (at.empty() ? "" : ", ") + name + " = " + std::to_string(v);
        c.error = "at " + at + " (the cost sweep): " + ex.what();
      }
    }
  }
  if (c.points.empty()) return c.error.empty() ? std::nullopt : std::optional<Complexity>(c);
  std::vector<std::pair<double, double>> pp, dd, pw, dw;
  for (const auto& p : c.points) {
    pp.emplace_back(p.size, static_cast<double>(p.primal));
    dd.emplace_back(p.size, static_cast<double>(p.derivative));
    pw.emplace_back(p.size, static_cast<double>(p.primal_work));
    dw.emplace_back(p.size, static_cast<double>(p.derivative_work));
  }
  c.primal_slope = loglog_slope(pp);
  c.derivative_slope = loglog_slope(dd);
  c.primal_work_slope = loglog_slope(pw);
  c.derivative_work_slope = loglog_slope(dw);
  c.work_growth = work_growth_factor(c.points);
  c.work_grows_faster = c.work_growth > kWorkGrowth && marginal_keeps_rising(c.points);
  c.growth_unsettled =
      growth_judged && stopped_by_budget && !c.work_grows_faster && sweep_goes_on(c.points);
  // The worst point: a bound met at the smallest size only says nothing about growth. A primal
  // that counts no operation (a gather, a broadcast: paper 000's TC15, TC16) gives no ratio.
  c.ratio = std::numeric_limits<double>::quiet_NaN();
  for (const auto& p : c.points)
    if (p.primal > 0)
      c.ratio =
          std::fmax(c.ratio, static_cast<double>(p.derivative) / static_cast<double>(p.primal));
  if (s.capabilities().reverse && ctx.entry->cost_bound && !std::isnan(c.ratio) &&
      req.mode != ad::Mode::Jacobian) {
    c.bound = *ctx.entry->cost_bound;
    c.within_bound = c.ratio <= *c.bound;
  }
  return c;
}

}  // namespace

HarnessResult run_harness(const std::vector<ir::Suite>& suites, const HarnessOptions& o) {
  HarnessResult r;
  auto& registry = ad::StrategyRegistry::instance();
  std::vector<ChosenStrategy> strategies;
  std::vector<std::pair<std::string, std::string>>
      unresolved;  // name, error: ERROR cells, the run goes on
  for (const auto& name : o.strategies.empty() ? registry.names() : o.strategies) {
    try {
      auto [strategy, variant] = registry.resolve(name);
      if (!o.other_variants || !variant.empty()) {
        strategies.push_back(ChosenStrategy{strategy, variant, name});
        continue;
      }
      const auto variants = strategy->capabilities().variants;  // the first is the default
      for (std::size_t k = 1; k < variants.size(); ++k)
        strategies.push_back(ChosenStrategy{strategy, variants[k], name + "/" + variants[k]});
    } catch (const Error& ex) {
      unresolved.emplace_back(name, ex.what());
    }
  }
  // nothing to check is not a pass (`--other-variants --strategy fd`: fd has one variant)
  if (o.other_variants && strategies.empty() && unresolved.empty())
    throw Error("--other-variants: no chosen strategy has a variant besides its default");
  // Compiling backends (cpu) join only when asked for: they cost seconds per cell.
  std::vector<std::string> backend_names = o.backends;
  if (backend_names.empty())
    for (const auto& b : backends::BackendRegistry::instance().names())
      if (backends::BackendRegistry::instance().get(b).default_in_checks())
        backend_names.push_back(b);
  for (const auto& b : backend_names)
    backends::BackendRegistry::instance().get(b);  // unknown names fail early

  std::vector<const ir::SuiteEntry*> entries;
  for (const auto& s : suites)
    for (const auto& e : s.entries)
      if (o.filter.empty() || e.id().find(o.filter) != std::string::npos) entries.push_back(&e);

  for (std::size_t k = 0; k < entries.size(); ++k) {
    const ir::SuiteEntry& e = *entries[k];
    if (o.progress) o.progress(k, entries.size(), e.id());
    r.entries.push_back(e.id());
    EntryContext ctx;
    ctx.entry = &e;
    std::string kink_note, entry_error;
    bool away_from_kinks = false;
    std::vector<ad::Mode> modes;
    try {
      away_from_kinks = prepare_entry(ctx, o, kink_note);
      modes = entry_modes(e, *ctx.f);
    } catch (const std::exception& ex) {
      entry_error = ex.what();
    }
    for (const auto& [name, message] : unresolved) {
      Cell cell;
      cell.entry = e.id();
      cell.strategy = name;
      cell.backend = "-";
      cell.mode = "-";
      cell.status = Status::Error;
      cell.detail = message;
      r.cells.push_back(cell);
    }
    std::set<std::string> over_budget;  // labels whose derivative exceeded its declared budget
    for (const auto& chosen : strategies) {
      const ad::Strategy* s = chosen.strategy;
      auto caps = s->capabilities();
      for (std::size_t mi = 0; mi < std::max<std::size_t>(modes.size(), 1); ++mi) {
        std::string mode = modes.empty() ? "-" : ad::mode_name(modes[mi]);
        bool engine = !caps.emits_ir;
        for (const auto& b : backend_names) {
          Cell cell;
          cell.entry = e.id();
          cell.strategy = chosen.label;
          // An engine is built for the backend (decision 97); the label says which kind ran.
          cell.backend = engine ? "engine/" + b : b;
          cell.mode = mode;
          if (!entry_error.empty()) {
            cell.status = Status::Error;
            cell.detail = entry_error;
          } else if (!caps.supports(modes[mi])) {
            cell.status = Status::Unsupported;
            cell.detail = std::string(s->name()) + " does not offer mode " + mode;
          } else if (!away_from_kinks) {
            cell.status = Status::AtKink;
            cell.detail = kink_note;
            cell.expected_kink = e.expect_at_kink;
            if (e.expect_at_kink) cell.detail = "expected (checker self-test): " + kink_note;
          } else if (e.expect_at_kink) {
            // The checker missed the switch it is being tested on: that is the checker's failure.
            cell.status = Status::Fail;
            cell.detail =
                "checker self-test: the entry expects AT-KINK but no sample came within the kink "
                "margin or crossed a switch";
          } else {
            ad::Request req = chosen.request(ctx.wrt, modes[mi]);
            try {
              check_cell(ctx, *s, req, b, cell);
              if (!ctx.resampled_note.empty()) add_note(cell, ctx.resampled_note);
              if (!ctx.conditioning_note.empty() && cell.status == Status::Fail)
                add_note(cell, ctx.conditioning_note);
              bool no_counts = false;
              if (o.complexity && modes[mi] == cost_mode(modes))
                cell.complexity = measure(ctx, *s, req, b, o, &no_counts);
              // A bound this backend cannot measure is said so, not passed over in silence (an
              // audit helper: `--backend cpu` alone skipped it; decision 232).
              const bool bound_applies = e.cost_bound && s->capabilities().reverse &&
                                         modes[mi] != ad::Mode::Jacobian &&
                                         cell.status == Status::Pass;
              if (no_counts && bound_applies)
                add_note(cell, "the cheap-gradient bound is not checked on " + b +
                                   ", which counts no operations (it is on interp)");
              // a primal of no operations (a gather, a broadcast) gives no ratio to bound
              if (cell.complexity && std::isnan(cell.complexity->ratio) && bound_applies)
                add_note(
                    cell,
                    "the cheap-gradient bound is not checked: the primal counts no operations");
              if (cell.complexity && !cell.complexity->error.empty() &&
                  cell.status == Status::Pass) {
                cell.status = Status::Error;
                cell.detail = "the derivative fails at a larger size " + cell.complexity->error;
              }
              if (cell.complexity && !cell.complexity->within_bound &&
                  cell.status == Status::Pass) {
                std::string over = "cheap-gradient ratio " +
                                   std::to_string(cell.complexity->ratio) + " exceeds the bound " +
                                   std::to_string(*cell.complexity->bound);
                if (s->capabilities().cheap_gradient) {
                  cell.status = Status::Fail;
                  cell.detail = over;
                } else {  // measured, reported, not claimed by this strategy
                  cell.detail = over + " (not claimed by " + std::string(s->name()) + ")";
                }
              }
              // Growth paper 000's model does not count: iterations under false brackets, a
              // bracket sum left uneliminated (decision 240).
              if (cell.complexity && std::isnan(cell.complexity->work_growth) && bound_applies &&
                  !no_counts && cell.status == Status::Pass)
                add_note(cell,
                         cell.complexity->points.size() < 3
                             ? "the work's growth is not checked: the cost sweep has " +
                                   std::to_string(cell.complexity->points.size()) +
                                   (cell.complexity->points.size() == 1 ? " point" : " points")
                             : std::string("the work's growth is not checked: the "
                                           "primal's or the derivative's work grows over "
                                           "no step of the cost sweep but its last"));
              if (cell.complexity && cell.complexity->growth_unsettled && bound_applies &&
                  !no_counts && cell.status == Status::Pass)
                add_note(cell,
                         "the work's growth is not checked: dD/dP still rose where the "
                         "cost sweep stopped, at " +
                             std::to_string(cell.complexity->points.size()) +
                             " points (its 1 s budget)");
              if (cell.complexity && cell.complexity->work_grows_faster &&
                  s->capabilities().reverse && cell.status == Status::Pass &&
                  modes[mi] != ad::Mode::Jacobian) {
                const std::string growth = work_growth(*cell.complexity);
                if (bound_applies && s->capabilities().cheap_gradient) {
                  cell.status = Status::Fail;
                  cell.detail = growth;
                } else {
                  add_note(cell, growth + (bound_applies
                                               ? " (not claimed by " + std::string(s->name()) + ")"
                                               : std::string()));
                }
              }
            } catch (const ad::OverBudget& ex) {
              over_budget.insert(chosen.label);  // no adjoint test would run it further
              cell.status = Status::Unsupported;
              cell.detail = ex.what();
            } catch (const ad::Unsupported& ex) {
              cell.status = Status::Unsupported;
              cell.detail = ex.what();
            } catch (const backends::Unsupported& ex) {  // a construct the backend cannot compile
              cell.status = Status::Unsupported;
              cell.detail = ex.what();
            } catch (const StencilCrossesSwitch& ex) {  // the mode's own reference (hvp)
              cell.status = Status::AtKink;
              cell.detail = ex.what();
            } catch (const std::exception& ex) {
              cell.status = Status::Error;
              cell.detail = ex.what();
            }
          }
          r.cells.push_back(cell);
        }
      }
    }
    if (entry_error.empty()) check_expected_primals(ctx, r);
    if (entry_error.empty() && away_from_kinks && !e.expect_at_kink) {
      check_closed_form(ctx, r);
      for (const auto& fwd : strategies)
        for (const auto& rev : strategies)
          if (fwd.strategy->capabilities().supports(ad::Mode::Jvp) &&
              rev.strategy->capabilities().supports(ad::Mode::Vjp)) {
            const std::string spent = over_budget.count(fwd.label)   ? fwd.label
                                      : over_budget.count(rev.label) ? rev.label
                                                                     : std::string();
            check_adjoint(ctx, fwd, rev, spent, r);
          }
    }
  }
  if (o.progress) o.progress(entries.size(), entries.size(), "done");
  return r;
}

}  // namespace adlab::checker
