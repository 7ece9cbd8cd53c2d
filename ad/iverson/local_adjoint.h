// The local step of transposition (paper 000 (6.15)-(6.18), (6.25), (6.26)) performed by the
// rewrite engine: for a node `e` with output adjoint `g`, the node's tangent is obtained from the
// forward rules (local_tangent.h) with a placeholder for each operand's tangent, and `g * tangent`
// is rewritten with the `iverson-adjoint` table (the rule objects `adlab rules` proves) until
// every summand is `coefficient * placeholder`; the coefficients are the operands' adjoints. The
// structural part (statements in reverse, reads, fan-out statements, summation elimination) stays
// in transpose.cpp.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "ad/iverson/local_tangent.h"
#include "ad/iverson/terms.h"
#include "ir/rewrite/engine.h"

namespace adlab::ad::iverson {

// What one operand of a node receives: its adjoint, under the binders and brackets the rules
// moved out of the node (a sum's indices, a bracket's predicate).
struct OperandAdjoint {
  ir::Expr operand;
  std::vector<Binder> binders;
  std::vector<ir::Expr> atoms;
  ir::Expr adjoint;
  std::vector<std::size_t> depths = {};  // how many of `binders` enclose each atom
};

class LocalAdjoint {
 public:
  LocalAdjoint();

  // The adjoints that the active operands of `e` (a unary, binary, primitive, bracket or sum
  // node) receive from g, in operand order. `stored`: the value of `e` where it is stored (the
  // adjoint of exp reads it instead of recomputing). Throws ad::Unsupported with e's position
  // for a node no adjoint rule covers.
  std::vector<OperandAdjoint> operator()(ir::Expr e, ir::Expr g, ir::Expr stored,
                                         const std::function<bool(ir::Expr)>& active);

  // The rules applied, in order (rule names and citations of the tables): the forward rule that
  // gave a node's tangent, then the adjoint rules that transposed it.
  const std::vector<ir::rewrite::TraceStep>& trace() const { return trace_; }

 private:
  ir::rewrite::Engine engine_;
  LocalTangent tangent_;
  std::vector<ir::rewrite::TraceStep> trace_;
};

}  // namespace adlab::ad::iverson
