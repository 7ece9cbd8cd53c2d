// Matching a rule's pattern against a term, and building the right side from the bindings.
#pragma once

#include <unordered_map>

#include "ir/rewrite/rule.h"

namespace adlab::ir::rewrite {

using Bindings = std::unordered_map<Expr, Expr, ExprHash>;  // pattern variable -> term

// Structural matching; binder pattern variables (?i, ?x) bind to the term's bound variables.
// A pattern variable bound twice must match the same (hash-consed) node.
bool match(const Rule& r, Expr pattern, Expr term, Bindings& b);

// The pattern with its variables replaced by their bindings. `let ?i = a; e` of an index
// pattern variable is instantiated as the substitution e{i := a} (the let rule, proved with the
// rest); binders the left side did not bind get fresh names and are added to `b`.
Expr instantiate(const Rule& r, Expr pattern, Bindings& b);

}  // namespace adlab::ir::rewrite
