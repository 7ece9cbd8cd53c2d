// Canonicalisation, the fix-ups after conversion to Tensor SSA (digest 000 section 4.5, fix-ups
// 1 and 4; section 4.4 "Canonicalisation").
#pragma once

#include "ad/iverson/ssa_program.h"

namespace adlab::ad::iverson {

// p with copy statements `X0 = X1` substituted, equal statements merged (CSE: values are
// interned nodes, so equal values are the same node) and statements nothing reads dropped.
SsaProgram eliminate_common_subexpressions(SsaProgram p);

}  // namespace adlab::ad::iverson
