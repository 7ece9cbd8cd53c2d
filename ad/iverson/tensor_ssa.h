// Conversion to Tensor SSA, normalisation pass 5 of paper 000 (Fig. 11-12, rules 5.25-5.34;
// digest 000 section 4.5), with summation elimination on every sum (errata 10).
#pragma once

#include "ad/iverson/ssa_program.h"
#include "ad/iverson/terms.h"
#include "ir/function.h"
#include "ir/logic/predicates.h"

namespace adlab::ad::iverson {

// f must be Gen-pushed-out (is_gen_pushed_out; InternalError otherwise). Throws
// ad::Unsupported, with the construct and its position, outside paper 000's language (max/min,
// scatter, data-dependent indices, triangular bounds).
SsaProgram to_tensor_ssa(const ir::Function& f, FreshNames& names,
                         ir::logic::PredicateService& logic);

}  // namespace adlab::ad::iverson
