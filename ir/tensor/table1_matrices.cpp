// Synthetic Table 1 matrices (paper 004 Table 1, digest 004 section 7.4).
#include "ir/tensor/table1_matrices.h"

#include <algorithm>
#include <random>

#include "ir/error.h"
#include "ir/tensor/random.h"

namespace adlab::ir {

namespace {

// Unbiased uniform integer in [0, range) from the raw mt19937_64 stream.
std::int64_t bounded(std::mt19937_64& gen, std::int64_t range) {
  const auto r = static_cast<std::uint64_t>(range);
  const std::uint64_t limit = -r % r;  // 2^64 mod r: reject the lowest words
  std::uint64_t x = gen();
  while (x < limit) x = gen();
  return static_cast<std::int64_t>(x % r);
}

// `count` distinct values of [0, range) (Floyd's sampling), sorted.
std::vector<std::int64_t> distinct(std::mt19937_64& gen, std::int64_t range, std::int64_t count) {
  std::vector<std::int64_t> picked;
  picked.reserve(static_cast<std::size_t>(count));
  for (std::int64_t j = range - count; j < range; ++j) {
    std::int64_t t = bounded(gen, j + 1);
    if (std::find(picked.begin(), picked.end(), t) == picked.end())
      picked.push_back(t);
    else
      picked.push_back(j);
  }
  std::sort(picked.begin(), picked.end());
  return picked;
}

}  // namespace

const std::vector<Table1Matrix>& table1_matrices() {
  static const std::vector<Table1Matrix> m = {
      {"bcsprw10", 5300, 22000, true, "Power Network"},
      {"nopoly", 10000, 70000, true, "Undirected Weighted Graph"},
      {"pdb1HYS", 36000, 2190000, true, "Undirected Weighted Graph"},
      {"rma10", 46000, 2370000, false, "Computational Fluid Dynamics"},
      {"cant", 62000, 2030000, true, "Finite Element Method"},
      {"consph", 83000, 3050000, true, "Finite Element Method"},
      {"cop20k_A", 121000, 1360000, true, "Finite Element Method"},
  };
  return m;
}

const Table1Matrix& table1_matrix(const std::string& name) {
  for (const auto& m : table1_matrices())
    if (m.name == name) return m;
  std::string known;
  for (const auto& m : table1_matrices()) known += (known.empty() ? "" : ", ") + m.name;
  throw Error("no Table 1 matrix `" + name + "` (" + known + ")");
}

Tensor synthetic_table1(const Table1Matrix& m, std::uint64_t seed, bool expand_symmetric) {
  const std::int64_t n = m.n;
  const std::int64_t off = m.nnz_listed - n;  // off-diagonal entries to place
  if (off < 0) throw Error("Table 1 matrix `" + m.name + "` lists fewer entries than rows");
  const std::int64_t bandwidth = std::max<std::int64_t>(8, 4 * ((off + n - 1) / n));
  std::mt19937_64 gen(seed);
  std::vector<std::vector<std::int64_t>> cols(static_cast<std::size_t>(n));
  std::int64_t remaining = off;
  for (std::int64_t i = 0; i < n; ++i) {
    auto& row = cols[static_cast<std::size_t>(i)];
    const std::int64_t want = (remaining + (n - i) - 1) / (n - i);  // spread evenly
    if (m.symmetric) {
      const std::int64_t avail = std::min(i, bandwidth);  // offsets 1..avail below the diagonal
      const std::int64_t k = std::min(want, avail);
      for (std::int64_t d : distinct(gen, avail, k)) row.push_back(i - 1 - d);
      remaining -= k;
    } else {
      const std::int64_t lo = std::max<std::int64_t>(0, i - bandwidth);
      const std::int64_t hi = std::min(n - 1, i + bandwidth);
      const std::int64_t avail = hi - lo;  // the band without the diagonal
      const std::int64_t k = std::min(want, avail);
      for (std::int64_t c : distinct(gen, avail, k))
        row.push_back(lo + c >= i ? lo + c + 1 : lo + c);
      remaining -= k;
    }
    row.push_back(i);
  }
  if (remaining != 0)
    throw Error("Table 1 matrix `" + m.name + "`: the band cannot hold its entries");
  if (m.symmetric && expand_symmetric) {
    std::vector<std::vector<std::int64_t>> upper(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j : cols[static_cast<std::size_t>(i)])
        if (j != i) upper[static_cast<std::size_t>(j)].push_back(i);
    for (std::int64_t i = 0; i < n; ++i) {
      auto& row = cols[static_cast<std::size_t>(i)];
      auto& up = upper[static_cast<std::size_t>(i)];
      row.insert(row.end(), up.begin(), up.end());
    }
  }
  Tensor t;
  t.storage = Storage::Csr;
  t.shape = {n, n};
  t.row_ptr.push_back(0);
  for (std::int64_t i = 0; i < n; ++i) {
    auto& row = cols[static_cast<std::size_t>(i)];
    std::sort(row.begin(), row.end());
    t.col_idx.insert(t.col_idx.end(), row.begin(), row.end());
    t.row_ptr.push_back(static_cast<std::int64_t>(t.col_idx.size()));
  }
  t.values.reserve(t.col_idx.size());
  if (m.symmetric && expand_symmetric) {  // a symmetric value: drawn per unordered pair
    std::vector<std::int64_t> pos(t.row_ptr.begin(), t.row_ptr.end() - 1);
    t.values.assign(t.col_idx.size(), 0.0);
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t p = t.row_ptr[static_cast<std::size_t>(i)];
           p < t.row_ptr[static_cast<std::size_t>(i) + 1]; ++p) {
        const std::int64_t j = t.col_idx[static_cast<std::size_t>(p)];
        if (j > i) break;  // lower triangle and diagonal: draw, and mirror into row j
        const double v = rng::uniform01(gen()) * 2 - 1;
        t.values[static_cast<std::size_t>(p)] = v;
        if (j != i) {
          // (j, i) is the next not-yet-filled upper entry of row j, in increasing i
          auto& q = pos[static_cast<std::size_t>(j)];
          while (t.col_idx[static_cast<std::size_t>(q)] != i) ++q;
          t.values[static_cast<std::size_t>(q)] = v;
        }
      }
  } else {
    for (std::size_t p = 0; p < t.col_idx.size(); ++p)
      t.values.push_back(rng::uniform01(gen()) * 2 - 1);
  }
  return t;
}

}  // namespace adlab::ir
