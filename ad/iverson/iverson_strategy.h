// The `iverson` strategy (paper 000: purely functional, provably cheap reverse mode by
// transposition in index notation).
#pragma once

#include <memory>

#include "ad/strategy.h"

namespace adlab::ad {
std::unique_ptr<Strategy> make_iverson_strategy();
}  // namespace adlab::ad
