// Call inlining before differentiation (paper 001 D-App, by inlining).
#include "ad/fwdvec/inline_calls.h"

#include "ad/strategy.h"
#include "ir/context.h"
#include "ir/fresh_names.h"
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
    SubstMap sizes = call_size_bindings(c);
    for (auto& binding : sizes)
      binding.second = mutate(binding.second);  // calls in a size argument
    for (auto sz : f.sizes)
      if (!sizes.count(sz))
        throw Unsupported(
            Context::current().position(self),
            "fwdvec: a call of `" + f.name + "` whose sizes its arguments do not bind");
    RenameApart rename(sizes);
    return mutate(inlined_call_body(c, args, sizes, rename));  // calls inside the callee
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
