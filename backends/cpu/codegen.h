// IR -> C++ translation unit for the cpu backend (DESIGN 5): one unit per function, loop nests,
// OpenMP on outermost parallel gen/sum, contractions handed to prebuilt kernels.
#pragma once

#include <string>
#include <vector>

#include "backends/backend.h"
#include "ir/function.h"

namespace adlab::backends {

namespace cpu {

using ir::Expr;

// A place in the IR that generated code can fail at; `text` has {a} {b} {c} placeholders for
// the numbers the failure carries.
struct Site {
  Expr at;
  std::string text;
  SourcePos function_start;  // of the function the site is in: its occurrence is cited
};

struct Unit {
  std::string source;                    // the translation unit
  std::vector<Site> sites;               // indexed by the site number of adlab_rt::Failure
  std::vector<std::string> line_origin;  // per source line (1-based): the IR statement emitted
};

// The entry point of every unit is `extern "C" int adlab_entry(...)` (see runtime header).
// Throws Unsupported for constructs without a translation.
Unit generate(const ir::Function& f);

}  // namespace cpu
}  // namespace adlab::backends
