// The recording and reverse-sweep fast paths of decisions 132-135: the implicit chain edge of an
// accumulation `s += ...` (including the aliasing cases it must not change), consecutive input
// blocks, block reads of adjoints, and the vector sweep for Jacobian rows.
#include <catch2/catch.hpp>
#include <cmath>

#include "ad/dualrev/api.h"
#include "ir/error.h"

using namespace adlab;
using namespace adlab::ad::dualrev;

namespace {

const Variant kVariants[] = {Variant::Tape, Variant::StagedMap, Variant::Naive};

// Gradient of f at x, recorded for variant v (naive records every operand use, decision 116).
template <class F>
std::vector<double> grad(F f, const std::vector<double>& x, Variant v) {
  Tape t(TapeOptions{1, v != Variant::Naive});
  return gradient(t, f, x, v).gradient;
}

template <class F>
void check_exact(F f, const std::vector<double>& x, const std::vector<double>& want) {
  for (Variant v : kVariants) {
    INFO("variant " << variant_name(v));
    auto g = grad(f, x, v);
    REQUIRE(g.size() == want.size());
    for (std::size_t i = 0; i < g.size(); ++i) CHECK(g[i] == want[i]);
  }
}

// paper 003 section 7 benchmark 4 (Krawiec et al.), as in reports/bench/bench_dualrev.cpp.
template <class S>
std::vector<S> rotate_vec_by_quat(const std::vector<S>& a) {
  const S *v = a.data(), &s = a[3], *u = a.data() + 4;
  S uv = u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
  S uu = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
  S c[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
  S k = s * s - uu;
  std::vector<S> r;
  for (int i = 0; i < 3; ++i) r.push_back(S(2.0 * uv * u[i] + k * v[i] + 2.0 * s * c[i]));
  return r;
}

// Its Jacobian at (1, 2, 3, 4, 5, 6, 7), by hand (each output is at most quadratic in each input,
// so the central difference with step 1 is exact; these are those differences).
const double kRotateJ[3][7] = {
    {-44, 4, 118, 16, 76, 32, 0}, {116, -22, 44, 0, -32, 76, 16}, {22, 124, 4, 32, 0, -16, 76}};

}  // namespace

TEST_CASE(
    "003 section 7 dot product: s = s + x_i y_i is one node per statement, chained to the previous "
    "node (decision 132)",
    "[dualrev]") {
  Tape t;
  std::vector<Dual> x, y;
  Dual s;
  {
    Recording rec(t);
    for (int i = 0; i < 4; ++i) x.push_back(make_input(i + 1.0));
    for (int i = 0; i < 4; ++i) y.push_back(make_input(2.0 * i + 3));
    s = x[0] * y[0];
    for (std::size_t i = 1; i < 4; ++i) s += x[i] * y[i];
  }
  const NodeStore& ns = t.job(0).nodes;
  REQUIRE(ns.size() == 12);
  CHECK(t.num_nodes() == 8 + 4);
  for (std::size_t i = 0; i < 8; ++i) CHECK(ns.edges_of(i).empty());  // leaves have no edges
  CHECK_FALSE(ns.has_chain(8));  // x0 y0: the previous node is the leaf y3, not an operand
  for (std::size_t i = 9; i < 12; ++i) {
    CHECK(ns.has_chain(i));
    CHECK(ns.end_edge(i) - ns.first_edge(i) == 2);  // only x_i and y_i are stored
    auto e = ns.edges_of(i);
    REQUIRE(e.size() == 3);  // the implicit edge comes first, as s came first in s + x_i y_i
    CHECK(e[0].target == NodeId{t.job(0).id, static_cast<std::uint32_t>(i - 1)});
    CHECK(e[0].partial == 1.0);
  }
  CHECK(t.num_edges() == 2 + 3 * 3);  // implicit edges count
  for (Variant v : kVariants) {
    INFO("variant " << variant_name(v));
    t.clear_seeds();
    t.seed(s.id(), 1.0);
    ResolveOptions o;
    o.instrument = true;
    auto st = t.resolve(v, o);
    CHECK(st.order_violations == 0);
    if (v != Variant::Naive) CHECK(st.edges_processed == t.num_edges());
    for (std::size_t i = 0; i < 4; ++i) {
      CHECK(t.adjoint(x[i].id()) == y[i].value());
      CHECK(t.adjoint(y[i].id()) == x[i].value());
    }
  }
}

TEST_CASE("003 section 7 dot product, aliasing: a copy taken before += keeps the old value",
          "[dualrev]") {
  // t = x0 y0 is copied before s += x1 y1 chains to it: t must still mean x0 y0, and s's node
  // passes its cotangent on to t's node (the implicit edge), which t's own seed adds to.
  auto f = [](const std::vector<Dual>& x) {
    Dual s = x[0] * x[1];
    Dual t = s;
    s += x[2] * x[3];
    return Dual(3.0 * t + s);  // 4 x0 x1 + x2 x3
  };
  check_exact(f, {2, 3, 5, 7}, {12, 8, 7, 5});
  Tape tape;
  auto r = gradient(tape, f, {2, 3, 5, 7});
  CHECK(r.value == 4 * 6 + 35);
  CHECK(tape.job(0).nodes.has_chain(5));  // s += x2 x3 is the chained node
}

TEST_CASE("003 section 7 dot product, aliasing: self-accumulation s += s * x", "[dualrev]") {
  // s + s x has two terms of s: they are merged into one edge (1 + x), never a chain of 1.
  auto f = [](const std::vector<Dual>& x) {
    Dual s = x[0] * x[1];
    s += s * x[2];  // s (1 + x2) = x0 x1 (1 + x2)
    return s;
  };
  check_exact(f, {2, 3, 5}, {18, 12, 6});
  Tape t;
  gradient(t, f, {2, 3, 5});
  CHECK_FALSE(t.job(0).nodes.has_chain(4));
  auto e = t.job(0).nodes.edges_of(4);
  REQUIRE(e.size() == 2);
  CHECK(e[0].target == NodeId{t.job(0).id, 3});
  CHECK(e[0].partial == 6.0);  // 1 + x2
}

TEST_CASE("003 section 7 dot product, aliasing: accumulation into a leaf, and s = 2 s + x",
          "[dualrev]") {
  // The last input is the previous node: s += x0 x1 chains to the leaf itself.
  auto into_leaf = [](const std::vector<Dual>& x) {
    Dual s = x[2];
    s += x[0] * x[1];
    s = 2.0 * s + x[0];  // partial 2 to the tail: stored, not chained
    return s;
  };
  check_exact(into_leaf, {2, 3, 5}, {7, 4, 2});
  Tape t;
  gradient(t, into_leaf, {2, 3, 5});
  CHECK(t.job(0).nodes.has_chain(3));
  CHECK_FALSE(t.job(0).nodes.has_chain(4));
  // A partial that happens to be exactly 1 at run time is the same edge: chained, still exact.
  check_exact(
      [](const std::vector<Dual>& x) {
        Dual s = x[0] * x[2];
        s = s * x[1] + x[2];  // x1 = 1: d/ds = 1
        return s;
      },
      {2, 1, 5}, {5, 10, 3});
}

TEST_CASE("003 section 12 chain edges never cross jobs: accumulation into another job's value",
          "[dualrev]") {
  Tape t;  // one thread: the fork runs its two sides in order
  Dual x, y, s, a, b, out, m;
  {
    Recording rec(t);
    x = make_input(2.0);
    y = make_input(3.0);
    s = x * y;                                                 // the root job's tail
    auto [pa, pb] = parallel([&] { return Dual(s + x * x); },  // s is in the parent job
                             [&] { return Dual(s + 3.0 * y); });
    a = pa;
    b = pb;
    out = a + b;   // the join job: a and b are in the subtasks' jobs
    out += s * x;  // out is the previous node, but s and x are the root job's: no chain
    m = out * 3.0;
    m += out;  // both terms in the join job: chained
  }
  REQUIRE(t.num_jobs() == 4);
  CHECK_FALSE(t.job(1).nodes.has_chain(0));
  CHECK_FALSE(t.job(2).nodes.has_chain(0));
  CHECK_FALSE(t.job(3).nodes.has_chain(0));
  CHECK_FALSE(t.job(3).nodes.has_chain(1));
  CHECK_FALSE(t.job(3).nodes.has_chain(2));
  CHECK(t.job(3).nodes.has_chain(3));
  t.seed(m.id(), 1.0);
  ResolveOptions o;
  o.instrument = true;
  auto st = t.resolve(Variant::Tape, o);
  CHECK(st.order_violations == 0);
  CHECK(st.nodes_revisited == 0);
  CHECK(st.edges_processed == t.num_edges());
  // out = 2 x y + x^2 + 3 y + x^2 y = 37: d/dx = 2 y + 2 x + 2 x y = 22, d/dy = 2 x + 3 + x^2 =
  // 11; m = 4 out.
  CHECK(t.adjoint(x.id()) == 4.0 * 22.0);
  CHECK(t.adjoint(y.id()) == 4.0 * 11.0);
}

TEST_CASE("003 section 5 naive stage: x + x with x the previous node keeps both uses",
          "[dualrev]") {
  for (Variant v : kVariants) {
    INFO("variant " << variant_name(v));
    Tape t(TapeOptions{1, v != Variant::Naive});
    auto r = gradient(
        t,
        [](const std::vector<Dual>& x) {
          Dual p = x[0] * x[1];
          Dual q = p + p;  // naive: the chain edge and one stored edge to p
          return Dual(q * x[0]);
        },
        {2, 3}, v);
    CHECK(r.gradient[0] == 24.0);  // 2 x0^2 x1
    CHECK(r.gradient[1] == 8.0);
    if (v == Variant::Naive) {
      CHECK(t.job(0).nodes.has_chain(3));
      CHECK(t.job(0).nodes.edges_of(3).size() == 2);
    }
  }
}

TEST_CASE("digest 003 section 7 neural: z += w x chains, gradient equals the unchained staged map",
          "[dualrev]") {
  // One neuron row of the benchmark: z = b + sum_j w_j x_j, then relu and a square.
  std::vector<double> p;
  for (int k = 0; k < 21; ++k) p.push_back(std::sin(0.41 * k));
  auto f = [](const std::vector<Dual>& q) {
    Dual z = q[20];
    for (int j = 0; j < 10; ++j) z += q[static_cast<std::size_t>(j)] * q[10 + j];
    Dual a = z < 0.0 ? Dual(0.0) : z;
    return Dual(a * a + z);
  };
  Tape t1, t2;
  auto tape = gradient(t1, f, p, Variant::Tape);
  auto map = gradient(t2, f, p, Variant::StagedMap);
  REQUIRE(tape.gradient.size() == map.gradient.size());
  for (std::size_t i = 0; i < p.size(); ++i) CHECK(tape.gradient[i] == map.gradient[i]);
  std::size_t chained = 0;
  for (std::size_t i = 0; i < t1.job(0).nodes.size(); ++i) chained += t1.job(0).nodes.has_chain(i);
  // All ten z += chain (the first to the leaf q20, the last input); a a + z merges its two terms
  // of one node and so is not chained.
  CHECK(chained == 10);
}

TEST_CASE("paper 003 section 10 Interleave: make_inputs gives consecutive IDs", "[dualrev]") {
  Tape t;
  const double v[3] = {1.5, -2.0, 4.0};
  Dual x[3];
  Dual y;
  {
    Recording rec(t);
    Dual before = make_input(9.0);
    make_inputs(v, 3, x);
    y = x[0] * x[1] + x[2] * before;
  }
  for (std::uint32_t k = 0; k < 3; ++k) {
    CHECK(x[k].id() == NodeId{t.job(0).id, k + 1});
    CHECK(x[k].value() == v[k]);
    CHECK(t.job(0).nodes.edges_of(k + 1).empty());
  }
  t.seed(y.id(), 1.0);
  t.resolve();
  double g[3];
  read_adjoints(t, x, 3, g);
  CHECK(g[0] == -2.0);
  CHECK(g[1] == 1.5);
  CHECK(g[2] == 9.0);
  // No recording: an error, as for make_input.
  Dual z[1];
  CHECK_THROWS_AS(make_inputs(v, 1, z), Error);
}

TEST_CASE("paper 003 section 10.1 read_adjoints agrees with adjoint() across jobs and constants",
          "[dualrev]") {
  Tape t;
  Dual x, y, a, b, out;
  {
    Recording rec(t);
    x = make_input(2.0);
    y = make_input(3.0);
    auto [pa, pb] = parallel([&] { return Dual(x * y); }, [&] { return Dual(x + y); });
    a = pa;
    b = pb;
    out = a * b;
  }
  t.seed(out.id(), 1.0);
  t.resolve();
  const Dual all[6] = {x, y, a, Dual(7.0), b, out};
  double g[6];
  read_adjoints(t, all, 6, g);
  for (std::size_t k = 0; k < 6; ++k) CHECK(g[k] == t.adjoint(all[k].id()));
  CHECK(g[0] == 2 * 2.0 * 3.0 + 3.0 * 3.0);  // out = x y (x + y): 2 x y + y^2
  CHECK(g[3] == 0.0);
  const Dual unknown[1] = {Dual(1.0, NodeId{t.job(0).id, 99})};
  CHECK_THROWS_AS(read_adjoints(t, unknown, 1, g), Error);
}

TEST_CASE("paper 003 section 7 rotate_vec_by_quat: the 3x7 Jacobian in one vector sweep",
          "[dualrev]") {
  const std::vector<double> q = {1, 2, 3, 4, 5, 6, 7};
  Tape t;
  auto J = jacobian(
      t, [](const std::vector<Dual>& a) { return rotate_vec_by_quat(a); }, q);
  REQUIRE(J.size() == 3);
  for (int k = 0; k < 3; ++k)
    for (int i = 0; i < 7; ++i) {
      INFO("row " << k << " column " << i);
      CHECK(J[static_cast<std::size_t>(k)][static_cast<std::size_t>(i)] == kRotateJ[k][i]);
    }
  // The same rows as one scalar pass per output, bit for bit (each lane does the same operations
  // in the same order), on random inputs.
  std::vector<double> r = {0.3, -1.7, 2.9, 0.11, -0.57, 1.3, 2.2};
  auto Jv = jacobian(
      t, [](const std::vector<Dual>& a) { return rotate_vec_by_quat(a); }, r);
  auto Js = jacobian(
      t, [](const std::vector<Dual>& a) { return rotate_vec_by_quat(a); }, r, Variant::StagedMap);
  std::vector<Dual> xs, ys;
  {
    Recording rec(t);
    for (double v : r) xs.push_back(make_input(v));
    ys = rotate_vec_by_quat(xs);
  }
  for (std::size_t k = 0; k < 3; ++k) {
    t.clear_seeds();
    t.seed(ys[k].id(), 1.0);
    t.resolve();
    for (std::size_t i = 0; i < 7; ++i) {
      CHECK(Jv[k][i] == t.adjoint(xs[i].id()));
      CHECK(Jv[k][i] == Approx(Js[k][i]).epsilon(1e-14).margin(1e-14));
    }
  }
}

TEST_CASE("paper 003 section 7 vector sweep: more than 8 outputs, constants, chains, forks",
          "[dualrev]") {
  // 11 outputs (two groups of lanes), one of them a constant, an accumulation chain, and an
  // input that no output uses; rows checked against one scalar pass per output.
  auto f = [](const std::vector<Dual>& x) {
    std::vector<Dual> y;
    Dual s = x[0] * x[1];
    for (int k = 0; k < 10; ++k) {
      s += x[static_cast<std::size_t>(k % 3)] * (k + 1.0);
      y.push_back(s * x[2]);
    }
    y.push_back(Dual(4.0));
    return y;
  };
  const std::vector<double> x = {1.25, -0.5, 2.0, 3.0};
  Tape t;
  auto J = jacobian(t, f, x);
  auto Jm = jacobian(t, f, x, Variant::StagedMap);
  REQUIRE(J.size() == 11);
  for (std::size_t k = 0; k < 11; ++k)
    for (std::size_t i = 0; i < 4; ++i) {
      INFO("row " << k << " column " << i);
      CHECK(J[k][i] == Approx(Jm[k][i]).epsilon(1e-14).margin(1e-14));
    }
  for (double v : J[10]) CHECK(v == 0.0);
  for (std::size_t k = 0; k < 11; ++k) CHECK(J[k][3] == 0.0);
  CHECK(J[0][2] == 1.25 * -0.5 + 1.25 * 1.0);  // y0 = (x0 x1 + x0) x2

  // With forks (several jobs) the rows come from the job graph's scalar passes.
  Tape tp;
  auto Jp = jacobian(tp,
                     [](const std::vector<Dual>& a) {
                       auto [l, r] = parallel([&] { return Dual(a[0] * a[1]); },
                                              [&] { return Dual(a[1] + a[2]); });
                       return std::vector<Dual>{Dual(l * r), Dual(l + 2.0 * r)};
                     },
                     {2, 3, 5});
  CHECK(tp.num_jobs() == 4);
  CHECK(Jp[0] == std::vector<double>{24, 2 * 8 + 6, 6});  // x0 x1 (x1 + x2)
  CHECK(Jp[1] == std::vector<double>{3, 4, 2});

  // Errors: while recording, and an ID this tape never recorded.
  Tape te;
  Dual a;
  {
    Recording rec(te);
    a = make_input(1.0);
    const NodeId ids[1] = {a.id()};
    double out[1];
    CHECK_THROWS_AS(te.jacobian_rows(ids, ids, out), Error);
  }
  const NodeId bad[1] = {NodeId{te.job(0).id, 5}};
  const NodeId good[1] = {a.id()};
  double out[1];
  CHECK_THROWS_AS(te.jacobian_rows(bad, good, out), Error);
  CHECK_THROWS_AS(te.jacobian_rows(good, bad, out), Error);
  te.jacobian_rows(good, good, out);
  CHECK(out[0] == 1.0);
}

TEST_CASE("003 section 10.3 sweep skips the edgeless inputs, a chain never stands alone",
          "[dualrev]") {
  // s + c with c a constant: the chain would be the node's only edge, so it is stored instead,
  // and the reverse sweep can stop at the first node with an edge.
  Tape t;
  Dual x, y, s, u;
  const Dual c(4.0);
  {
    Recording rec(t);
    x = make_input(2.0);
    y = make_input(3.0);
    s = x * y;
    s += 2.0 * c;  // a Lin<2> whose second term is a constant
    u = s * x;
  }
  const NodeStore& ns = t.job(0).nodes;
  CHECK(ns.edgeless_prefix() == 2);
  CHECK_FALSE(ns.has_chain(3));
  auto e = ns.edges_of(3);
  REQUIRE(e.size() == 1);
  CHECK(e[0].target == NodeId{t.job(0).id, 2});
  CHECK(e[0].partial == 1.0);
  for (Variant v : kVariants) {
    INFO("variant " << variant_name(v));
    t.clear_seeds();
    t.seed(u.id(), 1.0);
    t.resolve(v);
    CHECK(t.adjoint(x.id()) == 2 * 2.0 * 3.0 + 8.0);  // u = (x y + 8) x
    CHECK(t.adjoint(y.id()) == 4.0);
  }
  // Only leaves: the whole store is the prefix, and the seeded leaf keeps its cotangent.
  Tape leaves;
  Dual l;
  {
    Recording rec(leaves);
    make_input(1.0);
    l = make_input(2.0);
  }
  CHECK(leaves.job(0).nodes.edgeless_prefix() == 2);
  leaves.seed(l.id(), 3.0);
  leaves.resolve();
  CHECK(leaves.adjoint(l.id()) == 3.0);
}

TEST_CASE(
    "003 section 6 factoring test on sequence numbers: a constant beside node 0, and equal numbers "
    "in two jobs, take the general path and record exact partials (decision 145)",
    "[dualrev]") {
  // c x0 + x1: the constant and x0 both have sequence number 0.
  auto scaled = [](const std::vector<Dual>& x) {
    const Dual c(5.0);
    return Dual(c * x[0] + x[1]);
  };
  check_exact(scaled, {2.0, 3.0}, {5.0, 1.0});
  // Then y + c x0 with y the previous node: no chain edge on the general path, the same gradient.
  auto chained = [](const std::vector<Dual>& x) {
    const Dual c(5.0);
    Dual y = c * x[0] + x[1];
    return Dual(y + c * x[0]);
  };
  check_exact(chained, {2.0, 3.0}, {10.0, 1.0});
  Tape t;
  Dual x0, x1, y, z;
  {
    Recording rec(t);
    x0 = make_input(2.0);
    x1 = make_input(3.0);
    const Dual c(5.0);
    y = c * x0 + x1;
    z = y + c * x0;
  }
  const auto ey = t.job(0).nodes.edges_of(2);
  REQUIRE(ey.size() == 2);
  CHECK(ey[0].target == NodeId{t.job(0).id, 0});
  CHECK(ey[0].partial == 5.0);
  CHECK(ey[1].target == NodeId{t.job(0).id, 1});
  CHECK(ey[1].partial == 1.0);
  const auto ez = t.job(0).nodes.edges_of(3);
  REQUIRE(ez.size() == 2);
  CHECK(ez[0].target == NodeId{t.job(0).id, 2});
  CHECK(ez[0].partial == 1.0);
  CHECK(ez[1].target == NodeId{t.job(0).id, 0});
  CHECK(ez[1].partial == 5.0);
  // out = x y (x + y) + x, whose three terms are number 0 of three jobs (two subtasks, the
  // parent): d/dx = 2 x y + y^2 + 1, d/dy = x^2 + 2 x y.
  auto forked = [](const std::vector<Dual>& x) {
    Dual a0 = x[0], a1 = x[1];
    auto [a, b] = parallel([&] { return Dual(a0 * a1); }, [&] { return Dual(a0 + a1); });
    return Dual(a * b + a0);
  };
  check_exact(forked, {2.0, 3.0}, {22.0, 16.0});
}
