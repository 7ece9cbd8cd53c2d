// The printer: canonical `.adl` text whose parse is the same function (DESIGN 2.4, SYNTAX.md).
#pragma once

#include <ostream>
#include <string>

#include "ir/expr.h"
#include "ir/function.h"

namespace adlab::ir {

std::string type_str(const Type& t);
std::string expr_str(Expr e);
std::string number_str(double v);  // shortest text that reads back to the same double
void print_function(std::ostream& os, const Function& f);
std::string function_str(const Function& f);
void print_module(std::ostream& os, const Module& m);
std::string module_str(const Module& m);

}  // namespace adlab::ir
