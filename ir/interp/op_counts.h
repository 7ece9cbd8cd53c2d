// Operation counts of the cost model of paper 000 (Fig. 6, rules 4.22-4.34), extended (DESIGN 4.3).
#pragma once

#include <cstdint>
#include <string>

namespace adlab::ir {

// Only floating-point work is counted; index arithmetic, reads and writes are free (paper 000
// §2.2). A product or guarded addition with a strong zero (a false Iverson bracket) costs nothing;
// a sum of k non-zero terms costs k - 1 additions (4.30), nested sums jointly; max/min over
// n points cost n - 1 comparisons; a scatter costs one addition per contribution.
struct OpCounts {
  std::int64_t adds = 0;      // + and - (also in sums, scans and scatters)
  std::int64_t muls = 0;      // *
  std::int64_t divs = 0;      // /
  std::int64_t prims = 0;     // exp, log, pow, ... (black-box calls, 4.26)
  std::int64_t compares = 0;  // max/min reductions, select conditions on numbers
  // Not operations of the cost model: the points of every domain iterated (gen, sum, scan,
  // scatter, loop steps), under a false bracket or not. What paper 000's model leaves out.
  std::int64_t iterations = 0;

  // Paper 000's Cost: additions, multiplications and black-box calls (division is a black box).
  std::int64_t paper_cost() const { return adds + muls + divs + prims; }
  std::int64_t total() const { return adds + muls + divs + prims + compares; }
  OpCounts& operator+=(const OpCounts& o) {
    adds += o.adds;
    muls += o.muls;
    divs += o.divs;
    prims += o.prims;
    compares += o.compares;
    iterations += o.iterations;
    return *this;
  }
  std::string str() const {
    return "adds=" + std::to_string(adds) + " muls=" + std::to_string(muls) +
           " divs=" + std::to_string(divs) + " prims=" + std::to_string(prims) +
           " compares=" + std::to_string(compares) + " iterations=" + std::to_string(iterations);
  }
};

}  // namespace adlab::ir
