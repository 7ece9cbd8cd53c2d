// Reverse mode by transposition (paper 000 section 6.3): the adjoint rules 6.14-6.29 applied to
// a program in Tensor SSA, in the order of digest 000 section 5.3 (statements last to first; in
// a statement, the body's operands outside in), followed by summation elimination. Every
// adjoint is a gather: `d_x = gen[K] sum[...] [a == K && ...] * ...` with the single-solution
// sums eliminated; no `+=`, no scatter.
#pragma once

#include <string>
#include <vector>

#include "ad/iverson/normalise.h"

namespace adlab::ad::iverson {

struct Seed {
  ir::Expr result;     // a result of the program (a variable or a literal)
  ir::Expr cotangent;  // the literal 1 (gradient) or a cotangent parameter (vjp)
};

struct Adjoints {
  std::vector<ir::Stmt> stmts;      // the adjoint statements, in order
  std::vector<ir::Expr> gradients;  // one per wrt parameter
  std::vector<std::string> trace;   // the rules applied, one line each
};

// `naive`: the transposition without support tracking (the `iverson/naive` variant, kept to show
// the cost the paper's introduction attributes to it): each contribution to a tensor adjoint is
// stored densely and the contributions are added elementwise, as `+=` into a zero tensor does.
Adjoints transpose(const SsaProgram& p, const std::vector<ir::Expr>& wrt,
                   const std::vector<Seed>& seeds, FreshNames& names,
                   ir::logic::PredicateService& logic, bool naive = false);

}  // namespace adlab::ad::iverson
