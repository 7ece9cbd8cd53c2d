// Replays a counterexample: the model's values become IR terms (functions of the binders become
// select chains, tensors become gens), both sides of the rule are instantiated with them and run
// on the reference interpreter in double. A refutation is confirmed when the two runs differ
// (one fails and the other does not, or the values differ as IEEE data). This is the check that
// a REFUTED verdict is real, not an artefact of the encoding.
#pragma once

#include <z3++.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "ir/rewrite/rule.h"

namespace adlab::checker::smt {

struct Replay {
  bool available = false;   // the model could be turned into IR terms
  bool confirmed = false;   // the two sides differ on it
  std::string left, right;  // "3.5", "NaN", "error: ..."
  std::string reason;       // why not available
};

// `sizes`: the concrete sizes of a bounded query (others come from the model). `deps_of` lists,
// per pattern variable, the binders it depends on (the prover's encoding).
Replay replay_counterexample(const ir::rewrite::Rule& r, const z3::model& m,
                             const std::map<ir::Expr, std::int64_t>& sizes,
                             const std::function<std::vector<ir::Expr>(ir::Expr)>& deps_of);

}  // namespace adlab::checker::smt
