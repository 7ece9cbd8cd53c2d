// Affine normal form of index expressions, used for shape equality and affine-ness checks.
#include "ir/affine.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "ir/builder.h"

namespace adlab::ir {

namespace {
void add_scaled(Affine& into, const Affine& x, std::int64_t k) {
  into.constant += k * x.constant;
  for (auto& [atom, c] : x.coeffs) {
    auto& slot = into.coeffs[atom];
    slot += k * c;
    if (slot == 0) into.coeffs.erase(atom);
  }
}
}  // namespace

std::optional<Affine> to_affine(Expr e, bool opaque_atoms) {
  auto atom = [&]() -> std::optional<Affine> {
    if (!opaque_atoms) return std::nullopt;
    Affine a;
    a.coeffs[e] = 1;
    return a;
  };
  if (auto* l = e.as<Literal>()) {
    if (l->value != std::floor(l->value)) return std::nullopt;
    Affine a;
    a.constant = static_cast<std::int64_t>(l->value);
    return a;
  }
  if (e.as<Var>()) {
    Affine a;
    a.coeffs[e] = 1;
    return a;
  }
  if (auto* u = e.as<Unary>()) {
    if (u->op != UnaryOp::Neg) return atom();
    auto x = to_affine(u->a, opaque_atoms);
    if (!x) return atom();
    Affine r;
    add_scaled(r, *x, -1);
    return r;
  }
  if (auto* b = e.as<Binary>()) {
    if (b->op == BinaryOp::Add || b->op == BinaryOp::Sub) {
      auto x = to_affine(b->a, opaque_atoms);
      auto y = to_affine(b->b, opaque_atoms);
      if (!x || !y) return atom();
      Affine r = *x;
      add_scaled(r, *y, b->op == BinaryOp::Add ? 1 : -1);
      return r;
    }
    if (b->op == BinaryOp::Mul) {
      auto x = to_affine(b->a, opaque_atoms);
      auto y = to_affine(b->b, opaque_atoms);
      if (x && y && (x->is_constant() || y->is_constant())) {
        Affine r;
        if (x->is_constant())
          add_scaled(r, *y, x->constant);
        else
          add_scaled(r, *x, y->constant);
        return r;
      }
      return atom();
    }
  }
  return atom();
}

bool is_affine(Expr e) {
  return to_affine(e, false).has_value();
}

bool provably_equal(Expr a, Expr b) {
  if (a == b) return true;
  auto x = to_affine(a, true);
  auto y = to_affine(b, true);
  return x && y && *x == *y;
}

bool same_shape(const Type& a, const Type& b) {
  if (a.dims.size() != b.dims.size() || a.fields.size() != b.fields.size()) return false;
  if (!a.is_tuple() && a.elem != b.elem) return false;
  for (std::size_t k = 0; k < a.dims.size(); ++k)
    if (!provably_equal(a.dims[k], b.dims[k])) return false;
  for (std::size_t k = 0; k < a.fields.size(); ++k)
    if (!same_shape(a.fields[k], b.fields[k])) return false;
  return true;
}

Expr from_affine(const Affine& a) {
  using namespace dsl;
  std::vector<std::pair<Expr, std::int64_t>> terms(a.coeffs.begin(), a.coeffs.end());
  std::sort(terms.begin(), terms.end(),
            [](const auto& x, const auto& y) { return x.first->id < y.first->id; });
  // A positive term first reads best: `i + m - 3` rather than `-3 + i + m`.
  std::stable_partition(terms.begin(), terms.end(), [](const auto& t) { return t.second > 0; });
  Expr out;
  for (const auto& [atom, c] : terms) {
    std::int64_t mag = c < 0 ? -c : c;
    Expr term = mag == 1 ? atom : ilit(mag) * atom;
    if (!out.defined())
      out = c < 0 ? -term : term;
    else
      out = c < 0 ? out - term : out + term;
  }
  if (!out.defined()) return ilit(a.constant);
  if (a.constant > 0) out = out + ilit(a.constant);
  if (a.constant < 0) out = out - ilit(-a.constant);
  return out;
}

Expr extent_of_bound(Expr b) {
  auto a = to_affine(b, /*opaque_atoms=*/true);
  bool non_negative = a && a->constant >= 0;
  if (a)
    for (const auto& [atom, c] : a->coeffs) non_negative = non_negative && c > 0 && atom.as<Var>();
  return non_negative ? b : dsl::max(b, dsl::ilit(0));
}

}  // namespace adlab::ir
