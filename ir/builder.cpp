// The builder API: thin wrappers over make() (STYLE.md "Builders read like the math").
#include "ir/builder.h"

#include <algorithm>

#include "ir/typecheck.h"

namespace adlab::ir::dsl {

namespace {
Domain rect(std::initializer_list<Binder> binders) {
  Domain d;
  for (const auto& [v, b] : binders) {
    d.vars.push_back(v);
    d.bounds.push_back(b);
  }
  return d;
}
}  // namespace

Expr num(double v) {
  return Literal::make_flexible(v);
}

Expr lit(double v) {
  return Literal::make(v, ElemType::F64);
}
Expr ilit(std::int64_t v) {
  return Literal::make(static_cast<double>(v), ElemType::I64);
}
Expr index(const std::string& name) {
  return Var::make(name, Type::scalar(ElemType::I64));
}
Expr f64(const std::string& name, std::vector<Expr> dims, Storage s) {
  return Var::make(name, Type::tensor(ElemType::F64, std::move(dims), s));
}
Expr i64(const std::string& name, std::vector<Expr> dims) {
  return Var::make(name, Type::tensor(ElemType::I64, std::move(dims)));
}

Expr operator+(Expr a, Expr b) {
  return Binary::make(BinaryOp::Add, a, b);
}
Expr operator-(Expr a, Expr b) {
  return Binary::make(BinaryOp::Sub, a, b);
}
Expr operator*(Expr a, Expr b) {
  return Binary::make(BinaryOp::Mul, a, b);
}
Expr operator/(Expr a, Expr b) {
  return Binary::make(BinaryOp::Div, a, b);
}
Expr operator%(Expr a, Expr b) {
  return Binary::make(BinaryOp::Mod, a, b);
}
Expr operator-(Expr a) {
  return Unary::make(UnaryOp::Neg, a);
}
Expr operator+(Expr a, double b) {
  return a + num(b);
}
Expr operator+(double a, Expr b) {
  return num(a) + b;
}
Expr operator-(Expr a, double b) {
  return a - num(b);
}
Expr operator-(double a, Expr b) {
  return num(a) - b;
}
Expr operator*(Expr a, double b) {
  return a * num(b);
}
Expr operator*(double a, Expr b) {
  return num(a) * b;
}
Expr operator/(Expr a, double b) {
  return a / num(b);
}
Expr operator/(double a, Expr b) {
  return num(a) / b;
}
Expr lt(Expr a, Expr b) {
  return Binary::make(BinaryOp::Lt, a, b);
}
Expr le(Expr a, Expr b) {
  return Binary::make(BinaryOp::Le, a, b);
}
Expr gt(Expr a, Expr b) {
  return Binary::make(BinaryOp::Gt, a, b);
}
Expr ge(Expr a, Expr b) {
  return Binary::make(BinaryOp::Ge, a, b);
}
Expr eq(Expr a, Expr b) {
  return Binary::make(BinaryOp::Eq, a, b);
}
Expr ne(Expr a, Expr b) {
  return Binary::make(BinaryOp::Ne, a, b);
}
Expr operator&&(Expr a, Expr b) {
  return Binary::make(BinaryOp::And, a, b);
}
Expr operator||(Expr a, Expr b) {
  return Binary::make(BinaryOp::Or, a, b);
}
Expr operator!(Expr a) {
  return Unary::make(UnaryOp::Not, a);
}

Expr exp(Expr a) {
  return Prim::make(PrimOp::Exp, {a});
}
Expr log(Expr a) {
  return Prim::make(PrimOp::Log, {a});
}
Expr log1p(Expr a) {
  return Prim::make(PrimOp::Log1p, {a});
}
Expr expm1(Expr a) {
  return Prim::make(PrimOp::Expm1, {a});
}
Expr sin(Expr a) {
  return Prim::make(PrimOp::Sin, {a});
}
Expr cos(Expr a) {
  return Prim::make(PrimOp::Cos, {a});
}
Expr tan(Expr a) {
  return Prim::make(PrimOp::Tan, {a});
}
Expr tanh(Expr a) {
  return Prim::make(PrimOp::Tanh, {a});
}
Expr sigmoid(Expr a) {
  return Prim::make(PrimOp::Sigmoid, {a});
}
Expr sqrt(Expr a) {
  return Prim::make(PrimOp::Sqrt, {a});
}
Expr abs(Expr a) {
  return Prim::make(PrimOp::Abs, {a});
}
Expr lgamma(Expr a) {
  return Prim::make(PrimOp::Lgamma, {a});
}
Expr pow(Expr a, Expr b) {
  return Prim::make(PrimOp::Pow, {a, b});
}
Expr min(Expr a, Expr b) {
  return Prim::make(PrimOp::Min, {a, b});
}
Expr max(Expr a, Expr b) {
  return Prim::make(PrimOp::Max, {a, b});
}
Expr to_f64(Expr a) {
  return Prim::make(PrimOp::ToF64, {a});
}
Expr to_float(Expr a, ElemType t) {
  if (a->type.elem == t) return a;
  return Prim::make(t == ElemType::F32 ? PrimOp::ToF32 : PrimOp::ToF64, {a});
}
Expr to_i64(Expr a) {
  return Prim::make(PrimOp::ToI64, {a});
}
Expr select(Expr cond, Expr a, Expr b) {
  return Select::make(cond, a, b);
}

Expr operator*(Bracket b, Expr e) {
  return Iverson::make(b.pred, e);
}
Expr exists(std::pair<Expr, Expr> vb, Expr pred) {
  return Exists::make(rect({vb}), pred);
}
Expr nz(Expr tensor, std::vector<Expr> indices) {
  return Nz::make(tensor, std::move(indices));
}

Expr at(Expr tensor, std::vector<Expr> indices) {
  return Access::make(tensor, std::move(indices));
}
Expr gen(std::initializer_list<Binder> binders, Expr body) {
  return Gen::make(rect(binders), body);
}
Expr sum(std::initializer_list<Binder> binders, Expr body) {
  return Reduce::make(ReduceOp::Sum, rect(binders), body);
}
Expr maximum(std::initializer_list<Binder> binders, Expr body) {
  return Reduce::make(ReduceOp::Max, rect(binders), body);
}
Expr minimum(std::initializer_list<Binder> binders, Expr body) {
  return Reduce::make(ReduceOp::Min, rect(binders), body);
}
Expr sum_stored(std::vector<Expr> vars, Expr source, Expr body, std::vector<Expr> prefix) {
  return Reduce::make(ReduceOp::Sum, Domain{std::move(vars), {}, source, std::move(prefix)}, body);
}
Expr scan(ReduceOp op, Binder binder, Expr body) {
  return Scan::make(op, rect({binder}), body);
}
Expr scatter(std::initializer_list<Binder> binders, Type result, std::vector<Expr> at_,
             Expr value) {
  return Scatter::make(rect(binders), std::move(result), std::move(at_), value);
}
Expr loop(Binder binder, std::vector<std::pair<Expr, Expr>> state_init, Expr next) {
  std::vector<Expr> state, init;
  for (auto& [s, i] : state_init) {
    state.push_back(s);
    init.push_back(i);
  }
  return Loop::make(rect({binder}), state, init, next);
}
Expr let(Expr var, Expr value, Expr body) {
  return Let::make({var}, value, body);
}
Expr tuple(std::vector<Expr> elems) {
  return Tuple::make(std::move(elems));
}
Expr proj(Expr t, int k) {
  return Proj::make(t, k);
}

FunctionBuilder::FunctionBuilder(std::string name) {
  f_.name = std::move(name);
}

Expr FunctionBuilder::size(const std::string& name) {
  Expr s = Var::make(name, Type::scalar(ElemType::I64));
  f_.declared_sizes.push_back(s);
  f_.sizes.push_back(s);
  return s;
}

Expr FunctionBuilder::param(const std::string& name, const Type& type) {
  Expr p = Var::make(name, type);
  for (auto d : type.dims)
    if (d.as<Var>() && std::find(f_.sizes.begin(), f_.sizes.end(), d) == f_.sizes.end())
      f_.sizes.push_back(d);
  f_.params.push_back(p);
  return p;
}

Expr FunctionBuilder::let(const std::string& name, Expr value) {
  Expr v = Var::make(name, value->type);
  f_.stmts.push_back(Stmt{{v}, value});
  return v;
}

FunctionPtr FunctionBuilder::finish(std::vector<Expr> results, Type result_type) {
  f_.results = std::move(results);
  f_.result_type = std::move(result_type);
  for (auto p : f_.params)  // rank-0 i64 parameters used as sizes
    if (p->type.is_index())
      for (auto q : f_.params)
        for (auto d : q->type.dims)
          if (d == p && std::find(f_.sizes.begin(), f_.sizes.end(), p) == f_.sizes.end())
            f_.sizes.push_back(p);
  check_function(f_);
  return std::make_shared<const Function>(f_);
}

}  // namespace adlab::ir::dsl
