// Integer arithmetic of index expressions: floor division and modulo (SYNTAX.md "Index
// expressions").
#pragma once

#include <cstdint>

#include "ir/expr.h"

namespace adlab::ir {

// x op y for op in + - * / %; / and % are floor division and its remainder, for y > 0
// (callers report a non-positive divisor with their own position).
inline std::int64_t int_arith(BinaryOp op, std::int64_t x, std::int64_t y) {
  switch (op) {
    case BinaryOp::Add:
      return x + y;
    case BinaryOp::Sub:
      return x - y;
    case BinaryOp::Mul:
      return x * y;
    case BinaryOp::Div:
    case BinaryOp::Mod: {
      std::int64_t q = x / y, m = x % y;
      if (m < 0) {
        q -= 1;
        m += y;
      }
      return op == BinaryOp::Div ? q : m;
    }
    default:
      return 0;
  }
}

inline bool is_int_arith(BinaryOp op) {
  return op == BinaryOp::Add || op == BinaryOp::Sub || op == BinaryOp::Mul || op == BinaryOp::Div ||
         op == BinaryOp::Mod;
}

}  // namespace adlab::ir
