// IR core: hash-consing, builders, free variables, capture-avoiding substitution, visitor/mutator.
#include <catch2/catch.hpp>

#include <set>

#include "ir/context.h"
#include "ir/function.h"
#include "ir/interp/interpreter.h"
#include "ir/mutator.h"
#include "ir/substitute.h"
#include "ir/syntax/parser.h"
#include "ir/syntax/printer.h"
#include "ir/tensor/tensor_ops.h"
#include "ir/typecheck.h"
#include "ir/visitor.h"

using namespace adlab;
using namespace adlab::ir;

namespace {
Expr i64var(const char* n) {
  return Var::make(n, Type::scalar(ElemType::I64));
}
Expr f64var(const char* n) {
  return Var::make(n, Type::scalar(ElemType::F64));
}
Domain dom1(Expr v, Expr b) {
  return Domain{{v}, {b}, Expr(), {}};
}
}  // namespace

TEST_CASE("structurally equal nodes are one node", "[unit]") {
  Context ctx;
  ContextScope scope(ctx);
  Expr x = f64var("x"), y = f64var("y");
  Expr a = Binary::make(BinaryOp::Add, x, Binary::make(BinaryOp::Mul, x, y));
  Expr b = Binary::make(BinaryOp::Add, x, Binary::make(BinaryOp::Mul, x, y));
  CHECK(a == b);
  CHECK(Binary::make(BinaryOp::Mul, y, x) != Binary::make(BinaryOp::Mul, x, y));
  // Same name, different type: different variables.
  CHECK(Var::make("x", Type::scalar(ElemType::I64)) != x);
  std::size_t before = ctx.num_nodes();
  (void)Binary::make(BinaryOp::Add, x, Binary::make(BinaryOp::Mul, x, y));
  CHECK(ctx.num_nodes() == before);
}

TEST_CASE("parsed programs share structurally equal subexpressions", "[unit]") {
  Context ctx;
  ContextScope scope(ctx);
  Module m = parse_module(
      "func f(x: f64[n]) -> f64 {\n return (sum[i < n] x[i] * x[i]) + (sum[i < n] x[i] * "
      "x[i])\n}\n");
  auto* add = m.functions[0]->results[0].as<Binary>();
  REQUIRE(add);
  CHECK(add->a == add->b);
  // Both occurrences are remembered in the position side table.
  CHECK(ctx.positions(add->a).size() == 2);
}

TEST_CASE("make() checks local typing", "[unit]") {
  Context ctx;
  ContextScope scope(ctx);
  Expr i = i64var("i"), x = f64var("x");
  CHECK_THROWS_WITH(Binary::make(BinaryOp::Add, i, x), Catch::Contains("mixes i64 and f64"));
  Expr v = Var::make("v", Type::tensor(ElemType::F64, {i64var("n")}));
  CHECK_THROWS_WITH(Access::make(v, {i, i}), Catch::Contains("has rank 1 but is indexed with 2"));
  CHECK_THROWS_WITH(Reduce::make(ReduceOp::Sum, dom1(i, i64var("n")), v),
                    Catch::Contains("needs a numeric scalar body"));
  CHECK_THROWS_WITH(Iverson::make(x, x), Catch::Contains("must be a predicate"));
  // An index variable may be made before its binder.
  Expr j = i64var("j");
  CHECK_NOTHROW(Access::make(v, {j}));
  // A let binds names only: a literal binder reached the printer's check later (decision 231).
  CHECK_THROWS_WITH(Let::make({Literal::make(0.0, ElemType::F64)}, x, x),
                    Catch::Contains("let binds a Literal, not a name"));
}

TEST_CASE("flexible literals adapt to their use", "[unit]") {
  Context ctx;
  ContextScope scope(ctx);
  Expr i = i64var("i");
  Expr e = Binary::make(BinaryOp::Add, i, Literal::make_flexible(1));
  CHECK(e->type.elem == ElemType::I64);
  CHECK_FALSE(e->flexible);
  Expr two_times_three =
      Binary::make(BinaryOp::Mul, Literal::make_flexible(2), Literal::make_flexible(3));
  CHECK(two_times_three->flexible);
  CHECK(coerce_flexible(two_times_three, ElemType::I64)->type.elem == ElemType::I64);
  CHECK_THROWS_WITH(coerce_flexible(Literal::make_flexible(2.5), ElemType::I64),
                    Catch::Contains("is used as an integer"));
}

TEST_CASE("free variables respect every binder", "[unit]") {
  Context ctx;
  ContextScope scope(ctx);
  Expr n = i64var("n"), i = i64var("i"), j = i64var("j");
  Expr x = Var::make("x", Type::tensor(ElemType::F64, {n}));
  // sum[i < n] x[i + j]: j and x (and n in the bound) are free, i is not.
  Expr body = Access::make(x, {Binary::make(BinaryOp::Add, i, j)});
  Expr s = Reduce::make(ReduceOp::Sum, dom1(i, n), body);
  auto fv = free_vars(s);
  CHECK(std::find(fv.begin(), fv.end(), i) == fv.end());
  CHECK(std::find(fv.begin(), fv.end(), j) != fv.end());
  CHECK(std::find(fv.begin(), fv.end(), x) != fv.end());
  CHECK(std::find(fv.begin(), fv.end(), n) != fv.end());
  // let y = x[j]; y * y: y is bound.
  Expr y = f64var("y");
  Expr let = Let::make({y}, Access::make(x, {j}), Binary::make(BinaryOp::Mul, y, y));
  CHECK_FALSE(is_free_in(y, let));
  CHECK(is_free_in(j, let));
}

TEST_CASE("substitution avoids capture", "[unit]") {
  Context ctx;
  ContextScope scope(ctx);
  Expr n = i64var("n"), i = i64var("i"), j = i64var("j");
  Expr x = Var::make("x", Type::tensor(ElemType::F64, {n}));
  // (sum[i < n] x[i + j]){j := i + 1} must rename the bound i.
  Expr s =
      Reduce::make(ReduceOp::Sum, dom1(i, n), Access::make(x, {Binary::make(BinaryOp::Add, i, j)}));
  Expr r = substitute(s, j, Binary::make(BinaryOp::Add, i, Literal::make(1, ElemType::I64)));
  auto* red = r.as<Reduce>();
  REQUIRE(red);
  CHECK(red->dom.vars[0] != i);
  CHECK(is_free_in(i, r));  // the substituted i stays free
  CHECK(expr_str(r) == "sum[" + var_name(red->dom.vars[0]) + " < n] x[" +
                           var_name(red->dom.vars[0]) + " + (i + 1)]");
  // Bound occurrences are not substituted.
  CHECK(substitute(s, i, j) == s);
  // Evaluate both at n = 4 to confirm the meaning: sum_k x[k + j] with j := i + 1.
}

TEST_CASE("substitution preserves meaning (interpreted)", "[unit]") {
  Module m = parse_module(
      "func f(x: f64[n], j: i64) -> f64 {\n  return sum[i < n] [i + j < n] * x[i + j]\n}\n"
      "func g(x: f64[n], j: i64) -> f64 {\n  return sum[i < n] [i + (j + 1) < n] * x[i + (j + "
      "1)]\n}\n");
  auto f = m.find("f");
  auto g = m.find("g");
  Expr jv = f->params[1];
  Expr replaced = substitute(f->results[0], jv,
                             Binary::make(BinaryOp::Add, jv, Literal::make(1, ElemType::I64)));
  CHECK(replaced == g->results[0]);
}

// Decision 238: names are interned, so a binder of a name already in scope is the same variable;
// the type check unbound it with the inner binder and called the outer one's later uses unknown.
TEST_CASE("a binder of a name in scope is refused by the type check, and unshadow renames it",
          "[unit]") {
  Context ctx;
  ContextScope scope(ctx);
  Expr n = i64var("n"), i = i64var("i"), a = f64var("a");
  Expr x = Var::make("x", Type::tensor(ElemType::F64, {n}));
  // let a = x[0]; let b = sum[i < n] { let a = x[i]; a * a }; return a + b
  Expr inner =
      Reduce::make(ReduceOp::Sum, dom1(i, n),
                   Let::make({a}, Access::make(x, {i}), Binary::make(BinaryOp::Mul, a, a)));
  Expr b = f64var("b");
  Function f;
  f.name = "shadow";
  f.sizes = {n};
  f.params = {x};
  f.stmts = {Stmt{{a}, Access::make(x, {Literal::make(0, ElemType::I64)})}, Stmt{{b}, inner}};
  f.results = {Binary::make(BinaryOp::Add, a, b)};
  f.result_type = Type::scalar(ElemType::F64);
  CHECK_THROWS_WITH(check_function(f), Catch::Contains("`a` is bound here while already in scope"));
  // bound_vars: the let's binder only when asked for
  CHECK(bound_vars(inner) == std::vector<Expr>{i, a});
  CHECK(bound_vars(inner, /*lets=*/false) == std::vector<Expr>{i});
  // unshadow with `a` bound around renames the inner let apart, and the function checks
  f.stmts[1].value = unshadow(inner, VarSet{a});
  CHECK_FALSE(is_free_in(a, f.stmts[1].value));
  CHECK_NOTHROW(check_function(f));
}

TEST_CASE("the mutator reuses unchanged nodes", "[unit]") {
  Module m = parse_module("func f(x: f64[n]) -> f64[n] {\n  return gen[i < n] exp(x[i]) * 2\n}\n");
  Mutator identity;
  Expr e = m.functions[0]->results[0];
  CHECK(identity.mutate(e) == e);

  struct ExpToLog : Mutator {
    Expr mutate_node(const Prim& p, Expr self) override {
      if (p.op == PrimOp::Exp) return Prim::make(PrimOp::Log, {mutate(p.args[0])});
      return Mutator::mutate_node(p, self);
    }
  } swap;
  CHECK(expr_str(swap.mutate(e)) == "gen[i < n] log(x[i]) * 2");
}

TEST_CASE("the visitor reaches every node kind", "[unit]") {
  Module m = parse_module(R"(
func f(x: f64[n], A: f64[n, n] @csr, idx: i64[n]) -> f64 {
  let s = scan[i < n] (+) x[i]
  let l = loop[t < 3] (a = 0.0) { next a + s[t % n] }
  let c = scatter[i < n] to f64[n] at (idx[i]) add x[i]
  let p = gen[i < n] (x[i], c[i])
  return l + (sum[(i, j) in A] [exists[k < n] nz(A, i, k)] * A[i, j]) + (max[i < n] select(x[i] > 0, p[i].0, -x[i])) + { let z = 2; z * z }
}
)");
  struct Count : Visitor {
    std::set<NodeKind> seen;
    void visit_node(const Literal& n, Expr self) override {
      seen.insert(n.kind);
      Visitor::visit_node(n, self);
    }
    void visit_node(const Var& n, Expr self) override {
      seen.insert(n.kind);
      Visitor::visit_node(n, self);
    }
    void visit_node(const Scan& n, Expr self) override {
      seen.insert(n.kind);
      Visitor::visit_node(n, self);
    }
    void visit_node(const Loop& n, Expr self) override {
      seen.insert(n.kind);
      Visitor::visit_node(n, self);
    }
    void visit_node(const Scatter& n, Expr self) override {
      seen.insert(n.kind);
      Visitor::visit_node(n, self);
    }
    void visit_node(const Exists& n, Expr self) override {
      seen.insert(n.kind);
      Visitor::visit_node(n, self);
    }
    void visit_node(const Nz& n, Expr self) override {
      seen.insert(n.kind);
      Visitor::visit_node(n, self);
    }
    void visit_node(const Select& n, Expr self) override {
      seen.insert(n.kind);
      Visitor::visit_node(n, self);
    }
    void visit_node(const Proj& n, Expr self) override {
      seen.insert(n.kind);
      Visitor::visit_node(n, self);
    }
    void visit_node(const Tuple& n, Expr self) override {
      seen.insert(n.kind);
      Visitor::visit_node(n, self);
    }
    void visit_node(const Let& n, Expr self) override {
      seen.insert(n.kind);
      Visitor::visit_node(n, self);
    }
  } count;
  const auto& f = *m.functions[0];
  for (const auto& s : f.stmts) count.visit(s.value);
  count.visit(f.results[0]);
  CHECK(count.seen.size() == 11);
}

TEST_CASE("paper 003 sharing chain of depth 60 evaluates in linear time", "[unit]") {
  // x_{k+1} = x_k * x_k + x_k: with lets this is 2 operations per level, not 2^60.
  std::string src = "func chain(x0: f64) -> f64 {\n";
  for (int k = 1; k <= 60; ++k)
    src += "  let x" + std::to_string(k) + " = x" + std::to_string(k - 1) + " * x" +
           std::to_string(k - 1) + " * 0.5 + 0.25\n";
  src += "  return x60\n}\n";
  Module m = parse_module(src);
  Interpreter<double> interp;
  auto out = interp.run_tensors(*m.functions[0], {scalar(0.5)});
  double x = 0.5;
  for (int k = 0; k < 60; ++k) x = x * x * 0.5 + 0.25;
  CHECK(out[0].values[0] == Approx(x).epsilon(1e-14));
  CHECK(interp.counts().muls == 120);
  CHECK(interp.counts().adds == 60);
}
