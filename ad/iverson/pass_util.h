// What the normalisation passes share: a function rebuilt with new statements and results, and
// the names of constructs in diagnostics.
#pragma once

#include <string>
#include <vector>

#include "ir/function.h"

namespace adlab::ad::iverson {

// How a construct outside the language is named in a diagnostic (`loop`, a `max` reduction).
std::string construct_name(ir::Expr e);

// f's signature (sizes, parameters, positions) with these statements and results; type-checked.
ir::FunctionPtr rebuilt(const ir::Function& f, const std::string& name, std::vector<ir::Stmt> stmts,
                        std::vector<ir::Expr> results);

}  // namespace adlab::ad::iverson
