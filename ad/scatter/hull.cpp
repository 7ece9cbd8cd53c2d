// Rectangular hulls of affine bounds (for scatter and gen domains).
#include "ad/scatter/hull.h"

#include <algorithm>

#include "ir/affine.h"
#include "ir/builder.h"
#include "ir/substitute.h"

namespace adlab::ad::scatter {

using namespace ir;

bool hull_is_exact(Expr hull, Expr bound) {
  if (hull == bound) return true;
  auto* m = hull.as<Prim>();
  return m && m->op == PrimOp::Max && m->args[0] == bound && m->args[1].as<Literal>();
}

std::optional<Expr> hull_bound(Expr bound, const std::vector<Expr>& vars,
                               const std::vector<Expr>& hull) {
  bool uses = false;
  for (auto v : vars) uses = uses || is_free_in(v, bound);
  auto a = to_affine(bound, /*opaque_atoms=*/true);
  if (!uses) return extent_of_bound(bound);
  if (!a) return std::nullopt;
  // v <= hull(v) - 1 and v >= 0: c v <= c hull(v) for c > 0, and c v <= 0 for c < 0
  Expr out =
      Literal::make(static_cast<double>(std::max<std::int64_t>(a->constant, 0)), ElemType::I64);
  for (const auto& [atom, c] : a->coeffs) {
    auto it = std::find(vars.begin(), vars.end(), atom);
    if (it == vars.end()) {
      for (auto v : vars)
        if (is_free_in(v, atom)) return std::nullopt;  // a non-affine use of an index
      if (c < 0) return std::nullopt;
      out = Binary::make(
          BinaryOp::Add, out,
          Binary::make(BinaryOp::Mul, Literal::make(static_cast<double>(c), ElemType::I64), atom));
      continue;
    }
    if (c <= 0) continue;
    Expr h = hull[static_cast<std::size_t>(it - vars.begin())];
    out = Binary::make(
        BinaryOp::Add, out,
        c == 1
            ? h
            : Binary::make(BinaryOp::Mul, Literal::make(static_cast<double>(c), ElemType::I64), h));
  }
  return out;
}

}  // namespace adlab::ad::scatter
