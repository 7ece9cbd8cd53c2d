// The `sparse` strategy (paper 004, nabla-SD): tensorised forward mode D_tau over sparse tensors,
// seeded by sparse one-hot tensors, with cost proportional to stored entries.
#pragma once

#include <memory>

#include "ad/strategy.h"

namespace adlab::ad {

// Variants: `dense` (default; Jacobians as dense f64[outputs..., inputs...], the calling
// convention) and `coo` (Jacobian blocks as COO tensors holding exactly the tangent's stored
// entries).
std::unique_ptr<Strategy> make_sparse_strategy();

}  // namespace adlab::ad
