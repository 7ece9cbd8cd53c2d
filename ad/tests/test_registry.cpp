// The strategy registry, modes and derivatives, with a toy strategy defined here.
#include <catch2/catch.hpp>

#include "ad/strategy.h"
#include "ir/syntax/parser.h"
#include "ir/tensor/tensor_ops.h"

using namespace adlab;
using namespace adlab::ad;

namespace {
// The gradient of sum of squares, by hand, in the gradient calling convention:
// (params...) -> (result, gradients of wrt...).
const char* kToyDerivatives = R"(func sum_sq_grad(x: f64[n]) -> (f64, f64[n]) {
  return (sum[i < n] x[i] * x[i], gen[i < n] 2 * x[i])
}
)";

const char* kProgram = R"(func sum_sq(x: f64[n]) -> f64 {
  return sum[i < n] x[i] * x[i]
}

func with_loop(x: f64[n]) -> f64 {
  return loop[k < 3] (s = 0) { next s + x[0] }
}
)";

ir::FunctionPtr program(const std::string& name) {
  static ir::Module m = ir::parse_module(kProgram, "toy.adl");
  return m.entry(name);
}

// Differentiates sum of squares only, and only in gradient mode; the derivative is written out.
class Toy : public Strategy {
 public:
  explicit Toy(std::string name = "toy") : name_(std::move(name)) {}
  std::string_view name() const override { return name_; }
  std::string_view paper() const override { return "000"; }
  Capabilities capabilities() const override {
    Capabilities c;
    c.modes = {Mode::Gradient};
    c.variants = {"a", "b"};
    c.emits_ir = true;
    return c;
  }
  Derivative differentiate(const ir::FunctionPtr& f, const Request& r) const override {
    if (r.mode != Mode::Gradient)
      throw Error(std::string("toy: mode ") + mode_name(r.mode) + " is not supported");
    if (f->name != "sum_sq")
      throw Unsupported(f->result_pos, "toy: only sum of squares is differentiated");
    static ir::Module m = ir::parse_module(kToyDerivatives, "toy_derivatives.adl");
    return Derivative{m.entry("sum_sq_grad"), nullptr, "written by hand"};
  }

 private:
  std::string name_;
};

// A registry holding the toy strategy (a local one, so tests do not share state).
StrategyRegistry toy_registry() {
  StrategyRegistry r;
  r.add(std::make_unique<Toy>());
  return r;
}
}  // namespace

TEST_CASE("resolve finds a strategy and its variant", "[unit]") {
  StrategyRegistry r = toy_registry();
  REQUIRE(r.find("toy") != nullptr);
  CHECK(r.find("toy")->name() == "toy");
  CHECK(r.find("nope") == nullptr);
  CHECK(r.names() == std::vector<std::string>{"toy"});

  auto [s, variant] = r.resolve("toy");
  CHECK(s == r.find("toy"));
  CHECK(variant == "");  // the strategy's default
  auto [s2, variant2] = r.resolve("toy/b");
  CHECK(s2 == r.find("toy"));
  CHECK(variant2 == "b");
  CHECK(r.resolve("toy/a").second == "a");
}

TEST_CASE("resolve errors name the unknown strategy or variant", "[unit]") {
  StrategyRegistry empty;
  CHECK_THROWS_MATCHES(
      empty.resolve("toy"), Error,
      Catch::Matchers::Message("error: unknown strategy `toy` (no strategy is registered yet)"));
  StrategyRegistry r = toy_registry();
  r.add(std::make_unique<Toy>("toy2"));
  CHECK_THROWS_MATCHES(
      r.resolve("nope"), Error,
      Catch::Matchers::Message("error: unknown strategy `nope` (known: toy, toy2)"));
  CHECK_THROWS_MATCHES(
      r.resolve("nope/a"), Error,
      Catch::Matchers::Message("error: unknown strategy `nope` (known: toy, toy2)"));
  CHECK_THROWS_MATCHES(r.resolve("toy/c"), Error,
                       Catch::Matchers::Message("error: strategy `toy` has no variant `c`"));
}

TEST_CASE("registering a strategy name twice is an error", "[unit]") {
  StrategyRegistry r = toy_registry();
  CHECK_THROWS_MATCHES(r.add(std::make_unique<Toy>()), Error,
                       Catch::Matchers::Message("error: strategy `toy` is registered twice"));
  CHECK(r.names().size() == 1);
}

TEST_CASE("the global registry accepts a strategy", "[unit]") {
  auto& r = StrategyRegistry::instance();
  if (!r.find("toy-global")) r.add(std::make_unique<Toy>("toy-global"));
  CHECK(r.resolve("toy-global/a").first == r.find("toy-global"));
}

TEST_CASE("mode names round trip", "[unit]") {
  for (Mode m : {Mode::Gradient, Mode::Vjp, Mode::Jvp, Mode::Jacobian, Mode::Hvp})
    CHECK(parse_mode(mode_name(m)) == m);
  CHECK(std::string(mode_name(Mode::Gradient)) == "gradient");
  CHECK(std::string(mode_name(Mode::Hvp)) == "hvp");
  CHECK_THROWS_MATCHES(parse_mode("hessian"), Error,
                       Catch::Matchers::Message(
                           "error: unknown mode `hessian` (gradient, vjp, jvp, jacobian, hvp)"));
  CHECK_THROWS_AS(parse_mode("Gradient"), Error);
  CHECK_THROWS_AS(parse_mode(""), Error);
}

TEST_CASE("capabilities say which modes a strategy supports", "[unit]") {
  Capabilities c = Toy().capabilities();
  CHECK(c.supports(Mode::Gradient));
  CHECK_FALSE(c.supports(Mode::Vjp));
  CHECK_FALSE(c.supports(Mode::Hvp));
  CHECK(c.variants.front() == "a");
}

TEST_CASE("a derivative function runs on the interp backend: gradient of sum of squares is 2x",
          "[unit]") {
  StrategyRegistry r = toy_registry();
  auto [s, variant] = r.resolve("toy/b");
  Request req;
  req.variant = variant;
  Derivative d = s->differentiate(program("sum_sq"), req);
  REQUIRE(d.is_function());
  CHECK(d.notes == "written by hand");

  std::vector<double> x = {1.5, -2.0, 0.25};
  for (const char* scalar : {"double", "mp50"}) {
    INFO(scalar);
    backends::Options o;
    o.scalar_type = scalar;
    auto exe = d.executable("interp", o);
    auto out = exe->run({ir::dense_f64({3}, x)});
    REQUIRE(out.size() == 2);
    CHECK(out[0].values == std::vector<double>{1.5 * 1.5 + 4.0 + 0.0625});
    CHECK(out[1].shape == std::vector<std::int64_t>{3});
    CHECK(out[1].values == std::vector<double>{3.0, -4.0, 0.5});
  }
  CHECK_THROWS_AS(d.executable("gpu", {}), Error);
  CHECK_THROWS_WITH(d.executable("gpu", {}),
                    Catch::Matchers::StartsWith("error: unknown backend `gpu` (known: "));
}

TEST_CASE("a derivative engine is built for the backend it is asked to run on", "[unit]") {
  Derivative d;
  std::string asked;
  d.make_engine = [&asked](const std::string& backend, const backends::Options& o) {
    asked = backend;
    Derivative inner{program("sum_sq"), nullptr, ""};
    return inner.executable(backend, o);
  };
  CHECK_FALSE(d.is_function());
  auto out = d.executable("interp", {})->run({ir::dense_f64({2}, {3, 4})});
  CHECK(out.at(0).values == std::vector<double>{25.0});
  CHECK(asked == "interp");
  // An unknown backend is an error before any engine is built, never a silent interp run.
  asked.clear();
  CHECK_THROWS_WITH(d.executable("no-such-backend", {}),
                    Catch::Matchers::StartsWith("error: unknown backend `no-such-backend`"));
  CHECK(asked.empty());
  CHECK_THROWS_MATCHES(
      Derivative{}.executable("interp", {}), Error,
      Catch::Matchers::Message("error: the derivative has neither a function nor an engine"));
}

TEST_CASE("an unsupported construct is reported with its position", "[unit]") {
  StrategyRegistry r = toy_registry();
  const Strategy* s = r.resolve("toy").first;
  try {
    s->differentiate(program("with_loop"), Request{});
    FAIL("expected ad::Unsupported");
  } catch (const Unsupported& e) {
    CHECK(e.pos().file == "toy.adl");
    CHECK(e.pos().line == 6);
    CHECK(e.pos().col == 10);
    CHECK(std::string(e.what()) ==
          "toy.adl:6:10: error: toy: only sum of squares is differentiated");
  }
  // Unsupported is an adlab::Error; a bad request is an Error but not Unsupported.
  CHECK_THROWS_AS(s->differentiate(program("with_loop"), Request{}), Error);
  Request jvp;
  jvp.mode = Mode::Jvp;
  CHECK_THROWS_MATCHES(s->differentiate(program("sum_sq"), jvp), Error,
                       Catch::Matchers::Message("error: toy: mode jvp is not supported"));
  try {
    s->differentiate(program("sum_sq"), jvp);
  } catch (const Unsupported&) {
    FAIL("a bad request is not Unsupported");
  } catch (const Error&) {
  }
}
