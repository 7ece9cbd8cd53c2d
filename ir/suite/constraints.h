// A manifest entry's `constraints` (docs/suites.md): the input domains its generators promise,
// checked on the generated inputs so that a generator that breaks them is an error, not a check
// on inputs outside the domain the entry claims.
#pragma once

#include <string>
#include <vector>

#include "ir/function.h"
#include "ir/suite/manifest.h"
#include "ir/tensor/tensor.h"

namespace adlab::ir {

// Each constraint is a chain of comparisons of arithmetic over parameters (every entry of a
// tensor: elementwise, a scalar broadcasts), sizes and numbers, with abs(e) and sum(e):
// `x > 0.1`, `0 <= idx < n`, `abs(sum(a) - 2) > 0.1`. `no_kinks(x, m)` is a hint to the
// checker's kink detection (its margin applies) and is not evaluated here. Throws adlab::Error
// naming the entry, the constraint and the first entry that breaks it.
void check_constraints(const Function& f, const SuiteEntry& e, const std::vector<Tensor>& inputs,
                       const SizeMap& sizes);

}  // namespace adlab::ir
