// The iverson strategy's local rules are applied by the rewrite engine from the very tables
// `adlab rules` proves (paper 000 (6.15)-(6.18), (6.25), (6.26); STYLE: one rule object, applied
// and proved).
#include <catch2/catch.hpp>

#include <set>
#include <sstream>

#include "ad/iverson/local_adjoint.h"
#include "ad/iverson/tests/iverson_test_util.h"
#include "ir/rewrite/tables/tables.h"
#include "ir/syntax/printer.h"

using namespace adlab;
using namespace adlab::ad;
using namespace adlab::ad::iverson::testing;

namespace {

// "rule [cite]: ..." lines of a derivation's notes: the names of the table rules applied.
std::vector<std::string> applied_rules(const std::string& notes) {
  std::vector<std::string> out;
  std::istringstream in(notes);
  for (std::string line; std::getline(in, line);) {
    auto start = line.find_first_not_of(' ');
    auto open = line.find(" [");
    if (start == std::string::npos || open == std::string::npos || open < start) continue;
    std::string name = line.substr(start, open - start);
    if (name.rfind("adj-", 0) == 0 || name.rfind("fwd-", 0) == 0) out.push_back(name);
  }
  return out;
}

bool is_zero_literal(ir::Expr e) {
  auto* l = e.as<ir::Literal>();
  return l && l->value == 0;
}

const ir::rewrite::Rule* find_rule(const ir::rewrite::RuleTable& t, const std::string& name) {
  for (const auto& r : t.rules)
    if (r.name() == name) return &r;
  return nullptr;
}

ir::FunctionPtr parse_one_function(const std::string& text, const std::string& func) {
  static std::vector<ir::Module> keep;
  keep.push_back(ir::parse_module(text, "local.adl"));
  return keep.back().entry(func);
}

ir::SuiteEntry iverson_entry(const std::string& name) {
  auto s = ir::load_manifest(suites_root() + "/papers/iverson/manifest.json", suites_root());
  for (const auto& e : s.entries)
    if (e.name == name) return e;
  FAIL("no entry " << name);
  return s.entries[0];
}

}  // namespace

TEST_CASE("engine step: one rule at the root, children untouched (000 (6.16))", "[unit]") {
  using namespace ir;
  ir::rewrite::Engine engine({&ir::rewrite::iverson_adjoint_table()});
  auto f64 = Type::scalar(ElemType::F64);
  Expr g = Var::make("g", f64), a = Var::make("a", f64), b = Var::make("b", f64),
       c = Var::make("c", f64);
  // g * (a + (b + c)): adj-add once at the root; the inner a + (b + c) is not distributed
  Expr inner = Binary::make(BinaryOp::Add, b, c);
  Expr t = Binary::make(BinaryOp::Mul, g, Binary::make(BinaryOp::Add, a, inner));
  auto r = engine.step(t);
  REQUIRE(r.has_value());
  CHECK(expr_str(*r) == "g * a + g * (b + c)");
  REQUIRE(engine.trace().size() == 1);
  CHECK(engine.trace()[0].rule == "adj-add");
  CHECK(engine.trace()[0].cite == "000 (6.16): adjoint of a + b is (g, g)");
  // nothing applies at a sum's root: nullopt, nothing traced
  CHECK_FALSE(engine.step(Binary::make(BinaryOp::Add, a, b)).has_value());
  CHECK(engine.trace().size() == 1);
}

TEST_CASE("paper 000 (6.17): the local adjoint of a product is the engine's adj-mul", "[unit]") {
  using namespace ir;
  auto f64 = Type::scalar(ElemType::F64);
  Expr x = Var::make("x", f64), y = Var::make("y", f64), g = Var::make("d_r", f64);
  iverson::LocalAdjoint local;
  auto parts = local(Binary::make(BinaryOp::Mul, x, y), g, Expr(), [](Expr) { return true; });
  REQUIRE(parts.size() == 2);
  CHECK(parts[0].operand == x);
  CHECK(expr_str(parts[0].adjoint) == "d_r * y");
  CHECK(parts[1].operand == y);
  CHECK(expr_str(parts[1].adjoint) == "d_r * x");
  // the tangent from the forward table, then its transposition by the adjoint table
  REQUIRE(local.trace().size() == 2);
  CHECK(local.trace()[0].rule == "fwd-mul");
  CHECK(local.trace()[1].rule == "adj-mul");
  // a seed of 1 is folded where the rule built the product (it would cost a multiplication)
  auto one = local(Binary::make(BinaryOp::Mul, x, y), Literal::make(1, ElemType::F64), Expr(),
                   [](Expr) { return true; });
  CHECK(expr_str(one[0].adjoint) == "y");
  // division: (g / b, -(g (a / b)) / b), adj-div before adj-sub
  auto q = Binary::make(BinaryOp::Div, x, y);
  auto dq = local(q, g, Expr(), [](Expr) { return true; });
  REQUIRE(dq.size() == 2);
  CHECK(expr_str(dq[0].adjoint) == "d_r / y");
  CHECK(expr_str(dq[1].adjoint) == "-(d_r * (x / y) / y)");
  CHECK(local.trace().back().rule == "adj-div");
  // negation (no suite program keeps one after normalisation): (6.3), then (6.15)
  auto dn = local(Unary::make(UnaryOp::Neg, x), g, Expr(), [](Expr) { return true; });
  REQUIRE(dn.size() == 1);
  CHECK(expr_str(dn[0].adjoint) == "-d_r");
  CHECK(local.trace().back().rule == "adj-neg");
  // subtraction: (g, -g)
  auto one_active = local(Binary::make(BinaryOp::Sub, x, y), g, Expr(), [](Expr) { return true; });
  REQUIRE(one_active.size() == 2);
  CHECK(expr_str(one_active[1].adjoint) == "-d_r");
  CHECK(local.trace().back().rule == "adj-sub");
}

TEST_CASE("paper 000 (6.3)-(6.5), (6.11): forward tangents are the engine's rewrites", "[unit]") {
  using namespace ir;
  auto f64 = Type::scalar(ElemType::F64);
  Expr x = Var::make("x", f64), y = Var::make("y", f64), dx = Var::make("t_x", f64),
       dy = Var::make("t_y", f64), zero = Literal::make(0, ElemType::F64);
  iverson::LocalTangent local;
  CHECK(expr_str(local(Binary::make(BinaryOp::Mul, x, y), dx, dy)) == "t_x * y + x * t_y");
  // an inactive operand's term folds away (6.5 with da = 0)
  CHECK(expr_str(local(Binary::make(BinaryOp::Mul, x, y), zero, dy)) == "x * t_y");
  CHECK(expr_str(local(Binary::make(BinaryOp::Div, x, y), dx, dy)) == "t_x / y - x / y * t_y / y");
  CHECK(expr_str(local(Binary::make(BinaryOp::Sub, x, y), dx, dy)) == "t_x - t_y");
  CHECK(expr_str(local(Unary::make(UnaryOp::Neg, x), dx, Expr())) == "-t_x");
  // nothing active: no rule is tried, the tangent is 0
  std::size_t steps = local.trace().size();
  CHECK(is_zero_literal(local(Binary::make(BinaryOp::Add, x, y), zero, zero)));
  CHECK(local.trace().size() == steps);
  std::vector<std::string> names;
  for (const auto& s : local.trace()) names.push_back(s.rule);
  CHECK(names == std::vector<std::string>{"fwd-mul", "fwd-mul", "fwd-div", "fwd-sub", "fwd-neg"});
  // a sum over two indices: fwd-sum once per index (paper 000 (6.11))
  auto f = parse_one_function(
      "func f(A: f64[n, m]) -> f64 { return sum[i < n, j < m] A[i, j] * A[i, j] }", "f");
  Expr sum = f->results[0];
  Expr t = Var::make("t_body", f64);
  Expr dsum = local(sum, t, Expr());
  REQUIRE(dsum.as<Reduce>());
  CHECK(dsum.as<Reduce>()->dom.vars == sum.as<Reduce>()->dom.vars);
  CHECK(dsum.as<Reduce>()->body == t);
  CHECK(local.trace().size() == names.size() + 2);
  CHECK(local.trace().back().rule == "fwd-sum");
}

TEST_CASE("paper 000 (6.25), (6.26): brackets and sums move into the operand's context", "[unit]") {
  auto f = parse_one_function("func f(x: f64[n]) -> f64 { return sum[i < n] [i < 3] * x[i] }", "f");
  using namespace ir;
  Expr body = f->results[0];
  iverson::LocalAdjoint local;
  Expr g = Literal::make(1, ElemType::F64);
  auto sum = local(body, g, Expr(), [](Expr) { return true; });
  REQUIRE(sum.size() == 1);
  REQUIRE(sum[0].binders.size() == 1);
  CHECK(sum[0].operand == body.as<Reduce>()->body);
  auto br = local(sum[0].operand, g, Expr(), [](Expr) { return true; });
  REQUIRE(br.size() == 1);
  REQUIRE(br[0].atoms.size() == 1);
  CHECK(expr_str(br[0].atoms[0]) == "i < 3");
  std::vector<std::string> names;
  for (const auto& s : local.trace()) names.push_back(s.rule);
  CHECK(names == std::vector<std::string>{"adj-sum", "fwd-bracket", "adj-bracket"});
}

TEST_CASE("digest 000 bad input: a node no adjoint rule covers is UNSUPPORTED at its position",
          "[unit]") {
  auto f = parse_one_function("func f(x: f64) -> f64 {\n  return select(x > 0, x, 0)\n}", "f");
  iverson::LocalAdjoint local;
  try {
    local(f->results[0], ir::Literal::make(1, ir::ElemType::F64), ir::Expr(),
          [](ir::Expr) { return true; });
    FAIL("no error");
  } catch (const Unsupported& u) {
    CHECK(u.pos().valid());
    CHECK(u.pos().line == 2);
    INFO(u.message());
    CHECK(u.message().find("no adjoint rule for `Select`") != std::string::npos);
  }
}

TEST_CASE("digest 000 TC3, TC13, TC20: the trace names the applied table rules with citations",
          "[unit]") {
  const auto* table = ir::rewrite::TableRegistry::instance().find("iverson-adjoint");
  REQUIRE(table == &ir::rewrite::iverson_adjoint_table());  // the registered, proved object
  for (const char* name : {"tc03_diag_dot", "tc13_matmul_adjoint", "tc20_product_tree"}) {
    auto e = iverson_entry(name);
    auto d = strategy().differentiate(load(e), Request{e.wrt, Mode::Gradient, ""});
    auto rules = applied_rules(d.notes);
    INFO(name << "\n" << d.notes);
    CHECK_FALSE(rules.empty());
    for (const auto& r : rules) {
      const auto* rule = find_rule(*table, r);
      if (!rule) rule = find_rule(ir::rewrite::iverson_forward_table(), r);
      INFO(r);
      REQUIRE(rule != nullptr);
      CHECK(d.notes.find(r + " [" + rule->spec.cite + "]") != std::string::npos);
    }
  }
}

TEST_CASE("digest 000 section 12 (all suites): every applied rule is a rule of a proved table",
          "[slow]") {
  std::set<std::string> used;
  std::size_t derived = 0;
  for (const auto& suite : ir::find_suites(suites_root()))
    for (const auto& e : suite.entries)
      for (Mode m : {Mode::Gradient, Mode::Vjp, Mode::Jvp}) {
        if (std::find(e.modes.begin(), e.modes.end(), mode_name(m)) == e.modes.end()) continue;
        Derivative d;
        try {
          d = strategy().differentiate(load(e), Request{e.wrt, m, ""});
        } catch (const Unsupported&) {
          continue;
        }
        ++derived;
        for (const auto& r : applied_rules(d.notes)) {
          INFO(e.id() << " " << mode_name(m) << ": " << r);
          bool known = find_rule(ir::rewrite::iverson_adjoint_table(), r) ||
                       find_rule(ir::rewrite::iverson_forward_table(), r);
          CHECK(known);
          used.insert(r);
        }
      }
  CHECK(derived >= 70);
  // every local rule of the transposition is exercised by the suites
  for (const char* r :
       {"adj-mul", "adj-div", "adj-add", "adj-sub", "adj-blackbox", "adj-bracket", "adj-sum",
        "fwd-mul", "fwd-div", "fwd-add", "fwd-sub", "fwd-bracket", "fwd-sum"}) {
    INFO(r);
    CHECK(used.count(r) == 1);
  }
}
