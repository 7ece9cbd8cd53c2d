// Pull-array fusion of a whole function (paper 001 Fig. 8c, a2) and the identity normal forms.
#include "ad/fwdvec/fuse.h"

#include "ir/rewrite/engine.h"
#include "ir/rewrite/tables/tables.h"
#include "ir/substitute.h"

namespace adlab::ad::fwdvec {

using namespace ir;

FunctionPtr fuse_gens(const Function& f) {
  auto out = std::make_shared<Function>(f);
  out->stmts.clear();
  SubstMap inlined;
  for (const auto& s : f.stmts) {
    Expr v = substitute(s.value, inlined);
    if (s.vars.size() == 1 && v.as<Gen>())
      inlined[s.vars[0]] = v;
    else
      out->stmts.push_back(Stmt{s.vars, v});
  }
  for (auto& r : out->results) r = substitute(r, inlined);
  return out;
}

FunctionPtr normalise(const Function& f) {
  auto fused = fuse_gens(f);
  auto tables = rewrite::simplify_tables();
  tables.push_back(&rewrite::flat_index_table());
  rewrite::Engine engine(tables);
  return engine.rewrite(*fused);
}

}  // namespace adlab::ad::fwdvec
