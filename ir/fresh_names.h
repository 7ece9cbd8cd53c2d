// Fresh names for source transformations, and inlining a callee: its sizes bound by the call, its
// variables renamed apart.
#pragma once

#include <string>
#include <unordered_map>
#include <unordered_set>

#include "ir/function.h"
#include "ir/mutator.h"
#include "ir/substitute.h"

namespace adlab::ir {

// Printable names that collide with none reserved: `base`, else `base_1`, `base_2`, ...
class FreshNames {
 public:
  void reserve(const std::string& n) { used_.insert(n); }
  // Every name of f: parameters, sizes, variables, and those of its callees.
  void reserve_all(const Function& f);
  // `z.0` (a pair component) is not a name in the syntax: dots become underscores.
  std::string fresh(const std::string& base);

 private:
  std::unordered_set<std::string> used_;
  std::unordered_map<std::string, std::size_t> next_suffix_;  // the last suffix taken per base
};

// Renames every variable of an inlined callee apart: its sizes become the call's expressions,
// every other variable a fresh name (the same one at each of its uses).
class CalleeRenamer : public Mutator {
 public:
  CalleeRenamer(const SubstMap& sizes, FreshNames& names) : sizes_(sizes), names_(names) {}
  Expr mutate_node(const Var& v, Expr self) override;

 private:
  const SubstMap& sizes_;
  FreshNames& names_;
  SubstMap renamed_;
};

// The callee's sizes a call binds: dimensions of its arguments' shapes, and size parameters passed
// directly. A size missing from the map is not bound by the arguments.
SubstMap call_size_bindings(const Call& c);

// The callee's body renamed by `rename` (which maps the callee's sizes to `sizes`), with each
// parameter let-bound to its argument (DESIGN 2.3: a call let-binds its arguments). A size
// parameter the call binds is the caller's size already: `let n = n` would rebind it.
Expr inlined_call_body(const Call& c, const std::vector<Expr>& args, const SubstMap& sizes,
                       Mutator& rename);

}  // namespace adlab::ir
