// A seeded random straight-line program over Duals with heavy sharing (tests of the run-once
// invariant and of the variants' agreement, digest 003 section 8).
#pragma once

#include <cmath>
#include <random>
#include <vector>

#include "ad/dualrev/dual.h"

namespace adlab::ad::dualrev::testing {

// `ops` operations, each on one or two earlier values picked at random (so values are shared);
// the output is the sum of the last eight values. Bounded primitives keep values finite.
inline Dual random_program(const std::vector<Dual>& x, int ops, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Dual> vals(x.begin(), x.end());
  for (int k = 0; k < ops; ++k) {
    std::uniform_int_distribution<std::size_t> pick(0, vals.size() - 1);
    const Dual& a = vals[pick(rng)];
    const Dual& b = vals[pick(rng)];
    switch (rng() % 6) {
      case 0:
        vals.push_back(a + b);
        break;
      case 1:
        vals.push_back(a - b);
        break;
      case 2:
        vals.push_back(tanh(a) * b);
        break;
      case 3:
        vals.push_back(sin(a) + 0.5 * b);
        break;
      case 4:
        vals.push_back(a / (1.5 + cos(b)));
        break;
      default:
        vals.push_back(0.9 * a);
        break;
    }
  }
  Dual y = 0.0;
  for (std::size_t k = vals.size() > 8 ? vals.size() - 8 : 0; k < vals.size(); ++k) y += vals[k];
  return y;
}

}  // namespace adlab::ad::dualrev::testing
