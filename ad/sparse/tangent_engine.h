// The sparse strategy's engine: one tensorised forward pass (paper 004 Fig. 6-7) gives every
// mode; tangents stay sparse, so the work follows stored entries, not dense sizes.
#pragma once

#include <memory>
#include <vector>

#include "ad/sparse/sparse_dual.h"
#include "ad/strategy.h"
#include "ir/interp/interpreter.h"

namespace adlab::ad::sparse {

// tau: the stored entries of the differentiated parameters, one coordinate each, in parameter
// order (a dense parameter stores every entry; a sparse one only its pattern: DESIGN 2.3).
struct TauLayout {
  std::vector<std::size_t> params;    // positions of the wrt parameters
  std::vector<std::int64_t> offsets;  // first coordinate of each, plus the total at the end
  std::int64_t size() const { return offsets.empty() ? 0 : offsets.back(); }
};

// One pass: the results with their tangents D_tau[[e]], and the work it took.
struct TangentPass {
  std::vector<ir::BasicTensor<SparseDual>> results;
  TauLayout tau;
  ir::OpCounts primal_counts;    // the interpreter's count of the primal work
  TangentCounts tangent_counts;  // tangent scalings and merges
  ir::OpCounts total() const;
  std::int64_t tangent_entries() const;  // stored tangent entries of all results
};

// gradient e x (paper 004 Fig. 7): the wrt parameters are seeded with onehot[D] x (one
// coordinate per stored entry), the others with ingrad = zero[D (x) tau] (the errata's type).
TangentPass tangent_pass(const ir::Function& f, const std::vector<ir::Tensor>& inputs,
                         const std::vector<std::size_t>& wrt, const ir::EvalOptions& options);

// How a Jacobian block is returned: dense f64[outputs..., inputs...] (the calling convention of
// DESIGN 2.3) or COO with exactly the tangent's stored entries (variant `coo`).
enum class JacobianLayout { Dense, Coo };

std::unique_ptr<backends::Executable> make_tangent_engine(ir::FunctionPtr f, const Request& r,
                                                          JacobianLayout layout,
                                                          const backends::Options& o);

}  // namespace adlab::ad::sparse
