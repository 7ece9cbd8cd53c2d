// Functions and modules.
#include "ir/function.h"

#include <algorithm>
#include <unordered_set>

#include "ir/substitute.h"
#include "ir/visitor.h"

namespace adlab::ir {

bool same_modulo_callees(Expr a, Expr b) {
  if (a == b) return true;
  if (a->kind != b->kind || a->type != b->type) return false;
  if (auto* ca = a.as<Call>()) {
    if (ca->callee->name != b.as<Call>()->callee->name) return false;
  }
  auto xa = children(a), xb = children(b);
  if (xa.size() != xb.size()) return false;
  for (std::size_t k = 0; k < xa.size(); ++k)
    if (!same_modulo_callees(xa[k], xb[k])) return false;
  // Children agree (modulo callees); the node's own attributes must agree too.
  switch (a->kind) {
    case NodeKind::Literal:
      return a.as<Literal>()->value == b.as<Literal>()->value && a->flexible == b->flexible;
    case NodeKind::Var:
      return a.as<Var>()->name == b.as<Var>()->name;
    case NodeKind::Unary:
      return a.as<Unary>()->op == b.as<Unary>()->op;
    case NodeKind::Binary:
      return a.as<Binary>()->op == b.as<Binary>()->op;
    case NodeKind::Prim:
      return a.as<Prim>()->op == b.as<Prim>()->op;
    case NodeKind::Reduce:
      return a.as<Reduce>()->op == b.as<Reduce>()->op;
    case NodeKind::Scan:
      return a.as<Scan>()->op == b.as<Scan>()->op;
    case NodeKind::Proj:
      return a.as<Proj>()->index == b.as<Proj>()->index;
    default:
      return true;
  }
}

bool is_bound_by_params(const Function& f, Expr s) {
  for (auto p : f.params) {
    if (p == s) return true;
    for (auto d : p->type.dims)
      if (d == s) return true;
  }
  return false;
}

std::vector<Expr> Function::free_sizes() const {
  std::vector<Expr> out;
  for (auto s : sizes)
    if (!is_bound_by_params(*this, s)) out.push_back(s);
  return out;
}

Expr Function::body_expr() const {
  Expr e = results.size() == 1 ? results[0] : Tuple::make(results);
  for (auto it = stmts.rbegin(); it != stmts.rend(); ++it) e = Let::make(it->vars, it->value, e);
  return e;
}

const Stmt* Function::find_stmt(const std::string& var) const {
  for (const auto& s : stmts)
    for (auto v : s.vars)
      if (var_name(v) == var) return &s;
  return nullptr;
}

int Function::param_index(const std::string& name) const {
  for (std::size_t k = 0; k < params.size(); ++k)
    if (var_name(params[k]) == name) return static_cast<int>(k);
  return -1;
}

FunctionPtr Module::find(const std::string& name) const {
  for (const auto& f : functions)
    if (f->name == name) return f;
  return nullptr;
}

FunctionPtr Module::entry(const std::string& name) const {
  if (functions.empty()) throw Error(SourcePos{file, 1, 1}, "the file defines no function");
  if (name.empty()) return functions.back();
  if (auto f = find(name)) return f;
  std::string have;
  for (const auto& f : functions) have += (have.empty() ? "" : ", ") + f->name;
  throw Error(SourcePos{file, 1, 1}, "no function `" + name + "` in this file",
              {"it defines: " + have});
}

std::size_t count_nodes(const Function& f, NodeKind k) {
  std::unordered_set<const ExprNode*> seen;
  std::vector<Expr> work(f.results.begin(), f.results.end());
  for (const auto& s : f.stmts) work.push_back(s.value);
  std::size_t n = 0;
  while (!work.empty()) {
    Expr e = work.back();
    work.pop_back();
    if (!seen.insert(e.get()).second) continue;
    if (e->kind == k) ++n;
    for (auto c : children(e)) work.push_back(c);
  }
  return n;
}

}  // namespace adlab::ir
