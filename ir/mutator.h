// The mutator base: rebuilds a node from mutated children and reuses it when nothing changed.
#pragma once

#include "ir/expr.h"

namespace adlab::ir {

// Whether two domains are the same nodes (a mutator keeps a node whose parts did not change).
bool same_domain(const Domain& a, const Domain& b);

class Mutator {
 public:
  virtual ~Mutator() = default;
  virtual Expr mutate(Expr e);
  // Mutates the dimension expressions of a type (sizes can be substituted).
  Type mutate_type(const Type& t);
  Domain mutate_domain(const Domain& d);

 protected:
#define ADLAB_NODE(N) virtual Expr mutate_node(const N& n, Expr self);
#include "ir/node_kinds.def"
};

}  // namespace adlab::ir
