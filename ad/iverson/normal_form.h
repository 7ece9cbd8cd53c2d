// The normal-form validators of the iverson pipeline (digest 000 P9; STYLE "Passes"): named
// predicates that return a verdict with the reason and the position of the first violation.
#pragma once

#include <string>

#include "ad/iverson/ssa_program.h"
#include "ir/error.h"
#include "ir/function.h"

namespace adlab::ad::iverson {

struct Verdict {
  bool ok = true;
  std::string reason;
  SourcePos pos;
};

// After inline_calls: no call anywhere.
Verdict is_call_free(const ir::Function& f);
// After lift_lets, paper 000's `Le ::= e | let x = e in Le`: every let is a statement; no let
// (and no call) inside a statement's value or a result.
Verdict is_let_lifted(const ir::Function& f);
// After eliminate_pairs, paper 000's SoA form: let-lifted, every statement binds one name of a
// non-tuple type, no tuple or projection in a value or a result.
Verdict is_pair_free(const ir::Function& f);
// After push_out_gens, paper 000's `Le/Ge/Oe/GOe/Ae/Ie` grammar: pair-free, every gen is
// outermost in a value or result, every read is of a name (no read of a computed tensor).
Verdict is_gen_pushed_out(const ir::Function& f);
// Tensor SSA (after to_tensor_ssa): every statement is `gen[I] body` or a scalar `body`; no let,
// gen, call, tuple, projection, loop, scan, scatter or max/min inside a body; every read
// is of a stored tensor at full rank.
Verdict is_tensor_ssa(const SsaProgram& p);
// After eliminate_common_subexpressions (section 4.4 "Canonicalisation"): Tensor SSA with no
// copy statement `X0 = X1`, no two statements with the same value, no statement nothing reads.
Verdict is_canonical(const SsaProgram& p);
// A derivative is gather-only: no scatter anywhere, no let under a gen or a sum.
Verdict is_gather_only(const ir::Function& f);

}  // namespace adlab::ad::iverson
