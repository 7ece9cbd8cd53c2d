// Call inlining before differentiation: D[[.]] of paper 001 (D-App) applied to a call is the
// call of D[[callee]]; adlab inlines the callee instead, so one transformation sees everything.
#pragma once

#include "ir/function.h"

namespace adlab::ad::fwdvec {

// `f` with every call replaced by the callee's body: arguments let-bound to fresh parameters,
// callee sizes bound to the arguments' dimensions, every callee variable renamed apart.
// Throws Unsupported (with the call's position) for a call whose sizes no argument binds.
ir::FunctionPtr inline_calls(const ir::Function& f);

}  // namespace adlab::ad::fwdvec
