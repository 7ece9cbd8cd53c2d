// Synthetic stand-ins for the seven SuiteSparse matrices of paper 004 Table 1 (digest 004 section
// 7.4): the same dimensions and stored-entry counts, a documented band structure, seeded values.
// The real files run through read_matrix_market (ir/tensor/matrix_market.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/tensor/tensor.h"

namespace adlab::ir {

// One row of Table 1, as printed (dimensions and # NNZ are the paper's rounded values).
struct Table1Matrix {
  std::string name;         // the paper's spelling (bcsprw10 is SuiteSparse's bcspwr10)
  std::int64_t n;           // n x n
  std::int64_t nnz_listed;  // the # NNZ column: the lower triangle for symmetric matrices
  bool symmetric;           // digest 004 section 7.4: density matches 2 NNZ / n^2 for these
  std::string description;
};

const std::vector<Table1Matrix>& table1_matrices();
const Table1Matrix& table1_matrix(const std::string& name);  // throws adlab::Error

// A CSR n x n matrix with the row's structure:
//   symmetric: nnz_listed entries in the lower triangle (the whole diagonal, the rest at
//   distinct column offsets 1..bandwidth below it, spread evenly over the rows), expanded to
//   both triangles as the Matrix Market reader expands symmetric files (about 2 nnz_listed
//   stored entries) unless expand_symmetric is false;
//   unsymmetric: nnz_listed entries, the diagonal plus distinct columns within the band
//   |i - j| <= bandwidth.
// bandwidth = 4 x the mean off-diagonal entries per row (at least 8): a finite-element-like
// banded pattern. Values are uniform in [-1, 1), seeded; the pattern and values depend only on
// the seed.
Tensor synthetic_table1(const Table1Matrix& m, std::uint64_t seed, bool expand_symmetric = true);

}  // namespace adlab::ir
