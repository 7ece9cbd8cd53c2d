// The normalisation pipeline of paper 000 (digest 000 section 4) pass by pass: each pass's output
// satisfies its validator (P9) on every suite program, each validator rejects a program that
// breaks its normal form, and let-lifting does what rules 5.6, 5.9 and (corrected) 5.10 say.
#include <catch2/catch.hpp>

#include <algorithm>

#include "ad/iverson/cse.h"
#include "ad/iverson/inline_calls.h"
#include "ad/iverson/let_lifting.h"
#include "ad/iverson/normal_form.h"
#include "ad/iverson/normalise.h"
#include "ad/iverson/tensor_ssa.h"
#include "ad/iverson/tests/iverson_test_util.h"
#include "ir/syntax/printer.h"

using namespace adlab;
using namespace adlab::ad;
using namespace adlab::ad::iverson::testing;

namespace {

ir::FunctionPtr parse_one(const std::string& text, const std::string& func) {
  static std::vector<ir::Module> keep;
  keep.push_back(ir::parse_module(text, "passes.adl"));
  return keep.back().entry(func);
}

iverson::Normalisation passes_of(const ir::Function& f) {
  iverson::FreshNames names;
  names.reserve_all(f);
  ir::logic::PredicateService logic;
  return iverson::normalise_passes(f, names, logic);
}

ir::FunctionPtr lifted(const ir::Function& f) {
  iverson::FreshNames names;
  names.reserve_all(f);
  return iverson::lift_lets(*iverson::inline_calls(f, names), names);
}

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE(
    "digest 000 section 4 P9: every pass's output satisfies its validator on every supported "
    "suite program (TC1-TC20 and the other suites)",
    "[unit]") {
  std::size_t checked = 0, declined = 0;
  for (const auto& suite : ir::find_suites(suites_root())) {
    for (const auto& e : suite.entries) {
      auto f = load(e);
      iverson::Normalisation n;
      try {
        n = passes_of(*f);
      } catch (const Unsupported& u) {
        ++declined;
        INFO(e.id() << ": " << u.message());
        CHECK(u.pos().valid());
        continue;
      }
      ++checked;
      INFO(e.id());
      CHECK(iverson::is_call_free(*n.inlined).ok);
      CHECK(iverson::is_let_lifted(*n.let_lifted).ok);
      CHECK(iverson::is_pair_free(*n.pair_free).ok);
      CHECK(iverson::is_gen_pushed_out(*n.pushed_out).ok);
      CHECK(iverson::is_tensor_ssa(n.tensor_ssa).ok);
      CHECK(iverson::is_canonical(n.program).ok);
      CHECK(n.trace.size() == 6);  // one line per pass, for --trace
    }
  }
  CHECK(checked >= 100);
  CHECK(declined >= 10);
}

TEST_CASE("digest 000 P9 error paths: each validator rejects a program outside its normal form",
          "[unit]") {
  SECTION("no call: a call is found, with the statement that holds it") {
    auto f = parse_one(
        "func sq(a: f64) -> f64 {\n  return a * a\n}\n"
        "func f(x: f64) -> f64 {\n  let y = sq(x) + 1\n  return y\n}\n",
        "f");
    auto v = iverson::is_call_free(*f);
    CHECK_FALSE(v.ok);
    CHECK(v.reason.find("statement `y`: a call") == 0);
    iverson::FreshNames names;
    names.reserve_all(*f);
    CHECK(iverson::is_call_free(*iverson::inline_calls(*f, names)).ok);
  }
  SECTION("Le: a let inside a value (TC17 before let-lifting)") {
    auto f = load([] {
      auto s = ir::load_manifest(suites_root() + "/papers/iverson/manifest.json", suites_root());
      for (const auto& e : s.entries)
        if (e.name == "tc17_let_in_gen_adjoint") return e;
      FAIL("no TC17");
      return s.entries[0];
    }());
    auto v = iverson::is_let_lifted(*f);
    CHECK_FALSE(v.ok);
    CHECK(v.reason.find("a let inside a value") != std::string::npos);
    CHECK(v.pos.valid());  // it names the line of the let
  }
  SECTION("canonical: a copy, two equal statements, a statement nothing reads") {
    auto f = parse_one(
        "func f(x: f64[n]) -> f64 {\n"
        "  let a = sum[i < n] x[i] * x[i]\n"
        "  let b = sum[i < n] x[i] * x[i]\n"
        "  let dead = sum[i < n] x[i]\n"
        "  return a * b\n}\n",
        "f");
    auto n = passes_of(*f);
    REQUIRE(iverson::is_canonical(n.program).ok);
    // the Tensor SSA before canonicalisation keeps both copies of the sum and the dead one
    auto before = iverson::is_canonical(n.tensor_ssa);
    CHECK_FALSE(before.ok);
    INFO(before.reason);
    CHECK((before.reason.find("have the same value") != std::string::npos ||
           before.reason.find("is never read") != std::string::npos));

    iverson::SsaProgram copy = n.program;
    ir::Expr c = ir::Var::make("c", n.program.results[0]->type);
    copy.stmts.push_back(ir::Stmt{{c}, n.program.results[0]});
    copy.results = {c};
    auto v = iverson::is_canonical(copy);
    CHECK_FALSE(v.ok);
    CHECK(v.reason.find("a copy statement `c = ") == 0);

    iverson::SsaProgram twice = n.program;
    ir::Expr d = ir::Var::make("d", twice.stmts[0].vars[0]->type);
    twice.stmts.insert(twice.stmts.begin() + 1, ir::Stmt{{d}, twice.stmts[0].value});
    v = iverson::is_canonical(twice);
    CHECK_FALSE(v.ok);
    CHECK(v.reason.find("have the same value") != std::string::npos);

    iverson::SsaProgram unread = n.program;
    ir::Expr z = ir::Var::make("z", twice.stmts[0].vars[0]->type);
    unread.stmts.insert(unread.stmts.begin(),
                        ir::Stmt{{z}, ir::Literal::make(2, ir::ElemType::F64)});
    v = iverson::is_canonical(unread);
    CHECK_FALSE(v.ok);
    CHECK(v.reason == "statement `z` is never read");
  }
}

TEST_CASE(
    "paper 000 (5.6), (5.9): digest 000 TC17 and TC18, the let under a gen is lifted with "
    "its bracket",
    "[unit]") {
  auto s = ir::load_manifest(suites_root() + "/papers/iverson/manifest.json", suites_root());
  auto find = [&](const std::string& name) -> const ir::SuiteEntry& {
    for (const auto& e : s.entries)
      if (e.name == name) return e;
    FAIL("no entry " << name);
    return s.entries[0];
  };
  // TC17: gen[i] (let t = x[i] * x[i] in t * t) => let t = gen[i] x[i] * x[i] in gen[i] t[i] * t[i]
  auto tc17 = lifted(*load(find("tc17_let_in_gen_adjoint")));
  std::string text17 = ir::function_str(*tc17);
  INFO(text17);
  REQUIRE(tc17->stmts.size() == 2);
  CHECK(ir::expr_str(tc17->stmts[0].value) == "gen[i < n] x[i] * x[i]");
  CHECK(count_of(ir::expr_str(tc17->stmts[1].value), "t[i] * t[i]") == 1);
  // TC18: [i < 2] * (let t = e0 in e1) => let t = gen[i] [i < 2] * e0 in ... [i < 2] * e1
  auto tc18 = lifted(*load(find("tc18_guarded_let")));
  std::string text18 = ir::function_str(*tc18);
  INFO(text18);
  REQUIRE(tc18->stmts.size() == 2);
  CHECK(ir::expr_str(tc18->stmts[0].value) == "gen[i < n] [i < 2] * (x[i] * x[i])");
}

TEST_CASE("digest 000 section 4 canonical naming: statements equal up to index names are one",
          "[unit]") {
  auto f = parse_one(
      "func f(x: f64[n], w: f64[n]) -> f64 {\n"
      "  let a = gen[i < n] x[i] * w[i]\n"
      "  let b = gen[k < n] x[k] * w[k]\n"
      "  let c = gen[k < n] w[k] * x[k]\n"
      "  return sum[j < n] a[j] * b[j] * c[j]\n}\n",
      "f");
  auto n = passes_of(*f);
  std::string text;
  for (const auto& st : n.program.stmts) text += ir::expr_str(st.value) + "\n";
  INFO(text);
  // a and b differ in the name of their index only, c in the order of its factors (kept in a
  // fixed order, exact in IEEE): one statement for the three.
  CHECK(count_of(text, "x[") == 1);
  // before CSE (the Tensor SSA pass's output) a and b are still two statements
  std::string before;
  for (const auto& st : n.tensor_ssa.stmts) before += ir::expr_str(st.value) + "\n";
  CHECK(count_of(before, "x[") == 3);
}

TEST_CASE("paper 000 (5.10) corrected: a let in a let's value is lifted first", "[unit]") {
  // let x = (let y = e0 in e1) in e2 => let y = e0 in let x = e1 in e2 (the paper prints
  // let x = e1 in let y = e0 in e2, which reads y before it is bound: digest 000 section 9)
  auto f = parse_one(
      "func f(a: f64) -> f64 {\n"
      "  let x = { let y = a * a; y + 1 }\n"
      "  return x * x\n}\n",
      "f");
  auto g = lifted(*f);
  INFO(ir::function_str(*g));
  REQUIRE(g->stmts.size() == 2);
  CHECK(ir::var_name(g->stmts[0].vars[0]).rfind("y", 0) == 0);
  CHECK(ir::expr_str(g->stmts[0].value) == "a * a");
  CHECK(ir::var_name(g->stmts[1].vars[0]) == "x");
  CHECK(iverson::is_let_lifted(*g).ok);
}

TEST_CASE("paper 000 (5.9) with a select on data: a let lifted out of a branch stays lazy",
          "[unit]") {
  // select(x[i] > 0, {let t = log(x[i]); t * t}, 0): lifting log(x[i]) without its branch would
  // evaluate log at non-positive entries; it is lifted under the bracket [x[i] > 0], a lazy
  // strong zero, which the Tensor SSA conversion evaluates once into a flag
  auto f = parse_one(
      "func f(x: f64[n]) -> f64 {\n"
      "  return sum[i < n] select(x[i] > 0, { let t = log(x[i]); t * t }, 0)\n}\n",
      "f");
  auto g = lifted(*f);
  INFO(ir::function_str(*g));
  REQUIRE(g->stmts.size() == 1);
  CHECK(ir::expr_str(g->stmts[0].value) == "gen[i < n] [x[i] > 0] * log(x[i])");
  auto d = strategy().differentiate(f, Request{{}, Mode::Gradient, ""});
  ir::Tensor x;
  x.shape = {3};
  x.values = {2.0, -1.0, 0.5};
  auto out = run_counted(d.function, {x}, {}).out;
  REQUIRE(out.size() == 2);
  // d/dx log(x)^2 = 2 log(x) / x where x > 0, else 0
  CHECK(out[1].values[0] == Approx(2 * std::log(2.0) / 2.0).epsilon(1e-14));
  CHECK(out[1].values[1] == 0.0);
  CHECK(out[1].values[2] == Approx(2 * std::log(0.5) / 0.5).epsilon(1e-14));
}

TEST_CASE("digest 000 bad input: let-lifting declines a loop under a gen with its position",
          "[unit]") {
  auto f = parse_one(
      "func f(x: f64[n]) -> f64[n] {\n"
      "  return gen[i < n] { let h = loop[t < 3] (s = x[i]) { next s * s }; h + 1 }\n}\n",
      "f");
  iverson::FreshNames names;
  names.reserve_all(*f);
  try {
    iverson::lift_lets(*f, names);
    FAIL("no Unsupported");
  } catch (const Unsupported& u) {
    CHECK(u.pos().str().rfind("passes.adl:2:", 0) == 0);
    CHECK(u.message() == "iverson: `loop` is outside paper 000's language");
  }
}

TEST_CASE("paper 000 (5.12), (5.14), (5.18): digest 000 TC19, an array of pairs becomes two arrays",
          "[unit]") {
  auto s = ir::load_manifest(suites_root() + "/papers/iverson/manifest.json", suites_root());
  const ir::SuiteEntry* tc19 = nullptr;
  for (const auto& e : s.entries)
    if (e.name == "tc19_pairs") tc19 = &e;
  REQUIRE(tc19);
  auto n = passes_of(*load(*tc19));
  // before: z = gen[i] (x[i] * x[i], x[i] + 1), read as z[j].0 and z[j].1
  auto before = iverson::is_pair_free(*n.let_lifted);
  CHECK_FALSE(before.ok);
  CHECK(before.reason == "a tuple-valued statement `z`");
  std::string text = ir::function_str(*n.pair_free);
  INFO(text);
  REQUIRE(n.pair_free->stmts.size() == 2);
  CHECK(ir::expr_str(n.pair_free->stmts[0].value) == "gen[i < n] x[i] * x[i]");
  CHECK(ir::expr_str(n.pair_free->stmts[1].value) == "gen[i < n] x[i] + 1");
  CHECK(ir::expr_str(n.pair_free->results[0]) == "sum[j < n] z.0[j] * z.1[j]");
}

TEST_CASE("digest 000 P9 error path: the SoA validator names a projection left in a value",
          "[unit]") {
  auto f = parse_one(
      "func f(x: f64[n]) -> f64 {\n"
      "  return sum[i < n] (x[i], 2 * x[i]).1\n}\n",
      "f");
  auto v = iverson::is_pair_free(*f);
  CHECK_FALSE(v.ok);
  CHECK(v.reason.find("a tuple: ") == 0);
  auto n = passes_of(*f);
  CHECK(ir::expr_str(n.pair_free->results[0]) == "sum[i < n] 2 * x[i]");  // (5.11)
}

TEST_CASE(
    "digest 000 P9: the Tensor SSA conversion refuses a program the earlier passes did not "
    "normalise (TC17 before let-lifting): an internal error, not a derivative",
    "[unit]") {
  auto s = ir::load_manifest(suites_root() + "/papers/iverson/manifest.json", suites_root());
  const ir::SuiteEntry* tc17 = nullptr;
  for (const auto& e : s.entries)
    if (e.name == "tc17_let_in_gen_adjoint") tc17 = &e;
  REQUIRE(tc17);
  auto f = load(*tc17);
  iverson::FreshNames names;
  names.reserve_all(*f);
  ir::logic::PredicateService logic;
  try {
    iverson::to_tensor_ssa(*f, names, logic);
    FAIL("no internal error");
  } catch (const InternalError& e) {
    std::string what = e.what();
    CHECK(what.find("needs a Gen-pushed-out program") != std::string::npos);
    CHECK(what.find("a let inside a value") != std::string::npos);
  }
}

TEST_CASE("paper 000 (5.6) on a select condition: a let in the condition is lifted too", "[unit]") {
  // sum_i select(2 x_i > 1, x_i, 0): the let in the condition becomes c = gen[i] x[i] * 2
  auto f = parse_one(
      "func f(x: f64[n]) -> f64 {\n"
      "  return sum[i < n] select({ let c = x[i] * 2; c > 1 }, x[i], 0)\n}\n",
      "f");
  auto g = lifted(*f);
  INFO(ir::function_str(*g));
  CHECK(iverson::is_let_lifted(*g).ok);
  REQUIRE(g->stmts.size() == 1);
  CHECK(ir::expr_str(g->stmts[0].value) == "gen[i < n] x[i] * 2");
  auto d = strategy().differentiate(f, Request{{}, Mode::Gradient, ""});
  ir::Tensor x;
  x.shape = {3};
  x.values = {0.2, 0.9, -3.0};
  auto out = run_counted(d.function, {x}, {}).out;
  REQUIRE(out.size() == 2);
  CHECK(out[0].values[0] == Approx(0.9).epsilon(1e-15));
  CHECK(out[1].values == std::vector<double>{0.0, 1.0, 0.0});  // [2 x_i > 1]
}
