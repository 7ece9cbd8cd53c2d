// The flat form of paper 002 section 4.5: a program as a list of top-level array kernels, each a
// binder-free scalar body over a rectangular domain (Map/Generate/ZipWith, Sum/Fold, Scan).
#pragma once

#include "ir/fresh_names.h"

#include <string>
#include <unordered_set>
#include <vector>

#include "ir/error.h"
#include "ir/expr.h"

namespace adlab::ad::scatter {

enum class KernelKind { Map, Reduce, Scan, Fold };

// var = gen[vars < bounds] select(guard, INNER, 0), where INNER is, by kind:
//   Map    body
//   Reduce op[ivars < ibounds] body        (sum/max/min; sum bounds may be affine in vars)
//   Scan   scan[ivar < ibound] (op) body   (var gets one more dimension)
//   Fold   loop[ivar < ibound] (state = init) { next body }
struct Kernel {
  ir::Expr var;
  std::vector<ir::Expr> vars, bounds;
  ir::Expr guard;  // undefined: evaluated everywhere
  KernelKind kind = KernelKind::Map;
  ir::ReduceOp op = ir::ReduceOp::Sum;
  std::vector<ir::Expr> ivars, ibounds;
  ir::Expr state, init;
  ir::Expr body;
  SourcePos pos;
  // The primal statement value.
  ir::Expr value() const;
};

using ir::FreshNames;  // fresh, printable names that collide with nothing in the program

// Zero of a scalar element type (false for bool).
ir::Expr zero_of(ir::ElemType e);
ir::Expr one_of(ir::ElemType e);
// Access `base[idx]`, or `base` itself when idx is empty.
ir::Expr access_or_self(ir::Expr base, const std::vector<ir::Expr>& idx);
// gen[vars < bounds] body, or body itself when vars is empty.
ir::Expr gen_or_self(const std::vector<ir::Expr>& vars, const std::vector<ir::Expr>& bounds,
                     ir::Expr body);
// A conjunction that treats an undefined operand as true.
ir::Expr and_guard(ir::Expr a, ir::Expr b);

}  // namespace adlab::ad::scatter
