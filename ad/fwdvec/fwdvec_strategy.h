// The `fwdvec` strategy (paper 001, Shaikhha et al., dF~): forward mode by source transformation
// with k tangents per scalar; gradients and Jacobians by one-hot seeding in blocks of k, made
// cheap by fusion, one-hot sum elimination (rule e4) and loop-invariant code motion.
#pragma once

#include <memory>

#include "ad/strategy.h"

namespace adlab::ad {

// Variants: `opt` (default: fusion, sum elimination, LICM; width k = all directions unless
// Request::width is set) and `naive` (one direction per pass, primal recomputed in every pass, no
// optimisation: the O(n * cost(f)) baseline of digest 001 section 8.4).
std::unique_ptr<Strategy> make_fwdvec_strategy();

}  // namespace adlab::ad
