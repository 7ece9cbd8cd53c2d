// The parallel reverse pass across several fork-joins (paper 003 section 12, Fig. 15): a
// contribution is added at once only into the task being resolved or a task nested in it;
// anything else travels up through the outboxes (decision 148). Before, a depth comparison let
// two sibling subtasks add into a job of an EARLIER subtask at the same time: lost updates,
// gradients that changed from run to run. Misuses of fork that the paper's language rules out
// are errors, not wrong gradients.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "ad/dualrev/api.h"
#include "ad/dualrev/ir_engine.h"
#include "ir/error.h"
#include "ir/syntax/parser.h"
#include "ir/tensor/tensor_ops.h"

using namespace adlab;
using namespace adlab::ad::dualrev;

namespace {

double gradient_of(Tape& t, const Dual& y, const Dual& x) {
  t.clear_seeds();
  t.seed(y.id(), 1.0);
  t.resolve();
  return t.adjoint(x.id());
}

}  // namespace

TEST_CASE(
    "003 section 12: two sibling subtasks reading a value of an earlier subtask, exact on "
    "1, 2 and 4 threads",
    "[dualrev]") {
  // u = x^2 is made in the first fork's left side; both sides of the second fork sum it N times:
  // y = 2 N x^2, dy/dx = 4 N at x = 1 (integers: exact in any order).
  const int n = 200000;
  for (unsigned threads : {1u, 2u, 4u}) {
    INFO(threads << " threads");
    Tape t(TapeOptions{threads});
    Dual x, u, s1, s2, y;
    {
      Recording r(t);
      x = make_input(1.0);
      t.fork([&] { u = x * x; }, [] {});
      t.fork(
          [&] {
            Dual s = 0.0;
            for (int i = 0; i < n; ++i) s = s + u;
            s1 = s;
          },
          [&] {
            Dual s = 0.0;
            for (int i = 0; i < n; ++i) s = s + u;
            s2 = s;
          });
      y = s1 + s2;
    }
    for (int rep = 0; rep < 3; ++rep) CHECK(gradient_of(t, y, x) == 4.0 * n);
  }
}

TEST_CASE("003 section 12 on IR: a sum reading an element of a split gen, exact on 1, 2, 4 threads",
          "[dualrev]") {
  // Both the gen and the sum run as fork-join chunks; every sum chunk reads y[0], which gen's
  // first chunk made. s = x0^2 sum_i x_i^2, ds/dx0 = 2 n + 2 and ds/dx_i = 2 at x = 1.
  const char* src = R"(
func f[n](x: f64[n]) -> f64 {
  let y = gen[i < n] x[i] * x[i]
  let s = sum[i < n] y[0] * y[i]
  return s
}
)";
  const int n = 100000;
  ir::Module m = ir::parse_module(src, "fork_reverse.adl");
  const ir::Tensor x = ir::dense_f64({n}, std::vector<double>(n, 1.0));
  for (const char* threads : {"1", "2", "4"}) {
    INFO(threads << " threads");
    ::setenv("ADLAB_THREADS", threads, 1);
    auto e =
        make_ir_engine(m.entry("f"), ad::Request{}, Variant::Tape, "interp", backends::Options{});
    for (int rep = 0; rep < 2; ++rep) {
      auto out = e->run({x});
      CHECK(last_job_count(*e) > 1);
      CHECK(out[1].values[0] == 2.0 * n + 2);
      CHECK(out[1].values[1] == 2.0);
      CHECK(out[1].values[n - 1] == 2.0);
    }
  }
  ::unsetenv("ADLAB_THREADS");
}

TEST_CASE("paper 003 |*|: a scalar passed between the two sides of a fork is an error",
          "[dualrev]") {
  // One thread runs the sides in order, so the right side can read the left side's result (on
  // two threads the user's program would have a data race). b = 2 x^2 would need a's
  // contribution, which the reverse pass cannot deliver once a's side has been resolved; before
  // decision 148 the tape variant returned db/dx = 0 here.
  Tape t;
  Dual x, a, b;
  {
    Recording r(t);
    x = make_input(3.0);
    t.fork([&] { a = x * x; }, [&] { b = a * 2.0; });
  }
  t.seed(b.id(), 1.0);
  CHECK_THROWS_WITH(t.resolve(), Catch::Contains("other side"));
  // The staged-map variant orders all IDs globally and gets it right (12 = 4 x).
  CHECK_NOTHROW(t.resolve(Variant::StagedMap));
  CHECK(t.adjoint(x.id()) == 12.0);
  // The misuse is reported whatever the data: with a seed of 0 the sweep skips b's node (its
  // adjoint is 0, decision 236) but still visits its edge across the fork (a reviewing helper).
  t.clear_seeds();
  t.seed(b.id(), 0.0);
  CHECK_THROWS_WITH(t.resolve(), Catch::Contains("other side"));
}

TEST_CASE("dualrev fork: a scalar of an abandoned fork used afterwards is an error", "[dualrev]") {
  Tape t;
  Dual x, u, y;
  {
    Recording r(t);
    x = make_input(2.0);
    CHECK_THROWS_AS(t.fork([&] { u = x * x; }, [] { throw std::runtime_error("g failed"); }),
                    std::runtime_error);
    y = u * 3.0;  // u's job is in no task that the terminal job reaches
  }
  t.seed(y.id(), 1.0);
  CHECK_THROWS_WITH(t.resolve(), Catch::Contains("abandoned"));
  // The tape records and resolves normally afterwards.
  auto g = gradient(t, [](const std::vector<Dual>& v) { return v[0] * (v[0] + v[1]); }, {12, 13});
  CHECK(g.gradient[0] == 37.0);
  CHECK(g.gradient[1] == 12.0);
}
