// The `dualrev` strategy (paper 003, DESIGN 3): dual-numbers reverse mode with linear factoring,
// its intermediate stages as variants (`dualrev/naive`, `dualrev/staged-map`, `dualrev/tape`).
#pragma once

#include <memory>

#include "ad/strategy.h"

namespace adlab::ad {

std::unique_ptr<Strategy> make_dualrev_strategy();

}  // namespace adlab::ad
