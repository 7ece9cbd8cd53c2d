// The backend registry and the `interp` backend: lookup, compile and run in each scalar type.
#include <catch2/catch.hpp>

#include <algorithm>

#include "backends/backend.h"
#include "backends/interp/interp_backend.h"
#include "ir/syntax/parser.h"
#include "ir/tensor/tensor_ops.h"

using namespace adlab;
using namespace adlab::backends;

namespace {
const char* kProgram = R"(func dot(x: f64[n], y: f64[n]) -> f64 {
  return sum[i < n] x[i] * y[i]
}

# (a + b) - b: exactly a in exact arithmetic; b large enough absorbs a in double (and float)
func cancel(a: f64, b: f64) -> f64 {
  return (a + b) - b
}

func scale[m](x: f64[n]) -> f64[m] {
  return gen[i < m] 2 * x[0]
}
)";

ir::FunctionPtr function(const std::string& name) {
  static ir::Module m = ir::parse_module(kProgram, "backend_test.adl");
  return m.entry(name);
}

std::vector<ir::Tensor> run(const std::string& f, const std::vector<ir::Tensor>& in,
                            const std::string& scalar, Options o = {}) {
  o.scalar_type = scalar;
  auto exe = BackendRegistry::instance().get("interp").compile(function(f), o);
  return exe->run(in);
}

// (a + b) - b evaluated in T, kept from being folded by the compiler.
template <class T>
double cancel_in(T a, T b) {
  volatile T sum = a + b;
  return static_cast<double>(sum - b);
}
}  // namespace

TEST_CASE("the registry finds the interp backend", "[unit]") {
  auto& registry = BackendRegistry::instance();
  REQUIRE(registry.find("interp") != nullptr);
  CHECK(registry.find("interp")->name() == "interp");
  CHECK(&registry.get("interp") == registry.find("interp"));
  CHECK_FALSE(registry.get("interp").description().empty());
  auto names = registry.names();
  CHECK(std::find(names.begin(), names.end(), "interp") != names.end());
  CHECK(registry.find("nope") == nullptr);
}

TEST_CASE("an unknown backend name is an error listing the known names", "[unit]") {
  auto& registry = BackendRegistry::instance();
  std::string known;
  for (const auto& n : registry.names()) known += (known.empty() ? "" : ", ") + n;
  CHECK_THROWS_MATCHES(
      registry.get("gpu"), Error,
      Catch::Matchers::Message("error: unknown backend `gpu` (known: " + known + ")"));
  CHECK_THAT(known, Catch::Matchers::Contains("interp"));
}

TEST_CASE("registering a backend name twice is an error", "[unit]") {
  CHECK_THROWS_MATCHES(BackendRegistry::instance().add(make_interp_backend()), Error,
                       Catch::Matchers::Message("error: backend `interp` is registered twice"));
}

TEST_CASE("interp runs a dot product in double, float and mp50", "[unit]") {
  std::vector<double> x = {0.5, -1.25, 3.0, 0.1}, y = {2.0, 4.0, -0.75, 10.0};
  std::vector<ir::Tensor> in = {ir::dense_f64({4}, x), ir::dense_f64({4}, y)};
  double want_d = 0;
  float want_f = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    want_d += x[i] * y[i];
    want_f += static_cast<float>(x[i]) * static_cast<float>(y[i]);
  }
  for (const char* scalar : {"double", "float", "mp50"}) {
    INFO(scalar);
    auto out = run("dot", in, scalar);
    REQUIRE(out.size() == 1);
    CHECK(out[0].shape.empty());
    CHECK(out[0].elem == ir::ElemType::F64);
    REQUIRE(out[0].values.size() == 1);
    if (std::string(scalar) == "float")
      CHECK(out[0].values[0] == Approx(want_f).epsilon(1e-6));
    else
      CHECK(out[0].values[0] == Approx(want_d).epsilon(1e-15));
  }
}

TEST_CASE("interp computes in the requested scalar type", "[unit]") {
  // 1 + 1e16 rounds in double, 1 + 1e8 in float; 50 digits keep both exactly.
  std::vector<ir::Tensor> big = {ir::scalar(1.0), ir::scalar(1e16)};
  std::vector<ir::Tensor> mid = {ir::scalar(1.0), ir::scalar(1e8)};
  REQUIRE(cancel_in<double>(1.0, 1e16) != 1.0);
  REQUIRE(cancel_in<float>(1.0f, 1e8f) != 1.0);
  CHECK(run("cancel", big, "double")[0].values[0] == cancel_in<double>(1.0, 1e16));
  CHECK(run("cancel", mid, "double")[0].values[0] == 1.0);
  CHECK(run("cancel", mid, "float")[0].values[0] == cancel_in<float>(1.0f, 1e8f));
  CHECK(run("cancel", big, "mp50")[0].values[0] == 1.0);
  CHECK(run("cancel", mid, "mp50")[0].values[0] == 1.0);
}

TEST_CASE("interp takes sizes no parameter binds from the options", "[unit]") {
  Options o;
  o.sizes = {{"m", 3}};
  auto out = run("scale", {ir::dense_f64({2}, {1.5, 7.0})}, "double", o);
  REQUIRE(out.size() == 1);
  CHECK(out[0].shape == std::vector<std::int64_t>{3});
  CHECK(out[0].values == std::vector<double>{3.0, 3.0, 3.0});
}

TEST_CASE("interp executables report operation counts", "[unit]") {
  Options o;
  o.count_ops = true;
  auto exe = BackendRegistry::instance().get("interp").compile(function("dot"), o);
  exe->run({ir::dense_f64({3}, {1, 2, 3}), ir::dense_f64({3}, {4, 5, 6})});
  const ir::OpCounts* c = exe->counts();
  REQUIRE(c != nullptr);
  // n multiplications and n - 1 additions (paper 000, 4.30)
  CHECK(c->muls == 3);
  CHECK(c->adds == 2);
  CHECK(c->paper_cost() == 5);
  for (const char* scalar : {"float", "mp50"}) {
    o.scalar_type = scalar;
    CHECK(BackendRegistry::instance().get("interp").compile(function("dot"), o)->counts() !=
          nullptr);
  }
}

TEST_CASE("interp rejects an unknown scalar type", "[unit]") {
  Options o;
  o.scalar_type = "quad";
  CHECK_THROWS_MATCHES(
      BackendRegistry::instance().get("interp").compile(function("dot"), o), Error,
      Catch::Matchers::Message(
          "error: backend interp: unknown scalar type `quad` (double, float, mp50)"));
}

TEST_CASE("interp run errors are adlab::Errors", "[unit]") {
  auto exe = BackendRegistry::instance().get("interp").compile(function("dot"), {});
  CHECK_THROWS_AS(exe->run({ir::dense_f64({3}, {1, 2, 3}), ir::dense_f64({2}, {4, 5})}), Error);
  CHECK_THROWS_AS(exe->run({ir::dense_f64({3}, {1, 2, 3})}), Error);
}
