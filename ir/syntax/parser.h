// The `.adl` parser: text to a type-checked Module; errors name file:line:col and what was
// expected.
#pragma once

#include <string>
#include <string_view>

#include "ir/function.h"

namespace adlab::ir {

// Parses and type-checks a whole file. Throws adlab::Error with the position of the problem.
Module parse_module(std::string_view source, const std::string& file = "<input>");
Module parse_file(const std::string& path);
// Parses a single expression in a scope of named variables (for tests and tools).
Expr parse_expr(std::string_view source, const std::vector<Expr>& scope,
                const std::string& file = "<expr>");
// Parses a type (`f64[n, m] @csr`) whose dimensions use the named variables of `scope`.
Type parse_type(std::string_view source, const std::vector<Expr>& scope,
                const std::string& file = "<type>");

}  // namespace adlab::ir
