// Call inlining before let-lifting.
#include "ad/iverson/inline_calls.h"

#include "ad/iverson/pass_util.h"
#include "ad/strategy.h"
#include "ir/context.h"
#include "ir/fresh_names.h"
#include "ir/mutator.h"

namespace adlab::ad::iverson {

using namespace ir;

namespace {

class CallInliner : public Mutator {
 public:
  explicit CallInliner(FreshNames& names) : names_(names) {}

 protected:
  Expr mutate_node(const Call& c, Expr self) override {
    std::vector<Expr> args;
    for (auto a : c.args) args.push_back(mutate(a));
    const Function& callee = *c.callee;
    SubstMap sizes = call_size_bindings(c);
    for (auto sz : callee.sizes)
      if (!sizes.count(sz))
        throw Unsupported(pos_of(self),
                          "iverson: a call whose sizes the arguments do not bind is outside "
                          "paper 000's language");
    CalleeRenamer rename(sizes, names_);
    return mutate(inlined_call_body(c, args, sizes, rename));  // calls inside the callee
  }

 private:
  FreshNames& names_;
};

}  // namespace

FunctionPtr inline_calls(const Function& f, FreshNames& names) {
  CallInliner in(names);
  std::vector<Stmt> stmts;
  for (const auto& st : f.stmts) stmts.push_back(Stmt{st.vars, in.mutate(st.value)});
  std::vector<Expr> results;
  for (auto r : f.results) results.push_back(in.mutate(r));
  return rebuilt(f, f.name, std::move(stmts), std::move(results));
}

}  // namespace adlab::ad::iverson
