// Which results f32 arithmetic computes, and from which parameters (decision 206): the error
// model gives f32's unit roundoff only to the blocks such arithmetic lies on.
#pragma once

#include <vector>

#include "ir/function.h"

namespace adlab::checker {

struct F32Paths {
  // per result of f: an operation with an f32 result (a conversion to f32, an f32 sum, a
  // callee's) is part of its computation
  std::vector<bool> result;
  // [result][parameter]: such an operation lies on a path from the parameter to the result
  std::vector<std::vector<bool>> through;
};

// A static walk of f (statements, lets, calls, loops): a loop or a call that computes in f32
// counts for everything it reads, and a tuple let for each of its names alike (conservative).
F32Paths f32_paths(const ir::Function& f);

}  // namespace adlab::checker
