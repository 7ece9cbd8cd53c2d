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
    if (Expr r = fold_arith(b->op, x, y); r.defined()) return r;
  }
  throw InternalError("iverson: a tangent the forward rules built has an unexpected form: " +
                      expr_str(t));
}

}  // namespace

// (6.11) one index at a time: (sum[j < n] X[j] + D[j]) - (sum[j < n] X[j]) -> sum[j < n] D[j],
// X and D placeholders for the body and its tangent as functions of j.
Expr LocalTangent::sum_tangent(const Reduce& r, Expr d_body, const SourcePos& at) {
  for (std::size_t k = 0; k < r.dom.vars.size(); ++k) {
    Expr j = r.dom.vars[k], n = r.dom.bounds[k];
    Expr x = Var::make("X", Type::tensor(ElemType::F64, {n}));
    Expr d = Var::make("D", Type::tensor(ElemType::F64, {n}));
    Domain one;
    one.vars = {j};
    one.bounds = {n};
    Expr xj = Access::make(x, {j});
    Expr lhs = bin(BinaryOp::Sub,
                   Reduce::make(ReduceOp::Sum, one, bin(BinaryOp::Add, xj, Access::make(d, {j}))),
                   Reduce::make(ReduceOp::Sum, one, xj));
    auto rhs = engine_.step(lhs, {}, at);
    auto* s = rhs ? rhs->as<Reduce>() : nullptr;
    auto* body = s ? s->body.as<Access>() : nullptr;
    if (!body || body->tensor != d || s->dom.vars.size() != 1 || s->dom.bounds[0] != n)
      throw InternalError("iverson: fwd-sum did not give sum[j < n] D[j] for " + expr_str(lhs));
  }
  return Reduce::make(ReduceOp::Sum, r.dom, d_body);
}

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
  } else if (auto* r = e.as<Reduce>(); r && r->op == ReduceOp::Sum && !r->dom.is_stored()) {
    return sum_tangent(*r, da, pos_of(e));
  }
  if (!lhs.defined()) return Expr();
  auto rhs = engine_.step(lhs, {}, pos_of(e));
  if (!rhs)
    throw InternalError("iverson: no rule of `iverson-forward` applies to " + expr_str(lhs));
  return rebuild(value, *rhs);
}

}  // namespace adlab::ad::iverson
