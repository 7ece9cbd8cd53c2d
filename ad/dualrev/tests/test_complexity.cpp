// Complexity by operation counts on the doubling chain (paper 003 Fig. 2, digest section 9):
// naive makes 2^(n+1) - 1 backpropagator calls, staged-map and tape resolve n + 1 nodes.
#include <catch2/catch.hpp>

#include "ad/dualrev/api.h"

using namespace adlab::ad::dualrev;

namespace {
// x_i = x_{i-1} + x_{i-1}, output x_n: d x_n / d x_0 = 2^n.
GradientResult doubling_chain(int n, Variant v) {
  Tape t;
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
    auto naive = doubling_chain(n, Variant::Naive);
    auto staged = doubling_chain(n, Variant::StagedMap);
    auto tape = doubling_chain(n, Variant::Tape);
    const double want = std::ldexp(1.0, n);
    CHECK(naive.gradient[0] == want);
    CHECK(staged.gradient[0] == want);
    CHECK(tape.gradient[0] == want);
    // Calls: the output's backpropagator, each calling its operand twice, down to the input.
    CHECK(naive.stats.nodes_resolved == (std::int64_t{1} << (n + 1)) - 1);
    CHECK(staged.stats.nodes_resolved == n + 1);
    CHECK(tape.stats.nodes_resolved == n + 1);
    CHECK(staged.stats.edges_processed == 2 * n);
    CHECK(tape.stats.edges_processed == 2 * n);
    // Floating operations of the reverse pass: linear for the staged variants.
    CHECK(tape.stats.adds == 2 * n);
    CHECK(staged.stats.adds == 2 * n);
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
