// Forward mode by the forward rules of paper 000 (6.1-6.13) on Tensor SSA: each statement gets a
// tangent statement of the same shape; a read t[a] has the tangent dt[a] (the rules never move
// an index, so forward mode is gather code by construction).
#pragma once

#include <string>
#include <vector>

#include "ad/iverson/normalise.h"

namespace adlab::ad::iverson {

struct Tangents {
  std::vector<ir::Stmt> stmts;            // tangent statements, in order
  std::vector<ir::Expr> result_tangents;  // one per result
  std::vector<std::string> trace;         // the table rules applied, one line each
};

// `tangent_params`: one per wrt parameter, of its type.
Tangents forward_rules(const SsaProgram& p, const std::vector<ir::Expr>& wrt,
                       const std::vector<ir::Expr>& tangent_params, FreshNames& names);

}  // namespace adlab::ad::iverson
