// Pair elimination, normalisation pass 2 of paper 000 (Fig. 8, rules 5.11-5.20; digest 000
// section 4.2), on a let-lifted program.
#pragma once

#include "ir/function.h"

namespace adlab::ad::iverson {

// f (let-lifted) in struct-of-arrays form: a tuple-valued statement `z = e` becomes one statement
// per component, `z.k = pi_k e` (5.18-5.20), and projections are pushed through gens (5.12),
// accesses (5.14), brackets (5.16), selects and tuples (5.11) until they meet a component name.
// A tuple-valued result becomes its components (as the Tensor SSA conversion returns them).
// Post-condition (is_pair_free): no tuple-valued statement, no tuple or projection in a value.
// Throws ad::Unsupported, with the position, for a tuple parameter and for a projection of a
// construct that builds no tuple it can see (a loop's state).
ir::FunctionPtr eliminate_pairs(const ir::Function& f);

}  // namespace adlab::ad::iverson
