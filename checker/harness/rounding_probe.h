// The rounding probe (decision 239): whether a derivative can be judged at the entry's inputs.
// The tolerance models a double evaluation's rounding from the primal's operation count and
// conditioning; a derivative far worse conditioned than its primal (sin(0.1 x) where cos(0.1 x)
// is 1.7e-7) is moved by that rounding further than the tolerance, and every correct strategy
// fails there. The probe measures that movement with no strategy involved: the 50-digit
// reference Jacobian of f with one double rounding (2^-53, random sign) per operation.
#pragma once

#include <cstdint>
#include <string>

#include "checker/harness/cell_check.h"

namespace adlab::checker {

// The share of a Jacobian entry's tolerance the probe's movement may take before the entry's
// inputs are resampled.
constexpr double kRoundingProbeShare = 0.5;
// Realizations of the roundings (sign sequences) tried: one can understate a typical one (an
// audit fuzz's case, decision 239), and the worst is taken.
constexpr int kRoundingProbeRuns = 2;

struct RoundingProbe {
  bool ran = false;      // false: no Jacobian, or the probed evaluation failed
  bool within = true;    // every entry moved by at most kRoundingProbeShare of its tolerance
  double movement = 0;   // the worst entry's movement, as the error model measures an error
  double tolerance = 0;  // that entry's tolerance (before the share)
  std::string where;     // that entry
};

// Probes the Jacobian of ctx's reference at ctx's inputs with the error model of a `jacobian`
// cell (its groups, floors, magnitudes, resolutions and block tolerances), kRoundingProbeRuns
// times with sign sequences from ctx.seed; the worst realization.
RoundingProbe probe_rounding(const EntryContext& ctx);

// "one double rounding per operation moves <where> by <movement> relative (tolerance <tol>)".
std::string describe(const RoundingProbe& p);

}  // namespace adlab::checker
