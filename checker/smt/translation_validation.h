// Translation validation (DESIGN 4.1): a program and its transformed form, unrolled at concrete
// sizes, proved equal as real-valued terms over symbolic inputs. Used by the tests of every pass
// that is not a local rule (normalisation passes, AD itself).
#pragma once

#include <map>
#include <string>

#include "checker/smt/rule_prover.h"
#include "ir/function.h"

namespace adlab::checker::smt {

struct ValidationOptions {
  unsigned timeout_ms = 20000;  // for the whole solver query
};

struct Validation {
  Verdict verdict = Verdict::Unknown;  // PROVED (at these sizes), REFUTED or UNKNOWN
  std::string counterexample;          // REFUTED: inputs and the first differing result entry
  std::string detail;                  // UNKNOWN: why
  std::size_t entries = 0;             // result entries compared
  std::size_t syntactic = 0;           // of which equal after polynomial normalisation
  double seconds = 0;
};

// f and g must have the same parameters (by position: types and shapes) and result types.
// `sizes`: every size of f and g by name. Primitives are uninterpreted (exp(a) = exp(b) only when
// a = b), so only rewrites valid for every function in that place are proved. Results must have
// the same types at these sizes, and be defined (not fail) for the same inputs, entry by entry
// and as a whole (decision 230). Not modelled: i64 overflow (integers are unbounded) and f32
// rounding (f32 arithmetic is exact real arithmetic; `f32(...)` conversions are uninterpreted).
Validation validate_equivalent(const ir::Function& f, const ir::Function& g,
                               const std::map<std::string, std::int64_t>& sizes,
                               const ValidationOptions& o = {});

}  // namespace adlab::checker::smt
