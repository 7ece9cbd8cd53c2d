// The builder API: IR built from C++ that reads like the math (TACO style), e.g.
//   gen({i, n}, exp(x(i)))    sum({j, m}, iverson(0 <= i - j && i - j < n) * x(i - j) * c(j))
// Every builder calls the node's make(), so builder-made and parsed programs are the same nodes.
#pragma once

#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "ir/expr.h"
#include "ir/function.h"

namespace adlab::ir::dsl {

// ---- leaves ----
Expr num(double v);                   // an untyped number: i64 or f64 as its use needs
Expr lit(double v);                   // an f64 constant
Expr ilit(std::int64_t v);            // an i64 constant
Expr index(const std::string& name);  // an i64 index variable (bind it with gen/sum/...)
Expr f64(const std::string& name, std::vector<Expr> dims = {}, Storage s = Storage::Dense);
Expr i64(const std::string& name, std::vector<Expr> dims = {});

// ---- arithmetic, comparisons and logic (scalars; numbers adapt as literals do) ----
Expr operator+(Expr a, Expr b);
Expr operator-(Expr a, Expr b);
Expr operator*(Expr a, Expr b);
Expr operator/(Expr a, Expr b);
Expr operator%(Expr a, Expr b);
Expr operator-(Expr a);
Expr operator+(Expr a, double b);
Expr operator+(double a, Expr b);
Expr operator-(Expr a, double b);
Expr operator-(double a, Expr b);
Expr operator*(Expr a, double b);
Expr operator*(double a, Expr b);
Expr operator/(Expr a, double b);
Expr operator/(double a, Expr b);
// Expr's == and < compare node identity, so comparisons are named.
Expr lt(Expr a, Expr b);
Expr le(Expr a, Expr b);
Expr gt(Expr a, Expr b);
Expr ge(Expr a, Expr b);
Expr eq(Expr a, Expr b);
Expr ne(Expr a, Expr b);
Expr operator&&(Expr a, Expr b);
Expr operator||(Expr a, Expr b);
Expr operator!(Expr a);

// ---- primitives ----
Expr exp(Expr a);
Expr log(Expr a);
Expr log1p(Expr a);
Expr expm1(Expr a);
Expr sin(Expr a);
Expr cos(Expr a);
Expr tan(Expr a);
Expr tanh(Expr a);
Expr sigmoid(Expr a);
Expr sqrt(Expr a);
Expr abs(Expr a);
Expr lgamma(Expr a);
Expr pow(Expr a, Expr b);
Expr min(Expr a, Expr b);
Expr max(Expr a, Expr b);
Expr to_f64(Expr a);
// `a` as floating type `t`: itself when it has that type, else f64(a) or f32(a).
Expr to_float(Expr a, ElemType t);
Expr to_i64(Expr a);
Expr select(Expr cond, Expr a, Expr b);

// ---- Iverson brackets: iverson(p) * e ----
struct Bracket {
  Expr pred;
};
inline Bracket iverson(Expr p) {
  return Bracket{p};
}
Expr operator*(Bracket b, Expr e);
Expr exists(std::pair<Expr, Expr> var_bound, Expr pred);
Expr nz(Expr tensor, std::vector<Expr> indices);

// ---- tensors ----
// A binder {i, n}: index variable i ranges over [0, n).
using Binder = std::pair<Expr, Expr>;
Expr at(Expr tensor, std::vector<Expr> indices);  // tensor[indices]
Expr gen(std::initializer_list<Binder> binders, Expr body);
Expr sum(std::initializer_list<Binder> binders, Expr body);
Expr maximum(std::initializer_list<Binder> binders, Expr body);
Expr minimum(std::initializer_list<Binder> binders, Expr body);
// sum[(vars) in source[prefix]] body: the stored entries of a sparse tensor.
Expr sum_stored(std::vector<Expr> vars, Expr source, Expr body, std::vector<Expr> prefix = {});
Expr scan(ReduceOp op, Binder binder, Expr body);
Expr scatter(std::initializer_list<Binder> binders, Type result, std::vector<Expr> at, Expr value);
Expr loop(Binder binder, std::vector<std::pair<Expr, Expr>> state_init, Expr next);
Expr let(Expr var, Expr value, Expr body);
Expr tuple(std::vector<Expr> elems);
Expr proj(Expr tuple, int k);

// Builds a Function statement by statement; finish() type-checks it like the parser does.
class FunctionBuilder {
 public:
  explicit FunctionBuilder(std::string name);
  Expr size(const std::string& name);                     // a declared size
  Expr param(const std::string& name, const Type& type);  // sizes named alone in dims are implied
  Expr let(const std::string& name, Expr value);          // a top-level statement
  FunctionPtr finish(std::vector<Expr> results, Type result_type);

 private:
  Function f_;
};

}  // namespace adlab::ir::dsl

namespace adlab::ir {
// x(i, j) reads like the math: an access.
template <class... Ix>
Expr access(Expr tensor, Ix... ix) {
  return dsl::at(tensor, std::vector<Expr>{Expr(ix)...});
}
}  // namespace adlab::ir
