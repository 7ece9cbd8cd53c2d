// Call inlining, the first normalisation pass (digest 000 section 4 assumes one program without
// calls): a call let-binds its arguments to the callee's renamed parameters (DESIGN 2.3).
#pragma once

#include "ad/iverson/terms.h"
#include "ir/function.h"

namespace adlab::ad::iverson {

// f with every call replaced by `let params = args in body` (the callee renamed apart, its sizes
// bound by the arguments' shapes). Throws ad::Unsupported for a call whose sizes no argument binds.
ir::FunctionPtr inline_calls(const ir::Function& f, FreshNames& names);

}  // namespace adlab::ad::iverson
