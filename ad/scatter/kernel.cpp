// Kernels of the flat form (paper 002 section 4.5) and small IR helpers shared by the passes.
#include "ad/scatter/kernel.h"

#include "ir/context.h"

#include "ir/builder.h"

namespace adlab::ad::scatter {

using namespace ir;

Expr zero_of(ElemType e) {
  return Literal::make(0, e);
}

Expr one_of(ElemType e) {
  return Literal::make(1, e);
}

Expr access_or_self(Expr base, const std::vector<Expr>& idx) {
  return idx.empty() ? base : Access::make(base, idx);
}

Expr gen_or_self(const std::vector<Expr>& vars, const std::vector<Expr>& bounds, Expr body) {
  if (vars.empty()) return body;
  Domain d;
  d.vars = vars;
  d.bounds = bounds;
  return Gen::make(d, body);
}

Expr and_guard(Expr a, Expr b) {
  if (!a.defined()) return b;
  if (!b.defined()) return a;
  return Binary::make(BinaryOp::And, a, b);
}

namespace {
// A zero value of type t (scalars and tensors), for the untaken side of a guard.
Expr zero_value(const Type& t) {
  if (t.is_scalar()) return zero_of(t.elem);
  Domain d;
  for (std::size_t k = 0; k < t.rank(); ++k) {
    // a fresh name: `z_0` may be a size or parameter of the program (it was captured)
    d.vars.push_back(Var::make(Context::current().fresh_name("z"), Type::scalar(ElemType::I64)));
    d.bounds.push_back(t.dims[k]);
  }
  return Gen::make(d, zero_of(t.elem));
}
}  // namespace

Expr Kernel::value() const {
  Expr inner;
  Domain in;
  in.vars = ivars;
  in.bounds = ibounds;
  switch (kind) {
    case KernelKind::Map:
      inner = body;
      break;
    case KernelKind::Reduce:
      inner = Reduce::make(op, in, body);
      break;
    case KernelKind::Scan:
      inner = Scan::make(op, in, body);
      break;
    case KernelKind::Fold:
      inner = Loop::make(in, {state}, {init}, body);
      break;
  }
  if (guard.defined()) inner = Select::make(guard, inner, zero_value(inner->type));
  return gen_or_self(vars, bounds, inner);
}

}  // namespace adlab::ad::scatter
