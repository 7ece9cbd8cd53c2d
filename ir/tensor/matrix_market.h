// Matrix Market files (math.nist.gov/MatrixMarket/formats.html): sparse coordinate and dense array.
#pragma once

#include <iosfwd>
#include <string>

#include "ir/tensor/tensor.h"

namespace adlab::ir {

// Reads a Matrix Market matrix.
//   coordinate (real, integer or pattern; general, symmetric or skew-symmetric) -> f64 CSR.
//     Symmetric input IS expanded: each off-diagonal entry (i, j) also stores (j, i), the
//     diagonal once; skew-symmetric input stores (j, i) with the negated value. Such files must
//     list the lower triangle only (i >= j; i > j when skew), as the standard says.
//     Duplicate keys are summed in file order (also duplicates created by the expansion).
//     Explicit zeros are kept as stored entries; pattern entries have the value 1.
//   array (real or integer; general, symmetric or skew-symmetric) -> dense f64 (the file lists
//     entries column by column; symmetric ones list the lower triangle only).
// Errors are adlab::Error positioned at the file, line and column of the offending token.
Tensor read_matrix_market(const std::string& path);
Tensor parse_matrix_market(std::istream& in, const std::string& name);

// Writes a rank-2 CSR or COO tensor as "coordinate real general": every stored entry, explicit
// zeros included, 1-based, values in the shortest form that reads back to the same double.
void write_matrix_market(const std::string& path, const Tensor& t);
void write_matrix_market(std::ostream& out, const Tensor& t);

}  // namespace adlab::ir
