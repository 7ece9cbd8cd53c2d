// A Dual kept from an earlier recording, or taken from another tape, names a node of that
// recording; its index would name an unrelated node in the current one. Decision 146: job IDs
// carry a per-recording tag, and every use of such a scalar is an error, never a wrong gradient.
#include <catch2/catch.hpp>

#include "ad/dualrev/api.h"

using namespace adlab;
using namespace adlab::ad::dualrev;

namespace {

// paper 003 section 4's running example: f(x, y) = x (x + y); at (12, 13) the gradient is
// (37, 12) exactly (digest 003 section 9, as in test_dual_cpp.cpp).
std::vector<double> running_example_gradient(Tape& t) {
  auto f = [](const std::vector<Dual>& v) {
    Dual z = v[0] + v[1];
    return v[0] * z;
  };
  return gradient(t, f, {12.0, 13.0}).gradient;
}

}  // namespace

TEST_CASE("decision 146: a Dual from the previous recording is an error in every operation",
          "[dualrev]") {
  Tape t;
  Dual old;
  {
    Recording r(t);
    old = make_input(2.0);  // the same sequence number the next recording's x gets
  }
  // Before decision 146, x * old recorded an edge to x (both were job 0, sequence 0) and the
  // gradient came out 5 where it is 2: silently wrong.
  {
    Recording r(t);
    Dual x = make_input(3.0);
    CHECK_THROWS_WITH(Dual(x * old), Catch::Contains("earlier recording"));
    CHECK_THROWS_WITH(Dual(old * x), Catch::Contains("earlier recording"));
    CHECK_THROWS_WITH(Dual(old + 1.0), Catch::Contains("earlier recording"));
    CHECK_THROWS_WITH(Dual(exp(old)), Catch::Contains("earlier recording"));
    Dual s = x * x;
    CHECK_THROWS_WITH(s += old, Catch::Contains("earlier recording"));
  }
  SECTION("seed, adjoint, read_adjoints and jacobian_rows reject it too") {
    Dual x, y;
    {
      Recording r(t);
      x = make_input(3.0);
      y = x * x;
    }
    CHECK_THROWS_WITH(t.seed(old.id(), 1.0), Catch::Contains("earlier recording"));
    t.seed(y.id(), 1.0);
    t.resolve();
    CHECK(t.adjoint(x.id()) == 6.0);
    CHECK_THROWS_WITH(t.adjoint(old.id()), Catch::Contains("earlier recording"));
    const Dual both[2] = {x, old};
    double g[2];
    CHECK_THROWS_WITH(read_adjoints(t, both, 2, g), Catch::Contains("earlier recording"));
    const NodeId in[2] = {x.id(), old.id()};
    const NodeId out[1] = {y.id()};
    double rows[2];
    CHECK_THROWS_WITH(t.jacobian_rows(out, in, rows), Catch::Contains("earlier recording"));
  }
}

TEST_CASE("decision 146: a Dual of another tape is an error", "[dualrev]") {
  Tape a, b;
  Dual from_a;
  {
    Recording r(a);
    from_a = make_input(2.0);
    Recording s(b);  // b records on this thread now; a's scalar is foreign to it
    Dual x = make_input(3.0);
    CHECK_THROWS_WITH(Dual(x * from_a), Catch::Contains("another tape"));
  }
}

TEST_CASE("decision 146: a stale Dual inside a fork's subtask is an error on 1 and 2 threads",
          "[dualrev]") {
  for (unsigned threads : {1u, 2u}) {
    INFO(threads << " threads");
    Tape t(TapeOptions{threads});
    Dual old;
    {
      Recording r(t);
      old = make_input(2.0);
    }
    Recording r(t);
    Dual x = make_input(3.0);
    Dual a, b;
    CHECK_THROWS_WITH(t.fork([&] { a = x * x; }, [&] { b = x * old; }),
                      Catch::Contains("earlier recording"));
  }
}

TEST_CASE("decision 146: tags wrap after 255 recordings and gradients stay exact", "[dualrev]") {
  Tape t;
  Dual old;
  {
    Recording r(t);
    old = make_input(2.0);
  }
  // The 254 recordings that follow (this test starts no other) have tags other than old's.
  for (int k = 0; k < 254; ++k) {
    Recording r(t);
    Dual x = make_input(1.0);
    CHECK_THROWS_AS(Dual(x * old), Error);
  }
  // Past the wrap, IDs are as good as ever.
  for (int k = 0; k < 300; ++k) {
    const auto g = running_example_gradient(t);
    REQUIRE(g.size() == 2);
    CHECK(g[0] == 37.0);
    CHECK(g[1] == 12.0);
  }
}
