// Seeded random tensors with adlab's own, platform-independent distribution code.
// Build with -ffp-contract=off (see sources.cmake) so no fused multiply-add changes the bits.
#include "ir/tensor/random.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <random>
#include <unordered_set>

#include "ir/error.h"
#include "ir/tensor/tensor_ops.h"

namespace adlab::ir {

namespace rng {

double uniform01(std::uint64_t bits) {
  return static_cast<double>(bits >> 11) * 0x1p-53;
}

// log(x) = e*ln2 + log(m), x = m * 2^e with m in [sqrt(1/2), sqrt(2)); log(m) = 2 atanh(f) with
// f = (m - 1) / (m + 1), |f| <= 0.172, summed as the odd series 2 (f + f^3/3 + ...) to 2^-56.
double log(double x) {
  if (!(x > 0)) return x == 0 ? -HUGE_VAL : std::numeric_limits<double>::quiet_NaN();
  if (x == HUGE_VAL) return x;
  int e = 0;
  if (x < 0x1p-1022) {  // subnormal: scale into the normal range first
    x *= 0x1p54;
    e = -54;
  }
  const auto bits = std::bit_cast<std::uint64_t>(x);
  e += static_cast<int>((bits >> 52) & 0x7ff) - 1023;
  double m = std::bit_cast<double>((bits & 0x000fffffffffffffULL) | 0x3ff0000000000000ULL);
  if (m > 1.4142135623730951) {
    m *= 0.5;
    ++e;
  }
  const double f = (m - 1) / (m + 1), f2 = f * f;
  double series = 0;
  for (int k = 12; k >= 1; --k) series = (series + 1.0 / (2 * k + 1)) * f2;
  const double log_m = 2 * f + 2 * f * series;
  constexpr double kLn2Hi = 6.93147180369123816490e-01;  // fdlibm's split of ln 2
  constexpr double kLn2Lo = 1.90821492927058770002e-10;
  return e * kLn2Hi + (e * kLn2Lo + log_m);
}

}  // namespace rng

namespace {

// The raw mt19937_64 stream and the transformations adlab defines on it.
class Source {
 public:
  explicit Source(std::uint64_t seed) : gen_(seed) {}

  double uniform01() { return rng::uniform01(gen_()); }

  // Uniform in [0, range) for range >= 1, unbiased: rejects the lowest 2^64 mod range words.
  std::uint64_t below(std::uint64_t range) {
    const std::uint64_t threshold = (std::uint64_t{0} - range) % range;
    std::uint64_t x = gen_();
    while (x < threshold) x = gen_();
    return x % range;
  }

  // Marsaglia's polar method: a pair of independent N(0, 1) values per accepted point.
  double normal() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    for (;;) {
      const double u = 2 * uniform01() - 1, v = 2 * uniform01() - 1;
      const double s = u * u + v * v;
      if (s >= 1 || s == 0) continue;
      const double scale = std::sqrt(-2 * rng::log(s) / s);
      spare_ = v * scale;
      has_spare_ = true;
      return u * scale;
    }
  }

  double value(const ValueDist& d) {
    if (d.kind == ValueDist::Kind::Normal) return d.a + d.b * normal();
    const double r = d.a + (d.b - d.a) * uniform01();
    return r < d.b ? r : std::nextafter(d.b, d.a);  // rounding may reach hi; keep [lo, hi)
  }

 private:
  std::mt19937_64 gen_;
  double spare_ = 0;
  bool has_spare_ = false;
};

void check_dist(const ValueDist& d) {
  if (d.kind == ValueDist::Kind::Normal) {
    if (!std::isfinite(d.a) || !std::isfinite(d.b) || d.b < 0) {
      throw Error("random normal needs a finite mean and a finite stddev >= 0, got mean " +
                  std::to_string(d.a) + ", stddev " + std::to_string(d.b));
    }
  } else if (!(d.a < d.b) || !std::isfinite(d.b - d.a)) {
    throw Error("random uniform needs finite lo < hi, got [" + std::to_string(d.a) + ", " +
                std::to_string(d.b) + ")");
  }
}

Tensor dense_values(const std::vector<std::int64_t>& shape, const ValueDist& d,
                    std::uint64_t seed) {
  check_dist(d);
  Tensor t;
  t.shape = shape;
  const auto n = static_cast<std::size_t>(checked_numel(shape));
  Source src(seed);
  t.values.resize(n);
  for (double& v : t.values) v = src.value(d);
  return t;
}

// k distinct positions in [0, n), sorted (Floyd's algorithm; k <= n / 2 keeps the set small).
std::vector<std::uint64_t> sample_positions(std::uint64_t k, std::uint64_t n, Source& src) {
  const bool complement = k > n / 2;
  const std::uint64_t draw = complement ? n - k : k;
  std::unordered_set<std::uint64_t> chosen;
  chosen.reserve(static_cast<std::size_t>(draw));
  for (std::uint64_t j = n - draw; j < n; ++j) {
    const std::uint64_t t = src.below(j + 1);
    chosen.insert(chosen.count(t) ? j : t);
  }
  std::vector<std::uint64_t> out;
  if (complement) {
    out.reserve(static_cast<std::size_t>(k));
    for (std::uint64_t p = 0; p < n; ++p) {
      if (!chosen.count(p)) out.push_back(p);
    }
  } else {
    out.assign(chosen.begin(), chosen.end());
    std::sort(out.begin(), out.end());
  }
  return out;
}

}  // namespace

Tensor random_normal(const std::vector<std::int64_t>& shape, double mean, double stddev,
                     std::uint64_t seed) {
  return dense_values(shape, ValueDist::normal(mean, stddev), seed);
}

Tensor random_uniform(const std::vector<std::int64_t>& shape, double lo, double hi,
                      std::uint64_t seed) {
  return dense_values(shape, ValueDist::uniform(lo, hi), seed);
}

Tensor random_int(const std::vector<std::int64_t>& shape, std::int64_t lo,
                  std::int64_t hi_exclusive, std::uint64_t seed) {
  if (lo >= hi_exclusive) {
    throw Error("random_int needs lo < hi, got [" + std::to_string(lo) + ", " +
                std::to_string(hi_exclusive) + ")");
  }
  Tensor t;
  t.elem = ElemType::I64;
  t.shape = shape;
  t.ints.resize(static_cast<std::size_t>(checked_numel(shape)));
  const std::uint64_t range =
      static_cast<std::uint64_t>(hi_exclusive) - static_cast<std::uint64_t>(lo);
  Source src(seed);
  for (auto& v : t.ints)
    v = static_cast<std::int64_t>(static_cast<std::uint64_t>(lo) + src.below(range));
  return t;
}

Tensor random_sparse(std::int64_t rows, std::int64_t cols, Storage storage, SparseFill fill,
                     ValueDist values, std::uint64_t seed) {
  if (storage == Storage::Dense) throw Error("random_sparse makes csr or coo tensors, not dense");
  check_dist(values);
  const std::vector<std::int64_t> shape = {rows, cols};
  const auto n = static_cast<std::uint64_t>(checked_numel(shape));
  std::int64_t nnz = fill.count;
  if (nnz < 0) {
    if (!(fill.density >= 0 && fill.density <= 1)) {
      throw Error("random_sparse density must lie in [0, 1], got " + std::to_string(fill.density));
    }
    nnz = std::llround(fill.density * static_cast<double>(n));
  }
  if (static_cast<std::uint64_t>(nnz) > n) {
    throw Error("random_sparse cannot store " + std::to_string(nnz) + " distinct entries in a " +
                std::to_string(rows) + " x " + std::to_string(cols) + " matrix");
  }
  Source src(seed);
  const std::vector<std::uint64_t> pos = sample_positions(static_cast<std::uint64_t>(nnz), n, src);
  Tensor t;
  t.storage = Storage::Coo;
  t.shape = shape;
  t.coords.reserve(2 * pos.size());
  t.values.reserve(pos.size());
  const auto ucols = static_cast<std::uint64_t>(cols);
  for (std::uint64_t p : pos) {
    t.coords.push_back(static_cast<std::int64_t>(p / ucols));
    t.coords.push_back(static_cast<std::int64_t>(p % ucols));
  }
  for (std::size_t k = 0; k < pos.size(); ++k) t.values.push_back(src.value(values));
  return storage == Storage::Csr ? to_csr(t) : t;
}

}  // namespace adlab::ir
