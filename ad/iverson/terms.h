// Small IR helpers of the iverson strategy: fresh names, binders and arithmetic that folds the
// constants 0 and 1 (a `1 * e` would cost a multiplication in paper 000's cost model).
#pragma once

#include <string>
#include <unordered_set>
#include <vector>

#include "ir/expr.h"
#include "ir/fresh_names.h"
#include "ir/function.h"

namespace adlab::ad::iverson {

using ir::FreshNames;  // names unused in the function being differentiated

// An index variable ranging over [0, bound).
struct Binder {
  ir::Expr var;
  ir::Expr bound;
};

ir::Expr index_var(const std::string& name);
ir::Expr int_lit(std::int64_t v);
bool is_zero(ir::Expr e);
bool is_one(ir::Expr e);
ir::Expr zero_like(ir::Expr e);
ir::Expr add(ir::Expr a, ir::Expr b);
ir::Expr sub(ir::Expr a, ir::Expr b);
ir::Expr mul(ir::Expr a, ir::Expr b);
ir::Expr div(ir::Expr a, ir::Expr b);
ir::Expr neg(ir::Expr a);
// a op b by the folding constructors above for + - * /; undefined for any other operator.
ir::Expr fold_arith(ir::BinaryOp op, ir::Expr a, ir::Expr b);
// [p1 && p2 && ...] * e, or e when there is no predicate.
ir::Expr guard(const std::vector<ir::Expr>& atoms, ir::Expr e);
ir::Expr conj(const std::vector<ir::Expr>& atoms);  // true when empty
// base[idx], or base when idx is empty.
ir::Expr read(ir::Expr base, const std::vector<ir::Expr>& idx);
// gen[binders] body, or body when there are none.
ir::Expr gen_over(const std::vector<Binder>& binders, ir::Expr body);
// sum[binders] body, or body when there are none.
ir::Expr sum_over(const std::vector<Binder>& binders, ir::Expr body);
std::vector<ir::Expr> vars_of(const std::vector<Binder>& binders);
// 0 <= v < bound for each binder.
std::vector<ir::Expr> range_facts(const std::vector<Binder>& binders);
// Whether a body under `dropped` binders and guards `unkept` runs at all, for a value lifted out
// of them: `0 < bound` for each bound that is not a positive literal, or
// `exists[dropped] unkept...` when a guard or a nested bound needs the binders; undefined when
// nothing is dropped or every bound is a positive literal (decision 172).
ir::Expr reached_condition(const std::vector<Binder>& dropped,
                           const std::vector<ir::Expr>& unkept);

}  // namespace adlab::ad::iverson
