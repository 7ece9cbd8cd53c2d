// Call inlining before differentiation (paper 001 D-App, by inlining).
#include "ad/fwdvec/inline_calls.h"

#include "ad/strategy.h"
#include "ir/context.h"
#include "ir/mutator.h"
#include "ir/substitute.h"

namespace adlab::ad::fwdvec {

using namespace ir;

namespace {

// Renames every variable of a callee apart; its sizes become the call's dimensions.
class RenameApart : public Mutator {
 public:
  explicit RenameApart(SubstMap sizes) : map_(std::move(sizes)) {}
  Expr mutate_node(const Var& v, Expr self) override {
    if (auto it = map_.find(self); it != map_.end()) return it->second;
    Expr fresh = Var::make(Context::current().fresh_name(v.name), mutate_type(v.type));
    map_[self] = fresh;
    return fresh;
  }

 private:
  SubstMap map_;
};

class Inliner : public Mutator {
 public:
  Expr mutate_node(const Call& c, Expr self) override {
    std::vector<Expr> args;
    for (auto a : c.args) args.push_back(mutate(a));
    const Function& f = *c.callee;
    SubstMap sizes;
    for (std::size_t k = 0; k < f.params.size(); ++k) {
      const Type& pt = f.params[k]->type;
      const Type& at = args[k]->type;
      for (std::size_t d = 0; d < pt.dims.size() && d < at.dims.size(); ++d)
        if (pt.dims[d].as<Var>() && !sizes.count(pt.dims[d])) sizes[pt.dims[d]] = at.dims[d];
    }
    for (std::size_t k = 0; k < f.params.size(); ++k)
      for (auto sz : f.sizes)
        if (sz == f.params[k] && !sizes.count(sz)) sizes[sz] = args[k];
    for (auto sz : f.sizes)
      if (!sizes.count(sz))
        throw Unsupported(
            Context::current().position(self),
            "fwdvec: a call of `" + f.name + "` whose sizes its arguments do not bind");
    RenameApart rename(sizes);
    std::vector<Expr> params;
    for (auto p : f.params) params.push_back(rename.mutate(p));
    Expr body = rename.mutate(f.body_expr());
    // a call let-binds its arguments (DESIGN 2.3)
    for (std::size_t k = params.size(); k-- > 0;)
      if (params[k].as<Var>()) body = Let::make({params[k]}, args[k], body);
    return mutate(body);  // calls inside the callee
  }
};

}  // namespace

FunctionPtr inline_calls(const Function& f) {
  auto out = std::make_shared<Function>(f);
  Inliner in;
  for (auto& s : out->stmts) s.value = in.mutate(s.value);
  for (auto& r : out->results) r = in.mutate(r);
  return out;
}

}  // namespace adlab::ad::fwdvec
