// IR -> C++ for the cpu backend: which i64 operations cannot overflow. The language has no
// wrap-around (decision 164), so an i64 + - * or negation whose result the operands' ranges do
// not prove to fit is emitted as a checked call that fails as the interpreter does (decision
// 181). The ranges come from literals, sizes (in [0, 2^31], checked where they are bound) and
// loop variables (0 <= v < bound), so index arithmetic (`i + 2`, `n - 1 - i`, `2 * n`) stays
// plain.
#include <algorithm>
#include <limits>
#include <optional>

#include "backends/cpu/codegen_impl.h"
#include "backends/cpu/runtime/adlab_cpu_rt.h"
#include "ir/int_arith.h"

namespace adlab::backends::cpu {

using namespace ir;

namespace {
constexpr Emitter::IntRange kAnyI64{std::numeric_limits<std::int64_t>::min(),
                                    std::numeric_limits<std::int64_t>::max()};

Emitter::IntRange hull(Emitter::IntRange a, Emitter::IntRange b) {
  return {std::min(a.lo, b.lo), std::max(a.hi, b.hi)};
}

// The range of x op y for x in a, y in b (op: + - *), or nullopt when some result overflows.
std::optional<Emitter::IntRange> arith_range(BinaryOp op, Emitter::IntRange a,
                                             Emitter::IntRange b) {
  auto at = [&](std::int64_t x, std::int64_t y) { return int_arith(op, x, y); };
  // + is increasing in both operands, - in its first and decreasing in its second; * takes its
  // extremes at the corners.
  if (op == BinaryOp::Add || op == BinaryOp::Sub) {
    auto lo = at(a.lo, op == BinaryOp::Add ? b.lo : b.hi);
    auto hi = at(a.hi, op == BinaryOp::Add ? b.hi : b.lo);
    if (!lo || !hi) return std::nullopt;
    return Emitter::IntRange{*lo, *hi};
  }
  std::optional<std::int64_t> c[4] = {at(a.lo, b.lo), at(a.lo, b.hi), at(a.hi, b.lo),
                                      at(a.hi, b.hi)};
  for (const auto& v : c)
    if (!v) return std::nullopt;
  return Emitter::IntRange{std::min({*c[0], *c[1], *c[2], *c[3]}),
                           std::max({*c[0], *c[1], *c[2], *c[3]})};
}

std::int64_t floor_div(std::int64_t x, std::int64_t y) {
  return *int_arith(BinaryOp::Div, x, y);  // y >= 1: never overflows
}
}  // namespace

Emitter::IntRange Emitter::int_range(Expr e) const {
  if (is_float(e->type.elem) || e->type.is_tuple() || !e->type.dims.empty()) return kAnyI64;
  switch (e->kind) {
    case NodeKind::Literal: {
      auto v = static_cast<std::int64_t>(e.as<Literal>()->value);
      return {v, v};
    }
    case NodeKind::Var: {
      // checked in [0, 2^31] where bound (adlab's bind_sizes, size_in_range in callees)
      if (sizes_.count(e.get())) return {0, adlab_rt::kMaxSize};
      auto vb = var_bound.find(e.get());
      if (vb == var_bound.end()) return kAnyI64;
      // A loop runs v over [lo, hi) with 0 <= lo and hi <= bound (narrowing only shrinks it).
      std::int64_t hi = int_range(vb->second).hi;
      return {0, std::max<std::int64_t>(0, hi - (hi > kAnyI64.lo ? 1 : 0))};
    }
    case NodeKind::Unary: {
      auto* u = e.as<Unary>();
      if (u->op == UnaryOp::Not) return {0, 1};
      IntRange a = int_range(u->a);
      if (a.lo == kAnyI64.lo) return kAnyI64;  // checked at run time
      return {-a.hi, -a.lo};
    }
    case NodeKind::Binary: {
      auto* b = e.as<Binary>();
      if (is_comparison(b->op) || b->op == BinaryOp::And || b->op == BinaryOp::Or) return {0, 1};
      IntRange x = int_range(b->a), y = int_range(b->b);
      if (is_int_arith(b->op) && b->op != BinaryOp::Div && b->op != BinaryOp::Mod)
        return arith_range(b->op, x, y).value_or(kAnyI64);  // checked when it may not fit
      if (y.lo < 1) return kAnyI64;  // a non-positive divisor fails at run time
      if (b->op == BinaryOp::Div)    // floor division by y >= 1 is monotone in x
        return {std::min(floor_div(x.lo, y.lo), floor_div(x.lo, y.hi)),
                std::max(floor_div(x.hi, y.lo), floor_div(x.hi, y.hi))};
      return {0, y.hi - 1};
    }
    case NodeKind::Prim: {
      auto* p = e.as<Prim>();
      if (p->op == PrimOp::ToI64 && !is_float(p->args[0]->type.elem)) return int_range(p->args[0]);
      if (p->op != PrimOp::Min && p->op != PrimOp::Max) return kAnyI64;
      IntRange x = int_range(p->args[0]), y = int_range(p->args[1]);
      if (p->op == PrimOp::Min) return {std::min(x.lo, y.lo), std::min(x.hi, y.hi)};
      return {std::max(x.lo, y.lo), std::max(x.hi, y.hi)};
    }
    case NodeKind::Select: {
      auto* s = e.as<Select>();
      return hull(int_range(s->then_value), int_range(s->else_value));
    }
    case NodeKind::Iverson:
      return hull(int_range(e.as<Iverson>()->body), {0, 0});
    default:
      return kAnyI64;
  }
}

bool Emitter::fits_i64(const Binary& b) const {
  return arith_range(b.op, int_range(b.a), int_range(b.b)).has_value();
}

}  // namespace adlab::backends::cpu
