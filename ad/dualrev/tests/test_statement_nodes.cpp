// Statement-level preaccumulation (decision 116): an expression on Duals records one node with
// several parents, and Dual stays a drop-in scalar for generic code (T = double or Dual).
#include <catch2/catch.hpp>
#include <cmath>

#include "ad/dualrev/api.h"

using namespace adlab;
using namespace adlab::ad::dualrev;

namespace {

// Generic code as the interpreter and the compiled backend write it: `T x = ...`, T(0), ternaries
// between expressions and with constants, std math through ADL, compound assignment.
template <class T>
T generic(const T& a, const T& b, bool c) {
  using std::exp;
  using std::sqrt;
  T x = a + b;
  T y = c ? a + b : a - b;  // two pending statements of one type
  T z = c ? a * b : T(0);
  T w = c ? a * b : 0.0;
  T u = c ? a * b : a;
  T e = exp(x * y) * 1e-3 + sqrt(z * z + 1.0);
  x += a * b;
  x -= 2.0;
  x *= y;
  x /= 3;
  T m = x < 0.0 ? T(0.0) : x;
  auto lazy = a * b - b;  // held, then used twice: two nodes, the same derivative
  T l1 = lazy, l2 = lazy;
  return x + y + z + w + u + e + m + (1 - a) / b + -a + 2 * a + l1 * l2;
}

double generic_fd(int k, const std::vector<double>& x, bool c) {
  auto xp = x, xm = x;
  const double h = 1e-6;
  xp[static_cast<std::size_t>(k)] += h;
  xm[static_cast<std::size_t>(k)] -= h;
  return (generic(xp[0], xp[1], c) - generic(xm[0], xm[1], c)) / (2 * h);
}

}  // namespace

TEST_CASE("003 section 4 running example, statement nodes: x * (x + y) as one statement",
          "[dualrev]") {
  Tape t;
  auto r = gradient(t, [](const std::vector<Dual>& x) { return x[0] * (x[0] + x[1]); }, {12, 13});
  CHECK(r.value == 300.0);
  CHECK(r.gradient[0] == 37.0);
  CHECK(r.gradient[1] == 12.0);
  // Two leaves and one node: x0 (x0 + x1) = d(x0) (x0 + x1 + x0) + d(x1) x0, x0's terms merged.
  CHECK(t.num_nodes() == 3);
  auto out = t.job(0).nodes.edges_of(2);
  REQUIRE(out.size() == 2);
  CHECK(out[0].target == NodeId{t.job(0).id, 0});
  CHECK(out[0].partial == 37.0);
  CHECK(out[1].target == NodeId{t.job(0).id, 1});
  CHECK(out[1].partial == 12.0);
}

// The dot product's statement nodes are tested in test_fast_paths.cpp, with their chain edges.

TEST_CASE("dualrev generic code with T = Dual: conversions, ternaries, T(0), ADL math",
          "[dualrev]") {
  for (bool c : {true, false}) {
    const std::vector<double> x = {0.7, -1.3};
    for (Variant v : {Variant::Tape, Variant::StagedMap, Variant::Naive}) {
      INFO("variant " << variant_name(v) << ", c " << c);
      Tape t(TapeOptions{1, v != Variant::Naive});
      auto r = gradient(
          t, [&](const std::vector<Dual>& xs) { return generic(xs[0], xs[1], c); }, x, v);
      CHECK(r.value == generic(x[0], x[1], c));  // the same operations in the same order
      for (int k = 0; k < 2; ++k)
        CHECK(r.gradient[static_cast<std::size_t>(k)] ==
              Approx(generic_fd(k, x, c)).epsilon(1e-6).margin(1e-7));
    }
  }
}

TEST_CASE("dualrev statement nodes: more than kMaxTerms operands are recorded in parts",
          "[dualrev]") {
  auto f = [](const std::vector<Dual>& x) {
    // 12 distinct operands in one expression: the first 8 become a node of their own.
    return x[0] * x[1] + x[2] * x[3] + x[4] * x[5] + x[6] * x[7] + x[8] * x[9] + x[10] * x[11];
  };
  std::vector<double> x;
  for (int i = 0; i < 12; ++i) x.push_back(0.5 + i);
  Tape t;
  auto r = gradient(t, f, x);
  for (int i = 0; i < 12; ++i)
    CHECK(r.gradient[static_cast<std::size_t>(i)] == x[static_cast<std::size_t>(i ^ 1)]);
  CHECK(t.num_nodes() == 12 + 2);
  CHECK(t.num_edges() == 8 + 5);
}

TEST_CASE("dualrev statement nodes: partial operations counted as one operation at a time",
          "[dualrev]") {
  // The cost model (DESIGN 4.3) charges what computing the partials costs: a / b two operations,
  // a * b none (the operands' values are the partials); a product scaling a pending statement's
  // terms one multiplication per term.
  Tape t;
  {
    Recording rec(t);
    Dual a = make_input(2.0), b = make_input(3.0);
    Dual q = a / b;
    CHECK(t.partial_ops() == 2);
    Dual p = a * b;
    CHECK(t.partial_ops() == 2);
    Dual s = (a + b) * q;  // (a + b)'s two terms scaled by q: two multiplications
    CHECK(t.partial_ops() == 4);
    Dual sq = a * a;  // x * x: one edge with the summed partial, one addition
    CHECK(t.partial_ops() == 5);
    Dual dbl = a + a;  // 1 + 1 is structural
    CHECK(t.partial_ops() == 5);
    CHECK(p.value() + s.value() + sq.value() + dbl.value() > 0);
  }
}

TEST_CASE("dualrev statement nodes: a constant expression records nothing", "[dualrev]") {
  Tape t;
  Recording rec(t);
  Dual c = Dual(2.0) * Dual(3.0) + 1.0;
  CHECK(c.is_constant());
  CHECK(c.value() == 7.0);
  Dual x = make_input(1.0);
  Dual y = x * 0.0 + Dual(5.0);  // one edge to x (partial 0), the constant dropped
  CHECK(t.num_nodes() == 2);
  CHECK(t.num_edges() == 1);
  CHECK(y.value() == 5.0);
}

TEST_CASE("003 section 12 compact tape: cross-job targets decode to their compound IDs",
          "[dualrev]") {
  Tape t;  // one thread: the fork runs its two sides in order
  Dual x, a, b, y;
  {
    Recording rec(t);
    x = make_input(2.0);
    auto [pa, pb] = parallel([&] { return Dual(x * x); }, [&] { return Dual(3.0 * x); });
    a = pa;
    b = pb;
    y = a * b;  // in the join job, both operands in the subtasks' jobs
  }
  REQUIRE(t.num_jobs() == 4);  // root, left, right, join
  auto left = t.job(1).nodes.edges_of(0);
  REQUIRE(left.size() == 1);  // x * x: one edge to the root's x, partial 2x
  CHECK(left[0].target == x.id());
  CHECK(left[0].partial == 4.0);
  auto join = t.job(3).nodes.edges_of(0);
  REQUIRE(join.size() == 2);
  CHECK(join[0].target == a.id());
  CHECK(join[0].partial == b.value());
  CHECK(join[1].target == b.id());
  CHECK(join[1].partial == a.value());
  t.seed(y.id(), 1.0);
  ResolveOptions o;
  o.instrument = true;
  auto s = t.resolve(Variant::Tape, o);
  CHECK(s.order_violations == 0);
  CHECK(s.nodes_revisited == 0);
  CHECK(t.adjoint(x.id()) == 9 * 2.0 * 2.0);  // d(3 x^3) = 9 x^2 = 36
}
