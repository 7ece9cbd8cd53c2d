// Splits an IR function at its first top-level `let y = gen[i < n, ...] body` so that the gen's
// iterations run as fork-join tasks (paper 003 section 12: gen iterations are independent, the
// parallel points of DESIGN 2.3), each chunk through its own Interpreter<Dual>.
#pragma once

#include <optional>
#include <vector>

#include "ir/function.h"

namespace adlab::ad::dualrev {

// f = post(params, pre vars, concat_c chunk(params, pre vars, lo_c, len_c)) with
// pre vars = pre(params); every piece is an ordinary ir::Function (type-checked).
struct GenSplit {
  ir::FunctionPtr pre;    // (params) -> the variables bound before the gen; null if none
  ir::FunctionPtr bound;  // (params) -> i64: the gen's first bound
  ir::FunctionPtr chunk;  // (params, pre vars, lo, len) -> gen[i < len, ...] body{i := lo + i}
  ir::FunctionPtr post;   // (params, pre vars, y) -> f's results
  std::size_t pre_var_count = 0;
};

// The split, or nothing when f has no top-level gen statement binding one variable over a
// rectangular domain (or when a piece does not type-check: f then runs whole).
std::optional<GenSplit> split_at_gen(const ir::Function& f);

}  // namespace adlab::ad::dualrev
