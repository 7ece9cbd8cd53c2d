// What the normalisation passes share: a function rebuilt with new statements and results.
#pragma once

#include <string>
#include <vector>

#include "ir/function.h"

namespace adlab::ad::iverson {

// f's signature (sizes, parameters, positions) with these statements and results; type-checked.
ir::FunctionPtr rebuilt(const ir::Function& f, const std::string& name, std::vector<ir::Stmt> stmts,
                        std::vector<ir::Expr> results);

}  // namespace adlab::ad::iverson
