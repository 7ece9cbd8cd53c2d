// Functions and modules: size parameters + parameters + let-bound statements + results
// (DESIGN 2.4).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ir/error.h"
#include "ir/expr.h"

namespace adlab::ir {

// let x = value, or let (x, y) = value (destructuring a tuple).
struct Stmt {
  std::vector<Expr> vars;
  Expr value;
};

struct Function {
  std::string name;
  std::vector<Expr> declared_sizes;  // written in `func f[n, m]`
  std::vector<Expr> sizes;           // every size: declared, then those bound by parameter shapes
  std::vector<Expr> params;          // Var nodes carrying their types
  std::vector<Stmt> stmts;
  std::vector<Expr> results;  // one per result; several when the result type is a tuple
  Type result_type;
  SourcePos pos;
  SourcePos result_pos;  // of the returned expression

  // Sizes that no parameter shape binds: the caller gives them (`--size m=5`).
  std::vector<Expr> free_sizes() const;
  // The body as one expression: the statements as nested Let nodes around the result(s).
  Expr body_expr() const;
  const Stmt* find_stmt(const std::string& var) const;
  // Index of the parameter called `name`, or -1.
  int param_index(const std::string& name) const;
};

using FunctionPtr = std::shared_ptr<const Function>;

// A parsed `.adl` file: functions in definition order (a function may call earlier ones).
struct Module {
  std::string file;
  std::vector<FunctionPtr> functions;
  FunctionPtr find(const std::string& name) const;
  // The function named `name`, or the last one when `name` is empty; throws adlab::Error.
  FunctionPtr entry(const std::string& name) const;
};

// Structural equality where calls compare their callees by name: two parses of one text give
// equal results (their Function objects differ, so their Call nodes are different nodes).
bool same_modulo_callees(Expr a, Expr b);

// Whether size var `s` appears as a whole dimension of some parameter (so shapes bind it).
bool is_bound_by_params(const Function& f, Expr s);

// The distinct nodes of kind `k` in f's statements and results (callees are not entered): e.g.
// the scatters of a derivative program.
std::size_t count_nodes(const Function& f, NodeKind k);

}  // namespace adlab::ir
