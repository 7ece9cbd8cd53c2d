// Free variables and capture-avoiding substitution.
#pragma once

#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/expr.h"
#include "ir/function.h"

namespace adlab::ir {

using SubstMap = std::unordered_map<Expr, Expr, ExprHash>;
using VarSet = std::unordered_set<Expr, ExprHash>;

// The Var nodes occurring free in `e`, in order of first occurrence. Sizes in types are not
// included (they are bound by the enclosing function).
std::vector<Expr> free_vars(Expr e);
// The variables bound by binders inside `e` (a let's too when `lets`), in order of appearance.
std::vector<Expr> bound_vars(Expr e, bool lets = true);
bool is_free_in(Expr var, Expr e);

// e{x := a, ...}: replaces free occurrences, renaming binders that would capture a free
// variable of a replacement (e.g. substituting i := j + 1 under sum[j < n] renames j).
Expr substitute(Expr e, const SubstMap& m);
Expr substitute(Expr e, Expr var, Expr replacement);
Type substitute_type(const Type& t, const SubstMap& m);

// `e` with every binder that rebinds a variable already bound around it renamed fresh (the
// language has no shadowing; rewrite rules that float binders can nest two of one name).
// `bound_around` are the names already bound where `e` will be placed.
Expr unshadow(Expr e, const VarSet& bound_around = {});
// unshadow over a function: each statement's value and each result against the parameters,
// sizes and earlier statements' names (a program builder that places copies of a body after the
// statements binding its names; names are interned).
void unshadow_statements(Function& f);

}  // namespace adlab::ir
