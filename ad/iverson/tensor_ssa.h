// Conversion to Tensor SSA, normalisation pass 4 of paper 000 (Fig. 11-12, rules 5.25-5.34;
// digest 000 section 4.5), with pair elimination (5.11-5.20) and Gen-pushout (5.21-5.24, with
// range guards) done in the same walk, and summation elimination on every sum (errata 10).
#pragma once

#include "ad/iverson/ssa_program.h"
#include "ad/iverson/terms.h"
#include "ir/function.h"
#include "ir/logic/predicates.h"

namespace adlab::ad::iverson {

// Throws ad::Unsupported, with the construct and its position, outside paper 000's language
// (loop, scan, max/min, scatter, sparse iteration, data-dependent indices, triangular bounds,
// tuple parameters).
SsaProgram to_tensor_ssa(const ir::Function& f, FreshNames& names,
                         ir::logic::PredicateService& logic);

}  // namespace adlab::ad::iverson
