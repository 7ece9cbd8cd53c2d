// Default recursion of Visitor and the child enumeration every generic pass uses.
#include "ir/visitor.h"

namespace adlab::ir {

namespace {
void append_domain(std::vector<Expr>& out, const Domain& d) {
  out.insert(out.end(), d.vars.begin(), d.vars.end());
  out.insert(out.end(), d.bounds.begin(), d.bounds.end());
  if (d.source.defined()) out.push_back(d.source);
  out.insert(out.end(), d.prefix.begin(), d.prefix.end());
}
}  // namespace

std::vector<Expr> children(Expr e) {
  std::vector<Expr> out;
  switch (e->kind) {
    case NodeKind::Literal:
    case NodeKind::Var:
      break;
    case NodeKind::Unary:
      out = {e.as<Unary>()->a};
      break;
    case NodeKind::Binary:
      out = {e.as<Binary>()->a, e.as<Binary>()->b};
      break;
    case NodeKind::Prim:
      out = e.as<Prim>()->args;
      break;
    case NodeKind::Select: {
      auto* s = e.as<Select>();
      out = {s->cond, s->then_value, s->else_value};
      break;
    }
    case NodeKind::Iverson:
      out = {e.as<Iverson>()->pred, e.as<Iverson>()->body};
      break;
    case NodeKind::Exists:
      append_domain(out, e.as<Exists>()->dom);
      out.push_back(e.as<Exists>()->pred);
      break;
    case NodeKind::Nz:
      out = {e.as<Nz>()->tensor};
      out.insert(out.end(), e.as<Nz>()->indices.begin(), e.as<Nz>()->indices.end());
      break;
    case NodeKind::Access:
      out = {e.as<Access>()->tensor};
      out.insert(out.end(), e.as<Access>()->indices.begin(), e.as<Access>()->indices.end());
      break;
    case NodeKind::Gen:
      append_domain(out, e.as<Gen>()->dom);
      out.push_back(e.as<Gen>()->body);
      break;
    case NodeKind::Reduce:
      append_domain(out, e.as<Reduce>()->dom);
      out.push_back(e.as<Reduce>()->body);
      break;
    case NodeKind::Scan:
      append_domain(out, e.as<Scan>()->dom);
      out.push_back(e.as<Scan>()->body);
      break;
    case NodeKind::Loop: {
      auto* l = e.as<Loop>();
      append_domain(out, l->dom);
      out.insert(out.end(), l->state.begin(), l->state.end());
      out.insert(out.end(), l->init.begin(), l->init.end());
      out.push_back(l->body);
      break;
    }
    case NodeKind::Scatter: {
      auto* s = e.as<Scatter>();
      append_domain(out, s->dom);
      out.insert(out.end(), s->at.begin(), s->at.end());
      out.push_back(s->value);
      break;
    }
    case NodeKind::Let: {
      auto* l = e.as<Let>();
      out = l->vars;
      out.push_back(l->value);
      out.push_back(l->body);
      break;
    }
    case NodeKind::Tuple:
      out = e.as<Tuple>()->elems;
      break;
    case NodeKind::Proj:
      out = {e.as<Proj>()->tuple};
      break;
    case NodeKind::Call:
      out = e.as<Call>()->args;
      break;
  }
  return out;
}

void Visitor::visit(Expr e) {
  switch (e->kind) {
#define ADLAB_NODE(N)                         \
  case NodeKind::N:                           \
    visit_node(static_cast<const N&>(*e), e); \
    break;
#include "ir/node_kinds.def"
  }
}

void Visitor::visit_children(Expr self) {
  for (auto c : children(self)) visit(c);
}

#define ADLAB_NODE(N)                             \
  void Visitor::visit_node(const N&, Expr self) { \
    visit_children(self);                         \
  }
#include "ir/node_kinds.def"

}  // namespace adlab::ir
