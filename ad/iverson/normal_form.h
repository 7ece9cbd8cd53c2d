// The normal-form validators of the iverson pipeline (digest 000 P9; STYLE "Passes"): named
// predicates that return a verdict with the reason and the position of the first violation.
#pragma once

#include <string>

#include "ad/iverson/normalise.h"
#include "ir/error.h"

namespace adlab::ad::iverson {

struct Verdict {
  bool ok = true;
  std::string reason;
  SourcePos pos;
};

// Tensor SSA (after normalise): every statement is `gen[I] body` or a scalar `body`; no let,
// gen, call, tuple, projection, loop, scan, scatter or max/min inside a body; every read
// is of a stored tensor at full rank.
Verdict is_tensor_ssa(const SsaProgram& p);
// A derivative is gather-only: no scatter anywhere, no let under a gen or a sum.
Verdict is_gather_only(const ir::Function& f);

}  // namespace adlab::ad::iverson
