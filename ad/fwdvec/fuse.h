// Pull-array fusion of a whole function (paper 001 Fig. 8c with a2): every let-bound `gen` is
// inlined into its uses, so `(gen[i < n] e)[a]` meets the rewrite engine's build-get rule.
#pragma once

#include "ir/function.h"

namespace adlab::ad::fwdvec {

// `f` with its gen-valued statements substituted into the later statements and the results (and
// then dropped). Work may be duplicated where a tensor is read more than once per element.
ir::FunctionPtr fuse_gens(const ir::Function& f);

// fuse_gens, then the core simplification tables (`adlab print --simplify`) to a fixed point:
// the normal forms of digest 001 section 8.3.
ir::FunctionPtr normalise(const ir::Function& f);

}  // namespace adlab::ad::fwdvec
