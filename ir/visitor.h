// The visitor bases: Visitor recurses by default; StrictVisitor must handle every node kind.
#pragma once

#include <vector>

#include "ir/expr.h"

namespace adlab::ir {

// Every direct child of a node, in a fixed order: domain (vars, bounds, source, prefix), then
// the node's own operands in declaration order.
std::vector<Expr> children(Expr e);

// Recursing visitor: override the kinds you care about and call the base to keep recursing.
class Visitor {
 public:
  virtual ~Visitor() = default;
  void visit(Expr e);

 protected:
#define ADLAB_NODE(N) virtual void visit_node(const N& n, Expr self);
#include "ir/node_kinds.def"
  void visit_children(Expr self);
};

// Visitor with no defaults: a new node kind fails to compile until every strict visitor handles it.
template <class R>
class StrictVisitor {
 public:
  virtual ~StrictVisitor() = default;
  R visit(Expr e) {
    switch (e->kind) {
#define ADLAB_NODE(N) \
  case NodeKind::N:   \
    return visit_node(static_cast<const N&>(*e), e);
#include "ir/node_kinds.def"
    }
    return visit_node(static_cast<const Literal&>(*e), e);  // unreachable
  }

 protected:
#define ADLAB_NODE(N) virtual R visit_node(const N& n, Expr self) = 0;
#include "ir/node_kinds.def"
};

}  // namespace adlab::ir
