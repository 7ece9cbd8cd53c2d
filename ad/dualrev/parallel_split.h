// Splits an IR function at its top-level parallel loops, `let y = gen[i < n, ...] body` and
// `let s = sum[i < n, ...] body` (a floating scalar), so that their iterations run as fork-join
// tasks (paper 003 section 12: the iterations are independent, the parallel points of DESIGN
// 2.3), each chunk through its own Interpreter<Dual>.
#pragma once

#include <optional>
#include <vector>

#include "ir/function.h"

namespace adlab::ad::dualrev {

// f = post(params, pre vars, combine_c chunk(params, pre vars, lo_c, len_c)) with
// pre vars = pre(params); every piece is an ordinary ir::Function (type-checked). `combine` is
// concatenation along the first dimension for a gen, and addition in chunk order for a sum.
struct ParallelSplit {
  bool is_sum = false;
  ir::FunctionPtr pre;    // (params) -> the variables bound before the loop; null if none
  ir::FunctionPtr bound;  // (params) -> i64: the loop's first bound
  ir::FunctionPtr chunk;  // (params, pre vars, lo, len) -> gen/sum[i < len, ...] body{i := lo + i}
  ir::FunctionPtr post;   // (params, pre vars, y) -> f's results
  std::size_t pre_var_count = 0;
};

// The split at f's first top-level parallel loop, or nothing when f has no top-level statement
// binding one variable to a gen over a rectangular domain or a floating scalar sum over one (or
// when a piece does not type-check: f then runs whole).
std::optional<ParallelSplit> split_at_parallel_loop(const ir::Function& f);

// Every top-level parallel loop in order: split k + 1 splits split k's `post`; empty when f has
// none. At most `limit` splits (the rest runs sequentially in the last post).
std::vector<ParallelSplit> split_chain(const ir::Function& f, std::size_t limit = 64);

}  // namespace adlab::ad::dualrev
