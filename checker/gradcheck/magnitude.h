// The magnitude of each Jacobian entry's chain-rule terms (decision 205): what a derivative's
// rounding is relative to, where the entry itself is small or zero by cancellation.
#pragma once

#include <vector>

#include "checker/gradcheck/reference.h"

namespace adlab::checker {

// |J|: entry (i, j), row-major like Reference::jacobian, is the sum over the chain rule's paths
// from input j to output i of the products of the absolute partials, in double (a forward pass
// of sparse tangents with absolute partials). An entry whose derivative is zero by cancellation
// (a summed softmax) has the magnitude of the terms that cancel; one that no path reaches, 0.
// Empty when the pass cannot run (the reference then judges entries by their groups).
std::vector<double> reference_magnitudes(const ir::Function& f,
                                         const std::vector<ir::Tensor>& inputs,
                                         const Reference& ref, const ReferenceOptions& o = {});

// |H| for a scalar f: entry (j, k), row-major n x n over ref's wrt coordinates, is |J| of the
// gradient program fwdvec emits for f (forward over forward), i.e. the sum of the absolute
// second-order chain-rule terms of H_jk: what a Hessian entry's rounding is relative to where it
// is zero by cancellation or tiny beside its row (decision 209). Empty when fwdvec declines f or
// the pass cannot run.
std::vector<double> hessian_magnitudes(const ir::FunctionPtr& f,
                                       const std::vector<ir::Tensor>& inputs, const Reference& ref,
                                       const ReferenceOptions& o = {});

}  // namespace adlab::checker
