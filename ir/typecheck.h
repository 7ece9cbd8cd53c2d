// The type and shape checker for whole functions: what make() cannot see locally (scopes, sizes,
// affine bounds, declared results). Local typing is checked by each node's make().
#pragma once

#include "ir/function.h"

namespace adlab::ir {

// Throws adlab::Error at the offending node's position: an unbound name, a gen/scatter bound
// that is not a size expression, a non-affine reduction/loop bound, a result of the wrong type.
void check_function(const Function& f);

}  // namespace adlab::ir
