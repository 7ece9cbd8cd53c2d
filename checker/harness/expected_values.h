// A manifest entry's expected primal results (docs/suites.md `expected`): the papers' printed
// values and closed forms, compared by `adlab check` and `adlab eval-suite` alike.
#pragma once

#include <string>
#include <vector>

#include "ir/function.h"
#include "ir/suite/manifest.h"
#include "ir/tensor/tensor.h"

namespace adlab::checker {

struct ExpectedPrimal {
  std::string source;  // "primal closed form `fn`" or "primal_values"
  std::vector<ir::Tensor> results;
};

// The function `expected.<kind>` names (`primal`, `gradient`): defined in the entry's file, with
// the entry function's parameters. Throws adlab::Error naming the entry otherwise.
ir::FunctionPtr expected_function(const ir::Module& m, const ir::Function& f,
                                  const ir::SuiteEntry& e, const std::string& kind);

// `expected.primal` (a function of the same file with the entry function's parameters, run on
// `inputs`) and `expected.primal_values` (one JSON value per result; a lone result's value
// directly). Throws adlab::Error naming the entry for a field that cannot be used.
std::vector<ExpectedPrimal> expected_primals(const ir::Module& m, const ir::Function& f,
                                             const ir::SuiteEntry& e,
                                             const std::vector<ir::Tensor>& inputs,
                                             const ir::SizeMap& sizes);

// "" when `got` matches `want`: the same number of results, element types, shapes, storage and
// sparse coordinates; floating entries within tol * max(1, |want|) (NaN matches nothing),
// integers and booleans exactly. Otherwise what differs first.
std::string compare_results(const std::vector<ir::Tensor>& got, const std::vector<ir::Tensor>& want,
                            double tol);

}  // namespace adlab::checker
