// What the expressions of a function read (decision 207).
#pragma once

#include <unordered_set>
#include <vector>

#include "ir/function.h"

namespace adlab::checker {

// The nodes of f whose value depends on one of `params` (positions in f.params), by a static
// walk (statements, lets, loops: the state reads all its loop reads), and every node of every
// callee (conservative): a non-smooth switch elsewhere cannot move when only those parameters
// do, so it is no kink of their derivative.
std::unordered_set<const ir::ExprNode*> nodes_reading(const ir::Function& f,
                                                      const std::vector<std::size_t>& params);

}  // namespace adlab::checker
