// The derivatives of paper 000's black boxes (rule 6.18 and its forward twin 6.8): the partial
// derivative of a primitive application by one argument, times a seed.
#pragma once

#include <cstddef>

#include "ir/expr.h"

namespace adlab::ad::iverson {

// seed * d prim(args) / d args[k], for `prim` a Prim node. Throws ad::Unsupported for a primitive
// with no derivative in the IR (lgamma).
// `value`: the primitive's value (the node itself, or the stored result that holds it).
ir::Expr scalar_partial(ir::Expr prim, std::size_t k, ir::Expr seed, ir::Expr value);

}  // namespace adlab::ad::iverson
