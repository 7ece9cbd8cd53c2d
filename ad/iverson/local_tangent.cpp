// The local tangent by rewriting a first-order identity of the iverson-forward table.
#include "ad/iverson/local_tangent.h"

#include <limits>
#include <unordered_map>

#include "ad/iverson/terms.h"
#include "ir/context.h"
#include "ir/error.h"
#include "ir/rewrite/tables/tables.h"
#include "ir/syntax/printer.h"

namespace adlab::ad::iverson {

using namespace ir;

namespace {

Expr placeholder(const std::string& name) {
  return Var::make(name, Type::scalar(ElemType::F64));
}
Expr bin(BinaryOp op, Expr a, Expr b) {
  return Binary::make(op, a, b);
}

// The rule's right side with the placeholders replaced, folding 0 and 1 (a zero tangent drops
// its term, as forward mode on an inactive operand must).
Expr rebuild(const std::unordered_map<Expr, Expr, ExprHash>& value, Expr t) {
  if (auto it = value.find(t); it != value.end()) return it->second;
  if (auto* u = t.as<Unary>(); u && u->op == UnaryOp::Neg) return neg(rebuild(value, u->a));
  if (auto* iv = t.as<Iverson>()) {
    Expr d = rebuild(value, iv->body);
    return is_zero(d) ? d : Iverson::make(iv->pred, d);
  }
  if (auto* b = t.as<Binary>()) {
    Expr x = rebuild(value, b->a), y = rebuild(value, b->b);
    switch (b->op) {
      case BinaryOp::Add:
        return add(x, y);
      case BinaryOp::Sub:
        return sub(x, y);
      case BinaryOp::Mul:
        return mul(x, y);
      case BinaryOp::Div:
        return div(x, y);
      default:
        break;
    }
  }
  throw InternalError("iverson: a tangent the forward rules built has an unexpected form: " +
                      expr_str(t));
}

}  // namespace

LocalTangent::LocalTangent()
    : engine_({&rewrite::iverson_forward_table()},
              rewrite::EngineOptions{.max_steps = std::numeric_limits<std::size_t>::max(),
                                     .record_trace = true}) {}

Expr LocalTangent::operator()(Expr e, Expr da, Expr db) {
  if (is_zero(da) && (!db.defined() || is_zero(db))) return da;  // nothing active flows in
  std::unordered_map<Expr, Expr, ExprHash> value;
  auto ph = [&](const std::string& name, Expr term) {
    Expr p = placeholder(name);
    value[p] = term;
    return p;
  };
  // e1, e2: the operands; e3, e4: their tangents (the tables' naming)
  Expr lhs;
  if (auto* u = e.as<Unary>(); u && u->op == UnaryOp::Neg) {  // (6.3) -(a + da) - -a
    Expr a = ph("α", u->a), d = ph("δa", da);
    lhs = bin(BinaryOp::Sub, Unary::make(UnaryOp::Neg, bin(BinaryOp::Add, a, d)),
              Unary::make(UnaryOp::Neg, a));
  } else if (auto* b = e.as<Binary>()) {
    Expr a = ph("α", b->a), bb = ph("β", b->b), d3 = ph("δa", da), d4 = ph("δb", db);
    Expr a3 = bin(BinaryOp::Add, a, d3), b4 = bin(BinaryOp::Add, bb, d4);
    switch (b->op) {
      case BinaryOp::Add:  // (6.4) (a + da) + (b + db) - (a + b)
        lhs = bin(BinaryOp::Sub, bin(BinaryOp::Add, a3, b4), bin(BinaryOp::Add, a, bb));
        break;
      case BinaryOp::Sub:  // (a + da) - (b + db) - (a - b)
        lhs = bin(BinaryOp::Sub, bin(BinaryOp::Sub, a3, b4), bin(BinaryOp::Sub, a, bb));
        break;
      case BinaryOp::Mul:  // (6.5) (a + da)(b + db) - a b - da db
        lhs = bin(BinaryOp::Sub,
                  bin(BinaryOp::Sub, bin(BinaryOp::Mul, a3, b4), bin(BinaryOp::Mul, a, bb)),
                  bin(BinaryOp::Mul, d3, d4));
        break;
      case BinaryOp::Div: {  // (a + da)/(b + db) - a/b + (da - (a/b) db) db / (b (b + db))
        Expr q = bin(BinaryOp::Div, a, bb);
        Expr second = bin(BinaryOp::Div,
                          bin(BinaryOp::Mul, bin(BinaryOp::Sub, d3, bin(BinaryOp::Mul, q, d4)), d4),
                          bin(BinaryOp::Mul, bb, b4));
        lhs = bin(BinaryOp::Add, bin(BinaryOp::Sub, bin(BinaryOp::Div, a3, b4), q), second);
        break;
      }
      default:
        break;
    }
  } else if (auto* iv = e.as<Iverson>()) {  // (6.10) [p] (e + de) - [p] e
    Expr a = ph("α", iv->body), d = ph("δa", da);
    lhs = bin(BinaryOp::Sub, Iverson::make(iv->pred, bin(BinaryOp::Add, a, d)),
              Iverson::make(iv->pred, a));
  }
  if (!lhs.defined()) return Expr();
  auto rhs = engine_.step(lhs, {}, pos_of(e));
  if (!rhs)
    throw InternalError("iverson: no rule of `iverson-forward` applies to " + expr_str(lhs));
  return rebuild(value, *rhs);
}

}  // namespace adlab::ad::iverson
