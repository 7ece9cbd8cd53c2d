// Affine normal form of integer index expressions: sum of coefficient * atom + constant.
#pragma once

#include <cstdint>
#include <map>
#include <optional>

#include "ir/expr.h"

namespace adlab::ir {

// c0 + sum_k coeff_k * atom_k. Atoms are Var nodes; with `opaque_atoms`, any non-affine
// subterm (idx[i], i * j, i / 2) is an atom too (compared structurally).
struct Affine {
  std::map<Expr, std::int64_t> coeffs;  // no zero coefficients
  std::int64_t constant = 0;
  bool operator==(const Affine& o) const { return coeffs == o.coeffs && constant == o.constant; }
  bool is_constant() const { return coeffs.empty(); }
};

// The affine form of an i64 expression; nullopt if it is not affine (and !opaque_atoms).
std::optional<Affine> to_affine(Expr e, bool opaque_atoms = false);
bool is_affine(Expr e);
// An i64 expression for an affine form: atoms in creation order, `a + b - 2 * c + 3`.
Expr from_affine(const Affine& a);
// A loop bound as the extent of a gen over the same range: b where its affine form has a
// non-negative constant and non-negative coefficients on variables (sizes are >= 0), else
// max(b, 0). A sum over a negative range is empty, but a gen over one is an error, so a value
// lifted out of a sum into a gen over its binders needs the clamp (decision 185).
Expr extent_of_bound(Expr b);
// Whether two integer expressions are equal for every value of their variables (a sound,
// incomplete test: equal affine forms over opaque atoms).
bool provably_equal(Expr a, Expr b);
// Whether two types have provably equal shapes, element types and field types.
bool same_shape(const Type& a, const Type& b);

}  // namespace adlab::ir
