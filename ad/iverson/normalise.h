// Normalisation of a program into paper 000's Tensor SSA (digest 000 section 4): calls inlined,
// let-lifting (5.1-5.10, 5.10 corrected), pair elimination (5.11-5.20), Gen-pushout (5.21 with
// its range guard, 5.22-5.24), conversion to Tensor SSA (5.25-5.34: every sum that is an operand
// gets its own statement), summation elimination, canonical names and CSE.
#pragma once

#include <string>
#include <vector>

#include "ad/iverson/terms.h"
#include "ir/function.h"
#include "ir/logic/predicates.h"

namespace adlab::ad::iverson {

// A program in Tensor SSA: each statement binds one variable to `gen[I] body` (or a scalar
// `body`) where body has no let, gen, call, tuple or projection, and a sum appears only at the
// top of a body (under brackets and sums). Results are parameters, statement variables or
// literals.
struct SsaProgram {
  std::vector<ir::Stmt> stmts;
  std::vector<ir::Expr> results;
  std::vector<ir::Expr> facts;  // sizes are non-negative
};

// Throws ad::Unsupported, with the construct and its position, outside paper 000's language
// (loop, scan, max/min, select, scatter, sparse iteration, data-dependent indices, triangular
// bounds, tuple parameters).
SsaProgram normalise(const ir::Function& f, FreshNames& names, ir::logic::PredicateService& logic);

// An SsaProgram as a function with f's signature.
ir::FunctionPtr to_function(const ir::Function& f, const SsaProgram& p, const std::string& name);

}  // namespace adlab::ad::iverson
