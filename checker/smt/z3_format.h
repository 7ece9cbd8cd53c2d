// Readable Z3 models: counterexamples name every symbol and print numbers as decimals (IEEE
// values as NaN, +-inf, -0 or decimals).
#pragma once

#include <z3++.h>

#include <string>

#include "ir/logic/smt_encoding.h"

namespace adlab::checker::smt {

// "12.5", "-1/3", "NaN", "-0", "true".
std::string describe_expr(const z3::model& m, const z3::expr& e);
// "?n = 1; ?e(i) = {0 -> 2, else -> 0}; " for every constant and function of the model.
std::string describe_model(const z3::model& m);
// A value under the model: a scalar, "⊥ (undefined)", a tensor's dims, or a tuple.
std::string describe_value(const z3::model& m, const ir::logic::SymValue& v);

}  // namespace adlab::checker::smt
