// Integer arithmetic of index expressions: floor division and modulo (SYNTAX.md "Index
// expressions").
#pragma once

#include <cstdint>
#include <optional>

#include "ir/expr.h"

namespace adlab::ir {

// x op y for op in + - * / %; / and % are floor division and its remainder, for y > 0
// (callers report a non-positive divisor with their own position). nullopt when the result
// does not fit in i64: the language has no wrap-around (and the rewrite engine reasons over
// unbounded integers, which is sound only if no program observes a wrapped value).
inline std::optional<std::int64_t> int_arith(BinaryOp op, std::int64_t x, std::int64_t y) {
  std::int64_t r = 0;
  switch (op) {
    case BinaryOp::Add:
      if (__builtin_add_overflow(x, y, &r)) return std::nullopt;
      return r;
    case BinaryOp::Sub:
      if (__builtin_sub_overflow(x, y, &r)) return std::nullopt;
      return r;
    case BinaryOp::Mul:
      if (__builtin_mul_overflow(x, y, &r)) return std::nullopt;
      return r;
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

// x op y for a comparison operator, on integers or numbers alike.
template <class U>
bool compare_op(BinaryOp op, const U& x, const U& y) {
  switch (op) {
    case BinaryOp::Lt:
      return x < y;
    case BinaryOp::Le:
      return x <= y;
    case BinaryOp::Gt:
      return x > y;
    case BinaryOp::Ge:
      return x >= y;
    case BinaryOp::Eq:
      return x == y;
    default:
      return x != y;
  }
}

inline bool is_int_arith(BinaryOp op) {
  return op == BinaryOp::Add || op == BinaryOp::Sub || op == BinaryOp::Mul || op == BinaryOp::Div ||
         op == BinaryOp::Mod;
}

}  // namespace adlab::ir
