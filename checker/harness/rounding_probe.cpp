// The rounding probe: the reference Jacobian of f rounded once per operation, against ctx.ref.
#include "checker/harness/rounding_probe.h"

#include <algorithm>
#include <cstdio>

namespace adlab::checker {

namespace {
// One realization of the roundings (one sign sequence).
RoundingProbe probe_once(const EntryContext& ctx, std::uint64_t seed) {
  RoundingProbe p;
  const Reference& ref = ctx.ref;
  if (ref.jacobian.empty() || ctx.tolerance.computes_f32()) return p;  // f32 rounding dominates
  Reference probed;
  try {
    ReferenceOptions o = ctx.reference_options;
    o.rounding_probe = seed == 0 ? 1 : seed;
    probed = reference_jacobian(*ctx.f, ctx.inputs, ctx.wrt, o);
  } catch (const std::exception&) {
    return p;  // a perturbed value out of double's range: nothing measured
  }
  if (probed.jacobian.size() != ref.jacobian.size()) return p;
  p.ran = true;
  std::vector<double> moved(probed.jacobian.size());
  std::vector<double> resolutions(ref.resolution.size());
  for (std::size_t k = 0; k < moved.size(); ++k) moved[k] = static_cast<double>(probed.jacobian[k]);
  for (std::size_t k = 0; k < resolutions.size() && k < probed.resolution.size(); ++k)
    resolutions[k] = ref.resolution[k] + probed.resolution[k];
  // The probe's own primal error stands for rho, as the double run's does in the cells: the
  // tolerance model judges one rounding's effect on J against the same rounding's on f.
  Tolerance model = ctx.tolerance;
  model.rho = 0;
  const double scale = ref.primal_scale();
  for (std::size_t k = 0; k < ref.primal.size() && k < probed.primal.size(); ++k)
    model.rho = std::max(model.rho,
                         relative_to_primal(static_cast<double>(probed.primal[k] - ref.primal[k]),
                                            static_cast<double>(ref.primal[k]), scale));
  model = model.with_floor(model.floor);
  const ErrorGroups g = error_groups(ref, ad::Mode::Jacobian);
  std::vector<double> tolerances = group_tolerances(ctx, ad::Mode::Jacobian, model);
  for (double& t : tolerances) t *= kRoundingProbeShare;
  Comparison c = compare(moved, ref.jacobian, model.value * kRoundingProbeShare, g.sizes, scale,
                         g.floors, tolerances, ref.magnitude, resolutions);
  p.within = c.pass;
  p.movement = c.worst_error;
  p.tolerance = c.tolerance / kRoundingProbeShare;
  const std::size_t n = ref.in.size;
  if (n > 0 && c.worst_index < ref.jacobian.size())
    p.where = "d " + ref.out.describe(c.worst_index / n, ref.results) + " / d " +
              ref.in.describe(c.worst_index % n, ctx.inputs);
  return p;
}
}  // namespace

RoundingProbe probe_rounding(const EntryContext& ctx) {
  RoundingProbe worst;
  for (int run = 0; run < kRoundingProbeRuns; ++run) {
    RoundingProbe p = probe_once(ctx, ctx.seed * 31 + static_cast<std::uint64_t>(run) + 1);
    if (!p.ran) return p;
    // the realization furthest past (or closest to) its own tolerance share
    auto share = [](const RoundingProbe& q) {
      return q.tolerance > 0 ? q.movement / q.tolerance : q.movement;
    };
    if (!worst.ran || (!p.within && worst.within) ||
        (p.within == worst.within && share(p) > share(worst)))
      worst = p;
  }
  return worst;
}

std::string describe(const RoundingProbe& p) {
  char text[96];
  std::snprintf(text, sizeof text, " by %.2g relative (the tolerance for that rounding: %.2g)",
                p.movement, p.tolerance);
  return "one double rounding per operation moves " + p.where + text;
}

}  // namespace adlab::checker
