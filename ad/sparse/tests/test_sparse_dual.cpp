// SparseDual, the scalar of the tensorised forward mode: the Fig. 6 rules on scalars, sparse
// tangents that never densify, and the counted work (paper 004 Fig. 6, digest 004 section 3.2).
#include <catch2/catch.hpp>
#include <cmath>

#include "ad/sparse/sparse_dual.h"

using adlab::ad::sparse::SparseDual;
using adlab::ad::sparse::TangentCounts;
using adlab::ad::sparse::TangentEntries;
using adlab::ad::sparse::tl_tangent_counts;

namespace {
SparseDual seeded(double v, std::int64_t coord) {
  return SparseDual(v, TangentEntries{{coord, 1.0}});
}
double coefficient(const SparseDual& x, std::int64_t coord) {
  for (const auto& e : x.tangent())
    if (e.coord == coord) return e.value;
  return 0;
}
}  // namespace

TEST_CASE("004 Fig. 6 product rule on scalars: D[x y] = x D[y] + D[x] y", "[sparse]") {
  SparseDual x = seeded(3, 0), y = seeded(5, 1);
  SparseDual z = x * y;
  CHECK(z.value() == 15);
  CHECK(z.tangent().size() == 2);
  CHECK(coefficient(z, 0) == 5);
  CHECK(coefficient(z, 1) == 3);
  SparseDual sq = x * x;  // the same coordinate twice merges into one entry
  CHECK(sq.tangent().size() == 1);
  CHECK(coefficient(sq, 0) == 6);
}

TEST_CASE("004 Fig. 6: D[r] = zero[tau] and constants cost nothing (S1, S2 on empty tangents)",
          "[sparse]") {
  TangentCounts counts;
  tl_tangent_counts = &counts;
  SparseDual c(2.0), d(4.0);
  SparseDual p = c * d + c;
  tl_tangent_counts = nullptr;
  CHECK(p.value() == 10);
  CHECK(p.is_constant());
  CHECK(counts.adds == 0);
  CHECK(counts.muls == 0);
}

TEST_CASE("004 digest 3.1: accumulating n one-hot terms costs n merges, not n^2", "[sparse]") {
  TangentCounts counts;
  tl_tangent_counts = &counts;
  SparseDual acc(0);
  const int n = 1000;
  for (int k = 0; k < n; ++k) acc += seeded(1.0, k % 10);
  CHECK(acc.tangent().size() == 10);
  tl_tangent_counts = nullptr;
  CHECK(coefficient(acc, 3) == 100);
  CHECK(counts.adds == n - 10);  // every duplicate coordinate merged exactly once
  CHECK(counts.muls == 0);
}

TEST_CASE("004 digest 9.1 test 10: op'(e) * D[e] for exp, sin, cos (cos' = -1 * sin)", "[sparse]") {
  SparseDual x = seeded(0.7, 4);
  CHECK(coefficient(exp(x), 4) == Approx(std::exp(0.7)));
  CHECK(coefficient(sin(x), 4) == Approx(std::cos(0.7)));
  CHECK(coefficient(cos(x), 4) == Approx(-std::sin(0.7)));
  CHECK(coefficient(x / seeded(2.0, 5), 5) == Approx(-0.7 / 4));
  SparseDual self = x;
  self += self;  // aliasing: the tangent is cloned before it is appended to
  CHECK(coefficient(self, 4) == 2);
  CHECK(coefficient(x, 4) == 1);  // copies share tangents copy-on-write
}
