// Paper 002 section 4.5 (primal phase, labelling): a function becomes a list of top-level
// kernels; every let, binder and call inside a binder body is hoisted into its own array over the
// enclosing domain (the stored temporaries a_ntmp), guarded by the conditions of the enclosing
// selects and brackets so that only taken branches are evaluated.
#pragma once

#include <vector>

#include "ad/scatter/kernel.h"
#include "ir/function.h"

namespace adlab::ad::scatter {

struct FlatProgram {
  std::vector<Kernel> kernels;    // in evaluation order
  std::vector<ir::Expr> results;  // one top-level variable (kernel or parameter) per result
};

// store = true: scalar lets inside binder bodies are stored as arrays (the faithful algorithm);
// false: they are inlined and so recomputed in the dual (the "recompute" variant, section 7.5).
// Throws ad::Unsupported for constructs the transformation does not handle.
FlatProgram flatten(const ir::Function& f, bool store, FreshNames& names);

}  // namespace adlab::ad::scatter
