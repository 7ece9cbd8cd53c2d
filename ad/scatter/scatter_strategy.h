// The `scatter` strategy (paper 002, Smeding: reverse AD for Accelerate): reverse mode for array
// combinators whose indexing adjoints are scatter-adds and whose fold adjoints are scans.
#pragma once

#include <memory>

#include "ad/strategy.h"

namespace adlab::ad {

// Variants: `store` (default; temporaries of binder bodies stored as arrays, the thesis's
// faithful algorithm) and `recompute` (scalar temporaries recomputed in the dual, section 7.5).
std::unique_ptr<Strategy> make_scatter_strategy();

}  // namespace adlab::ad
