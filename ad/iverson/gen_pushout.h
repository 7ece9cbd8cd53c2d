// Gen-pushout, normalisation pass 3 of paper 000 (Fig. 9, rules 5.21-5.24; digest 000 section
// 4.3), on a pair-free program.
#pragma once

#include "ad/iverson/terms.h"
#include "ir/function.h"
#include "ir/logic/predicates.h"

namespace adlab::ad::iverson {

// f with no read of a computed tensor: `(gen[i < n] e)[a]` becomes `[0 <= a < n] * e{i := a}`
// (5.21 with the range guard the paper drops, errata 7; left out where the predicate service
// proves `a` in range from the sizes, the enclosing binders and brackets), `([p] * e)[a]` becomes
// `[p] * e[a]` (5.22), `[p] * gen[i] e` becomes `gen[i] [p] * e` (5.23), `[p0] * [p1] * e` becomes
// `[p0 && p1] * e` (5.24); reads of reads are flattened, a read of a select reads its branches; a
// tensor value below its gens that is not a name is read at fresh binders first.
// Post-condition (is_gen_pushed_out): every gen is outermost in a value, every read is
// of a name. Throws ad::Unsupported, with the position, for a partial read of a gen and a read
// of a construct outside the language.
ir::FunctionPtr push_out_gens(const ir::Function& f, FreshNames& names,
                              ir::logic::PredicateService& logic);

}  // namespace adlab::ad::iverson
