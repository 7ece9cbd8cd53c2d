// Complexity by operation counts on the doubling chain (paper 003 Fig. 2, digest section 9):
// naive makes 2^(n+1) - 1 backpropagator calls, staged-map and tape resolve n + 1 nodes.
#include <catch2/catch.hpp>

#include "ad/dualrev/api.h"

using namespace adlab::ad::dualrev;

namespace {
// x_i = x_{i-1} + x_{i-1}, output x_n: d x_n / d x_0 = 2^n.
GradientResult doubling_chain(int n, Variant v, bool factor) {
  TapeOptions to;
  to.factor_operands = factor;
  Tape t(to);
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
    auto naive = doubling_chain(n, Variant::Naive, false);
    CHECK(naive.gradient[0] == want);
    CHECK(naive.stats.nodes_resolved == (std::int64_t{1} << (n + 1)) - 1);
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
