// Complexity by operation counts on the doubling chain (paper 003 Fig. 2, digest section 9):
// naive makes 2^(n+1) - 1 backpropagator calls, staged-map and tape resolve n + 1 nodes.
#include <catch2/catch.hpp>

#include "ad/dualrev/api.h"
#include "ad/dualrev/resolvers.h"

using namespace adlab::ad::dualrev;

namespace {
// x_i = x_{i-1} + x_{i-1}, output x_n: d x_n / d x_0 = 2^n.
GradientResult doubling_chain(int n, Variant v, bool factor, double* naive_calls = nullptr) {
  TapeOptions to;
  to.factor_operands = factor;
  Tape t(to);
  struct CountPaths {  // after the pass, the tape's paths as naive's budget counts them
    Tape& t;
    double* out;
    ~CountPaths() {
      if (out) *out = detail::naive_calls(t);
    }
  } count{t, naive_calls};
  ResolveOptions o;
  o.count_ops = true;
  return gradient(
      t,
      [n](const std::vector<Dual>& x) {
        Dual y = x[0];
        for (int i = 0; i < n; ++i) y = y + y;
        return y;
      },
      {1.0}, v, o);
}
}  // namespace

void check_depths(int from, int to) {
  for (int n = from; n <= to; ++n) {
    INFO("n = " << n);
    const double want = std::ldexp(1.0, n);
    // Stage 1 records y + y as two calls of y's backpropagator: 2^(n+1) - 1 calls in all.
    double paths = 0;
    auto naive = doubling_chain(n, Variant::Naive, false, &paths);
    CHECK(naive.gradient[0] == want);
    CHECK(naive.stats.nodes_resolved == (std::int64_t{1} << (n + 1)) - 1);
    CHECK(paths == std::ldexp(1.0, n + 1) - 1);  // counted without calling (decision 248)
    // The staged stages on the same recording: n + 1 nodes, 2n edges, one addition per node.
    for (Variant v : {Variant::StagedMap, Variant::Tape}) {
      auto r = doubling_chain(n, v, false);
      CHECK(r.gradient[0] == want);
      CHECK(r.stats.nodes_resolved == n + 1);
      CHECK(r.stats.edges_processed == 2 * n);
      CHECK(r.stats.adds == n);
      CHECK(r.stats.muls == 0);
    }
    // With record-time factoring (the default), y + y is one edge of partial 2.
    for (Variant v : {Variant::StagedMap, Variant::Tape}) {
      auto r = doubling_chain(n, v, true);
      CHECK(r.gradient[0] == want);
      CHECK(r.stats.nodes_resolved == n + 1);
      CHECK(r.stats.edges_processed == n);
      CHECK(r.stats.adds == 0);
      CHECK(r.stats.muls == n);
    }
  }
}

#ifdef ADLAB_DUALREV_SLOW
TEST_CASE("003 Fig. 2 doubling chain, depths 21 to 25 (naive: 2^26 - 1 calls)", "[dualrev]") {
  check_depths(21, 25);
}
#else
TEST_CASE("003 Fig. 2 doubling chain: naive 2^n calls, staged-map and tape linear", "[dualrev]") {
  check_depths(1, 20);
}
#endif

namespace {
// Counting up from x: c_i = c_{i-1} + 1, output sum_{i<n} c_i (an audit helper's scan). Every
// partial is 1 and only c_0 reads x, so stage 1's n^2 / 2 calls (c_i resolved once per later use)
// reach the input only n times.
GradientResult count_up(int n, Variant v) {
  Tape t;
  ResolveOptions o;
  o.count_ops = true;
  return gradient(
      t,
      [n](const std::vector<Dual>& x) {
        Dual c = x[0], s = x[0];
        for (int i = 1; i < n; ++i) {
          c = c + 1.0;
          s = s + c;
        }
        return s;
      },
      {0.5}, v, o);
}
}  // namespace

TEST_CASE("naive counts every repeated call, also along unit partials (decision 232)",
          "[dualrev]") {
  // Naive counted an addition only where a call reached an input a second time, so its calls
  // along unit-partial chains were free and its ratio looked linear (an audit helper: 1.5 at
  // every size of this scan, PASS against the cheap-gradient bound).
  auto naive1 = count_up(200, Variant::Naive), naive2 = count_up(400, Variant::Naive);
  auto tape1 = count_up(200, Variant::Tape), tape2 = count_up(400, Variant::Tape);
  CHECK(naive1.gradient[0] == 200.0);
  CHECK(tape1.gradient[0] == 200.0);
  const double naive_growth = static_cast<double>(naive2.stats.adds) / naive1.stats.adds;
  const double tape_growth = static_cast<double>(tape2.stats.adds) / tape1.stats.adds;
  CHECK(naive_growth == Approx(4.0).epsilon(0.05));
  CHECK(tape_growth == Approx(2.0).epsilon(0.05));
  CHECK(naive2.stats.adds >= 400 * 399 / 2);
}
