// Types, operator names and arities (DESIGN 2.1).
#include <cmath>

#include "ir/expr.h"

namespace adlab::ir {

const char* kind_name(NodeKind k) {
  switch (k) {
#define ADLAB_NODE(N) \
  case NodeKind::N:   \
    return #N;
#include "ir/node_kinds.def"
  }
  return "?";
}

Type Type::element() const {
  Type t = *this;
  t.dims.clear();
  t.storage = Storage::Dense;
  return t;
}

Type Type::drop_dims(std::size_t k) const {
  Type t = *this;
  t.dims.erase(t.dims.begin(),
               t.dims.begin() + static_cast<std::ptrdiff_t>(std::min(k, dims.size())));
  if (k > 0) t.storage = Storage::Dense;
  return t;
}

bool Type::operator==(const Type& o) const {
  return elem == o.elem && storage == o.storage && dims == o.dims && fields == o.fields;
}

std::size_t Type::hash() const {
  std::size_t h = static_cast<std::size_t>(elem) * 31 + static_cast<std::size_t>(storage);
  for (auto d : dims) h = h * 1000003 ^ std::hash<const void*>()(d.get());
  for (const auto& f : fields) h = h * 998244353 ^ f.hash();
  return h;
}

const char* op_name(UnaryOp op) {
  return op == UnaryOp::Neg ? "-" : "!";
}

const char* op_name(BinaryOp op) {
  switch (op) {
    case BinaryOp::Add:
      return "+";
    case BinaryOp::Sub:
      return "-";
    case BinaryOp::Mul:
      return "*";
    case BinaryOp::Div:
      return "/";
    case BinaryOp::Mod:
      return "%";
    case BinaryOp::Lt:
      return "<";
    case BinaryOp::Le:
      return "<=";
    case BinaryOp::Gt:
      return ">";
    case BinaryOp::Ge:
      return ">=";
    case BinaryOp::Eq:
      return "==";
    case BinaryOp::Ne:
      return "!=";
    case BinaryOp::And:
      return "&&";
    case BinaryOp::Or:
      return "||";
  }
  return "?";
}

const char* op_name(PrimOp op) {
  switch (op) {
    case PrimOp::Exp:
      return "exp";
    case PrimOp::Log:
      return "log";
    case PrimOp::Log1p:
      return "log1p";
    case PrimOp::Expm1:
      return "expm1";
    case PrimOp::Sin:
      return "sin";
    case PrimOp::Cos:
      return "cos";
    case PrimOp::Tan:
      return "tan";
    case PrimOp::Tanh:
      return "tanh";
    case PrimOp::Sigmoid:
      return "sigmoid";
    case PrimOp::Sqrt:
      return "sqrt";
    case PrimOp::Abs:
      return "abs";
    case PrimOp::Lgamma:
      return "lgamma";
    case PrimOp::Floor:
      return "floor";
    case PrimOp::Round:
      return "round";
    case PrimOp::Pow:
      return "pow";
    case PrimOp::Min:
      return "min";
    case PrimOp::Max:
      return "max";
    case PrimOp::Band:
      return "band";
    case PrimOp::Bxor:
      return "bxor";
    case PrimOp::ToF64:
      return "f64";
    case PrimOp::ToF32:
      return "f32";
    case PrimOp::ToI64:
      return "i64";
  }
  return "?";
}

const char* op_name(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum:
      return "+";
    case ReduceOp::Prod:
      return "*";
    case ReduceOp::Max:
      return "max";
    case ReduceOp::Min:
      return "min";
  }
  return "?";
}

int prim_arity(PrimOp op) {
  switch (op) {
    case PrimOp::Pow:
    case PrimOp::Min:
    case PrimOp::Max:
    case PrimOp::Band:
    case PrimOp::Bxor:
      return 2;
    default:
      return 1;
  }
}

bool is_comparison(BinaryOp op) {
  return op == BinaryOp::Lt || op == BinaryOp::Le || op == BinaryOp::Gt || op == BinaryOp::Ge ||
         op == BinaryOp::Eq || op == BinaryOp::Ne;
}

}  // namespace adlab::ir
