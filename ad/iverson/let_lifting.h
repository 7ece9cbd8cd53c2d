// Let-lifting, normalisation pass 1 of paper 000 (Fig. 7, rules 5.1-5.10; digest 000 section 4.1).
#pragma once

#include "ad/iverson/terms.h"
#include "ir/function.h"

namespace adlab::ad::iverson {

// f (without calls) with every `let` a top-level statement: the post-condition
// `Le ::= e | let x = e in Le`, e without let. A let in an operand moves out (5.1-5.5, 5.8); one
// under a gen or sum becomes `gen[binders it reads] [brackets] * e0`, read back at the binders
// (5.6, 5.7; only the binders the value reads, so nothing is recomputed), under the brackets
// around it (5.9: needed for cost); a select branch is a bracket on its condition, so the lifted
// part stays as lazy as the branch. A let in a let's value goes first ((5.10) corrected:
// let y = e0 in let x = e1 in e2). A binding to a name or a read of a name is substituted
// (fix-up 1 of 5.25-5.34). Throws ad::Unsupported, with the position, for `loop`, `scan` and
// iteration over stored entries (no gen to lift over) and for a triangular bound it would lift
// over.
ir::FunctionPtr lift_lets(const ir::Function& f, FreshNames& names);

}  // namespace adlab::ad::iverson
