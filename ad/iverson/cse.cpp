// Copy propagation, CSE and dead statements on Tensor SSA.
#include "ad/iverson/cse.h"

#include <unordered_map>

#include "ir/substitute.h"

namespace adlab::ad::iverson {

using namespace ir;

SsaProgram eliminate_common_subexpressions(SsaProgram p) {
  SubstMap replaced;
  std::unordered_map<Expr, Expr, ExprHash> seen;
  std::vector<Stmt> kept;
  for (auto& st : p.stmts) {
    Expr v = st.vars[0];
    Expr val = replaced.empty() ? st.value : substitute(st.value, replaced);
    if (val.as<Var>()) {
      replaced[v] = val;
      continue;
    }
    if (auto it = seen.find(val); it != seen.end() && it->second->type == v->type) {
      replaced[v] = it->second;
      continue;
    }
    seen[val] = v;
    kept.push_back(Stmt{{v}, val});
  }
  for (auto& r : p.results)
    if (!replaced.empty()) r = substitute(r, replaced);
  // dead statements
  VarSet live;
  for (auto r : p.results)
    for (auto v : free_vars(r)) live.insert(v);
  std::vector<Stmt> out;
  for (auto it = kept.rbegin(); it != kept.rend(); ++it) {
    if (!live.count(it->vars[0])) continue;
    for (auto v : free_vars(it->value)) live.insert(v);
    out.push_back(*it);
  }
  p.stmts.assign(out.rbegin(), out.rend());
  return p;
}

}  // namespace adlab::ad::iverson
