// Fresh names and callee renaming (ir/fresh_names.h).
#include "ir/fresh_names.h"

#include "ir/visitor.h"

namespace adlab::ir {

namespace {
class NameCollector : public Visitor {
 public:
  explicit NameCollector(FreshNames& n) : names_(n) {}
  void visit_node(const Var& v, Expr self) override {
    names_.reserve(v.name);
    Visitor::visit_node(v, self);
  }
  void visit_node(const Call& c, Expr self) override {
    names_.reserve_all(*c.callee);
    Visitor::visit_node(c, self);
  }

 private:
  FreshNames& names_;
};
}  // namespace

void FreshNames::reserve_all(const Function& f) {
  NameCollector nc(*this);
  nc.visit(f.body_expr());
  for (auto p : f.params) reserve(var_name(p));
  for (auto s : f.sizes) reserve(var_name(s));
}

std::string FreshNames::fresh(const std::string& hint) {
  std::string base = hint;
  for (auto& c : base)
    if (c == '.') c = '_';
  std::string name = base;
  // base_1 .. base_{k-1} stay taken (names are never released): start after them, or n
  // requests for one base would probe O(n^2) names
  std::size_t& k = next_suffix_[base];
  if (used_.count(name)) {
    do name = base + "_" + std::to_string(++k);
    while (used_.count(name));
  }
  used_.insert(name);
  return name;
}

Expr CalleeRenamer::mutate_node(const Var& v, Expr self) {
  if (auto it = sizes_.find(self); it != sizes_.end()) return it->second;
  if (auto it = renamed_.find(self); it != renamed_.end()) return it->second;
  Expr fresh = Var::make(names_.fresh(v.name), mutate_type(v.type));
  renamed_[self] = fresh;
  return fresh;
}

SubstMap call_size_bindings(const Call& c) {
  const Function& f = *c.callee;
  SubstMap sizes;
  for (std::size_t k = 0; k < f.params.size(); ++k) {
    const Type& pt = f.params[k]->type;
    const Type& at = c.args[k]->type;
    for (std::size_t d = 0; d < pt.dims.size() && d < at.dims.size(); ++d)
      if (pt.dims[d].as<Var>() && !sizes.count(pt.dims[d])) sizes[pt.dims[d]] = at.dims[d];
  }
  for (std::size_t k = 0; k < f.params.size(); ++k)
    for (auto sz : f.sizes)
      if (sz == f.params[k] && !sizes.count(sz)) sizes[sz] = c.args[k];
  return sizes;
}

Expr inlined_call_body(const Call& c, const std::vector<Expr>& args, const SubstMap& sizes,
                       Mutator& rename) {
  const Function& f = *c.callee;
  std::vector<Expr> params;
  for (auto p : f.params) params.push_back(rename.mutate(p));
  Expr body = rename.mutate(f.body_expr());
  for (std::size_t k = params.size(); k-- > 0;)
    if (params[k].as<Var>() && !sizes.count(f.params[k]))
      body = Let::make({params[k]}, args[k], body);
  return body;
}

}  // namespace adlab::ir
