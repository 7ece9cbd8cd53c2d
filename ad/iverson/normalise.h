// Normalisation of a program into paper 000's Tensor SSA (digest 000 section 4), as a pipeline of
// passes, each followed by the validator of its post-condition (digest 000 P9):
//   1. inline_calls                        -> is_call_free
//   2. lift_lets (5.1-5.10, 5.10 corrected) -> is_let_lifted
//   3. eliminate_pairs (5.11-5.20)          -> is_pair_free
//   4. push_out_gens (5.21-5.24, 5.21 with its range guard) -> is_gen_pushed_out
//   5. to_tensor_ssa (5.25-5.34, with summation elimination) -> is_tensor_ssa
//   6. eliminate_common_subexpressions (fix-ups 1 and 4) -> is_canonical
// A validator that fails is an internal error naming the pass, never a derivative.
#pragma once

#include <string>
#include <vector>

#include "ad/iverson/ssa_program.h"
#include "ad/iverson/terms.h"
#include "ir/function.h"
#include "ir/logic/predicates.h"

namespace adlab::ad::iverson {

// Every stage of the pipeline, for --trace and for translation validation pass by pass.
struct Normalisation {
  // f's signature (from pair_free on, a tuple result is split into its components)
  ir::FunctionPtr inlined, let_lifted, pair_free, pushed_out;
  SsaProgram tensor_ssa;           // before canonicalisation
  SsaProgram program;              // the result
  std::vector<std::string> trace;  // one line per pass: what it did, its validator's verdict
};

// Throws ad::Unsupported, with the construct and its position, outside paper 000's language
// (loop, scan, max/min, scatter, sparse iteration, data-dependent indices, triangular bounds,
// tuple parameters), and InternalError when a pass's output fails its validator.
Normalisation normalise_passes(const ir::Function& f, FreshNames& names,
                               ir::logic::PredicateService& logic);
SsaProgram normalise(const ir::Function& f, FreshNames& names, ir::logic::PredicateService& logic);

// An SsaProgram as a function with f's signature.
ir::FunctionPtr to_function(const ir::Function& f, const SsaProgram& p, const std::string& name);

}  // namespace adlab::ad::iverson
