// The local step of forward mode (paper 000 (6.3)-(6.5), (6.10), (6.11), the quotient rule)
// performed by the rewrite engine. The rules of `iverson-forward` are first-order identities,
//   f(a + da, b + db) - f(a, b) - (second order)  ->  tangent;
// the left side is built with placeholders for the operands and their tangents, one engine step
// rewrites it to the right side, and the placeholders are replaced by the actual operands and
// tangents (a sum: one step per index). Reads and black boxes stay in forward.cpp: (6.2) follows
// names, and (6.8)'s partials are nothing Z3 can differentiate.
#pragma once

#include <vector>

#include "ir/expr.h"
#include "ir/rewrite/engine.h"

namespace adlab::ad::iverson {

class LocalTangent {
 public:
  LocalTangent();

  // The tangent of `e` (a negation, + - * /, a bracket or a sum) from the tangents of its
  // operands (`da` of the first or the body, `db` of the second; 0 where inactive), with 0 and 1
  // folded. Undefined (a null Expr) for any other node.
  ir::Expr operator()(ir::Expr e, ir::Expr da, ir::Expr db);

  // The rules applied, in order (rule names and citations of the table).
  const std::vector<ir::rewrite::TraceStep>& trace() const { return engine_.trace(); }

 private:
  ir::Expr sum_tangent(const ir::Reduce& r, ir::Expr d_body, const SourcePos& at);
  ir::rewrite::Engine engine_;
};

}  // namespace adlab::ad::iverson
