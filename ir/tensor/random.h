// Seeded random tensors, bit-identical on every platform (manifest input generators, DESIGN 6).
#pragma once

#include <cstdint>
#include <vector>

#include "ir/tensor/tensor.h"

namespace adlab::ir {

// All generators draw from std::mt19937_64 seeded with `seed` (its output sequence is fixed by
// the C++ standard) and transform the raw 64-bit words with adlab's own code using only IEEE
// +, -, *, / and sqrt, which are correctly rounded, so results do not depend on the standard
// library or libm. Entries are drawn in row-major order.

// Dense f64 with entries ~ N(mean, stddev^2) (Marsaglia's polar form of Box-Muller).
Tensor random_normal(const std::vector<std::int64_t>& shape, double mean, double stddev,
                     std::uint64_t seed);
// Dense f64 with entries uniform in [lo, hi) (53 random bits each).
Tensor random_uniform(const std::vector<std::int64_t>& shape, double lo, double hi,
                      std::uint64_t seed);
// Dense i64 with entries uniform in [lo, hi_exclusive) (unbiased, by rejection).
Tensor random_int(const std::vector<std::int64_t>& shape, std::int64_t lo,
                  std::int64_t hi_exclusive, std::uint64_t seed);

// How many entries random_sparse stores: an exact count, or round(density * rows * cols).
struct SparseFill {
  std::int64_t count = -1;
  double density = 0;
  static SparseFill nnz(std::int64_t n) { return {n, 0}; }
  static SparseFill fraction(double d) { return {-1, d}; }
};

// Distribution of the stored values: normal(mean, stddev) or uniform[lo, hi).
struct ValueDist {
  enum class Kind : std::uint8_t { Normal, Uniform } kind = Kind::Normal;
  double a = 0, b = 1;  // (mean, stddev) or (lo, hi)
  static ValueDist normal(double mean, double stddev) { return {Kind::Normal, mean, stddev}; }
  static ValueDist uniform(double lo, double hi) { return {Kind::Uniform, lo, hi}; }
};

// A rows x cols f64 matrix in CSR or COO storage with exactly the requested number of stored
// entries at distinct positions chosen uniformly (Floyd's sampling), keys sorted row-major;
// the values are drawn afterwards in key order.
Tensor random_sparse(std::int64_t rows, std::int64_t cols, Storage storage, SparseFill fill,
                     ValueDist values, std::uint64_t seed);

// The transformations themselves, for generators that need them one value at a time.
namespace rng {
double uniform01(std::uint64_t bits);  // [0, 1) from the top 53 bits
double log(double x);                  // natural log, deterministic, about 1 ulp accurate
}  // namespace rng

}  // namespace adlab::ir
