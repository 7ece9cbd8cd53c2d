// The reference interpreter: the executable semantics of the IR (DESIGN 2.3), templated on the
// floating scalar type (float, double, mp50), bounds-checked, counting operations (DESIGN 4.3).
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "ir/function.h"
#include "ir/interp/op_counts.h"
#include "ir/interp/value.h"

namespace adlab::ir {

struct EvalOptions {
  std::map<std::string, std::int64_t> sizes;  // sizes no parameter binds (`--size m=5`)
  bool count_ops = true;
  bool track_kinks = false;  // record how close the run came to a non-smooth switch
  // When set, only switches at these nodes are kinks (those a differentiated input can move).
  const std::unordered_set<const ExprNode*>* kink_nodes = nullptr;
  // Non-zero: the checker's rounding probe (decision 239). In 50-digit runs, each floating
  // operation's result is multiplied by 1 + s 2^-53, s = +-1 from a pseudo-random sequence of
  // this seed in evaluation order (restarted by every run), so the run computes a smooth function
  // one double rounding per operation away from f. Other scalar types ignore it.
  std::uint64_t rounding_probe = 0;
};

// The closest a run came to a point where it is not differentiable: a comparison of numbers
// (select, brackets on data), abs, min/max, max/min reductions, floor/round/i64 conversions.
// margin is relative: |a - b| / max(1, |a|, |b|) (distance to the nearest integer for
// floor and conversions, to the nearest half-integer for round).
struct KinkReport {
  double margin = std::numeric_limits<double>::infinity();
  Expr where;        // the node, for its position
  std::string what;  // "comparison", "abs", "max reduction", ...
  // A hash of every non-smooth decision taken (branches, argmax choices, signs of abs,
  // floor/round/i64 values). Two runs with equal hashes took the same smooth piece, so a
  // finite-difference stencil whose runs all match the base run crossed no switch.
  std::uint64_t branches = 0;
  // The same for branch points apart: whether each sqrt's (pow's, below an exponent of 1) base
  // is exactly 0. A stencil that changes only these moved a base off 0, which is a kink only
  // where the function's one-sided slopes differ (|x| = sqrt(x x), not x^2 = sqrt(x^4);
  // decision 249). The first such node evaluated at 0, for the note; no margin.
  std::uint64_t branch_points = 0;
  Expr branch_point;
  // The same for the second derivative: sqrt's bases and pow's below an exponent of 2 (other
  // than 1) at 0, where f'' may jump or blow up while f' exists (|x|^3 = (x x)^1.5, x |x|;
  // the hvp reference's test, decision 257).
  std::uint64_t second_order_branch_points = 0;
};

template <class T>
class Interpreter {
 public:
  explicit Interpreter(EvalOptions options = {});
  ~Interpreter();
  Interpreter(const Interpreter&) = delete;
  Interpreter& operator=(const Interpreter&) = delete;

  // Evaluates f on its arguments (one per parameter): one value per result.
  // Throws adlab::Error for shape mismatches, out-of-range accesses and other runtime errors.
  std::vector<Value<T>> run(const Function& f, const std::vector<Value<T>>& args);
  // The same with tensors (rank 0 for scalars) in and out.
  std::vector<BasicTensor<T>> run_tensors(const Function& f,
                                          const std::vector<BasicTensor<T>>& args);

  const OpCounts& counts() const;
  const KinkReport& kink() const;  // of the last run (with EvalOptions::track_kinks)
  // The value every size of f took in the last run.
  std::map<std::string, std::int64_t> bound_sizes(const Function& f) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Converts an argument tensor to a value of the parameter's type (rank 0 becomes a scalar).
template <class T>
Value<T> value_from_tensor(const BasicTensor<T>& t);

extern template class Interpreter<float>;
extern template class Interpreter<double>;

}  // namespace adlab::ir
