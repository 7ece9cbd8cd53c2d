// Zero-aware tangent arithmetic: a null Expr is a zero tangent (activity analysis for free), and
// Iverson brackets are lifted over products and sums so one-hot seeds stay visible to sum
// elimination ([p] * a * b -> [p] * (a * b), paper 000 P11; [p] * a + [p] * b -> [p] * (a + b)).
#pragma once

#include "ir/expr.h"

namespace adlab::ad::fwdvec {

ir::Expr t_add(ir::Expr a, ir::Expr b);  // tangent + tangent
ir::Expr t_sub(ir::Expr a, ir::Expr b);
ir::Expr t_neg(ir::Expr a);
ir::Expr t_scale(ir::Expr t, ir::Expr p);  // tangent * primal
ir::Expr t_div(ir::Expr t, ir::Expr p);    // tangent / primal
// the same for a partial that is infinite or NaN where `blows_up` holds: 0 there where the
// tangent is 0 (ad/strong_zero.h, decision 247)
ir::Expr t_scale_strong(ir::Expr t, ir::Expr p, ir::Expr blows_up);
ir::Expr t_div_strong(ir::Expr t, ir::Expr p, ir::Expr blows_up);
ir::Expr t_select(ir::Expr c, ir::Expr a, ir::Expr b, ir::ElemType elem);
ir::Expr t_bracket(ir::Expr pred, ir::Expr t);
ir::Expr t_and(ir::Expr p, ir::Expr q);  // p && q with null as true
ir::Expr f_lit(double v, ir::ElemType elem);

}  // namespace adlab::ad::fwdvec
