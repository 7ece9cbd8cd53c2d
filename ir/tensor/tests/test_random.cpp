// Tests of the seeded random tensor generators.
#include "ir/tensor/random.h"

#include <bit>
#include <catch2/catch.hpp>
#include <cmath>
#include <random>

#include "ir/tensor/tensor_ops.h"
#include "ir/tensor/tests/check_error.h"

namespace adlab::ir {
namespace {

std::vector<std::uint64_t> bits(const std::vector<double>& v) {
  std::vector<std::uint64_t> out;
  for (double x : v) out.push_back(std::bit_cast<std::uint64_t>(x));
  return out;
}

void check_moments(const std::vector<double>& v, double mean, double stddev) {
  double sum = 0, sq = 0;
  for (double x : v) sum += x;
  const double m = sum / static_cast<double>(v.size());
  for (double x : v) sq += (x - m) * (x - m);
  const double s = std::sqrt(sq / static_cast<double>(v.size() - 1));
  // n = 100000: the standard error of the mean is 0.003 stddev, of the stddev 0.0022 stddev.
  CHECK(std::abs(m - mean) < 0.015 * stddev);
  CHECK(std::abs(s - stddev) < 0.012 * stddev);
}

TEST_CASE("random generators are deterministic in their seed", "[unit]") {
  CHECK(bits(random_normal({1000}, 0, 1, 5).values) == bits(random_normal({1000}, 0, 1, 5).values));
  CHECK(bits(random_normal({1000}, 0, 1, 5).values) != bits(random_normal({1000}, 0, 1, 6).values));
  CHECK(bits(random_uniform({7, 9}, -1, 1, 5).values) ==
        bits(random_uniform({7, 9}, -1, 1, 5).values));
  CHECK(random_int({100}, -5, 5, 3).ints == random_int({100}, -5, 5, 3).ints);
  const Tensor a =
      random_sparse(50, 60, Storage::Coo, SparseFill::nnz(300), ValueDist::normal(0, 1), 9);
  const Tensor b =
      random_sparse(50, 60, Storage::Coo, SparseFill::nnz(300), ValueDist::normal(0, 1), 9);
  CHECK(a.coords == b.coords);
  CHECK(bits(a.values) == bits(b.values));
  // CSR and COO requests with one seed give the same matrix.
  const Tensor c =
      random_sparse(50, 60, Storage::Csr, SparseFill::nnz(300), ValueDist::normal(0, 1), 9);
  CHECK(to_coo(c).coords == a.coords);
  CHECK(bits(c.values) == bits(a.values));
}

// The exact bits are part of the contract (manifests name seeds): these must never change.
TEST_CASE("random generators produce pinned values", "[unit]") {
  // Checked against an independent Python implementation of mt19937_64 and the same formulas.
  CHECK(bits(random_uniform({3}, 0, 1, 42).values) ==
        std::vector<std::uint64_t>{0x3fe82a3befaddcbc, 0x3fe472f1f73724a0, 0x3fe81192cfe1cbcf});
  CHECK(bits(random_normal({3}, 0, 1, 42).values) ==
        std::vector<std::uint64_t>{0x3ff4b37d0b4daa8f, 0x3fe68f438d8aec29, 0x3fd978762f4a05dc});
  CHECK(random_int({4}, 0, 1000, 42).ints == std::vector<std::int64_t>{406, 824, 450, 662});
}

TEST_CASE("random_normal has the requested mean and stddev", "[unit]") {
  const Tensor t = random_normal({100000}, 3, 2, 1);
  CHECK(t.elem == ElemType::F64);
  CHECK(t.shape == std::vector<std::int64_t>{100000});
  check_moments(t.values, 3, 2);
  std::size_t beyond_two_sigma = 0;
  for (double x : t.values) beyond_two_sigma += std::abs(x - 3) > 4;
  CHECK(std::abs(static_cast<double>(beyond_two_sigma) / 100000 - 0.0455) < 0.003);
  CHECK(random_normal({4}, 1.5, 0, 1).values == std::vector<double>(4, 1.5));
  CHECK_ERROR(random_normal({1}, 0, -1, 1),
              "error: random normal needs a finite mean and a finite stddev >= 0, got mean "
              "0.000000, stddev -1.000000");
}

TEST_CASE("random_uniform stays in the half-open range with the right moments", "[unit]") {
  const Tensor t = random_uniform({100, 1000}, -2, 6, 2);
  for (double x : t.values) REQUIRE((x >= -2 && x < 6));
  check_moments(t.values, 2, 8 / std::sqrt(12.0));
  const double lo = 1.0, hi = std::nextafter(1.0, 2.0);  // rounding must not reach hi
  for (double x : random_uniform({1000}, lo, hi, 3).values) REQUIRE(x == lo);
  CHECK_ERROR(random_uniform({1}, 1, 1, 1),
              "error: random uniform needs finite lo < hi, got [1.000000, 1.000000)");
}

TEST_CASE("random_int is uniform over the half-open range", "[unit]") {
  const Tensor t = random_int({100000}, -3, 7, 4);
  CHECK(t.elem == ElemType::I64);
  std::vector<int> counts(10, 0);
  for (std::int64_t v : t.ints) {
    REQUIRE((v >= -3 && v < 7));
    ++counts[static_cast<std::size_t>(v + 3)];
  }
  for (int c : counts) CHECK(std::abs(c - 10000) < 500);  // 5 standard deviations
  for (std::int64_t v : random_int({1000}, INT64_MIN, INT64_MAX, 5).ints) REQUIRE(v != INT64_MAX);
  CHECK(random_int({5}, 8, 9, 6).ints == std::vector<std::int64_t>(5, 8));
  CHECK_ERROR(random_int({1}, 3, 3, 1), "error: random_int needs lo < hi, got [3, 3)");
}

TEST_CASE("random_sparse stores exactly nnz distinct sorted keys", "[unit]") {
  for (std::int64_t nnz : {0, 1, 37, 500, 1199, 1200}) {
    const Tensor t = random_sparse(30, 40, Storage::Coo, SparseFill::nnz(nnz),
                                   ValueDist::uniform(-1, 1), static_cast<std::uint64_t>(nnz));
    CHECK(t.nnz() == nnz);
    validate(t);  // sorted, no duplicates, in range
    for (double v : t.values) REQUIRE((v >= -1 && v < 1));
  }
  const Tensor half =
      random_sparse(101, 99, Storage::Csr, SparseFill::fraction(0.5), ValueDist::normal(0, 1), 8);
  CHECK(half.nnz() == 5000);  // round(0.5 * 9999)
  validate(half);
  const Tensor tall = random_sparse(100000, 1, Storage::Csr, SparseFill::nnz(100000),
                                    ValueDist::normal(-1, 0.5), 9);
  CHECK(tall.row_ptr.back() == 100000);
  check_moments(tall.values, -1, 0.5);
  // Positions are uniform: each of the 4 quadrants gets about a quarter.
  const Tensor q =
      random_sparse(200, 200, Storage::Coo, SparseFill::nnz(8000), ValueDist::normal(0, 1), 10);
  int top_left = 0;
  for (std::size_t k = 0; k < q.values.size(); ++k) {
    top_left += q.coords[2 * k] < 100 && q.coords[2 * k + 1] < 100;
  }
  CHECK(std::abs(top_left - 2000) < 200);
  CHECK_ERROR(random_sparse(3, 3, Storage::Csr, SparseFill::nnz(10), ValueDist::normal(0, 1), 1),
              "error: random_sparse cannot store 10 distinct entries in a 3 x 3 matrix");
  CHECK_ERROR(random_sparse(3, 3, Storage::Dense, SparseFill::nnz(1), ValueDist::normal(0, 1), 1),
              "error: random_sparse makes csr or coo tensors, not dense");
}

TEST_CASE("rng::log agrees with the C library to about one ulp", "[unit]") {
  std::mt19937_64 gen(3);
  for (int k = 0; k < 100000; ++k) {
    const double x = std::bit_cast<double>(gen() >> 1);  // positive, any exponent
    if (!std::isfinite(x) || x == 0) continue;
    const double ours = rng::log(x), ref = std::log(x);
    REQUIRE(std::abs(ours - ref) <= 2 * std::abs(std::nextafter(ref, 0.0) - ref) + 1e-300);
  }
  CHECK(rng::log(1.0) == 0.0);
  CHECK(rng::log(0.0) == -HUGE_VAL);
  CHECK(std::isnan(rng::log(-1.0)));
  CHECK(rng::uniform01(~std::uint64_t{0}) < 1.0);
}

}  // namespace
}  // namespace adlab::ir
