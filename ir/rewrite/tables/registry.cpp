#include <algorithm>

#include "ir/error.h"
#include "ir/rewrite/tables/tables.h"

namespace adlab::ir::rewrite {

TableRegistry& TableRegistry::instance() {
  // Built on first use (a static library drops self-registering objects nobody references).
  static TableRegistry* registry = [] {
    static TableRegistry r;
    for (const RuleTable* t :
         {&iverson_table(), &iverson_laws_table(), &sum_elim_table(), &gen_index_table(),
          &let_table(), &ring_table(), &adjoint_identities_table(), &loop_table(),
          &index_arith_table(), &iverson_forward_table(), &iverson_adjoint_table(),
          &sparsity_table(), &sdql_inferred_table(), &errata_table(), &dftilde_table(),
          &dftilde_errata_table(), &flat_index_table()})
      r.add(t);
    return &r;
  }();
  return *registry;
}

void TableRegistry::add(const RuleTable* t) {
  if (find(t->name)) throw Error("rule table `" + t->name + "` is registered twice");
  tables_.push_back(t);
}

const RuleTable* TableRegistry::find(std::string_view name) const {
  auto it = std::find_if(tables_.begin(), tables_.end(),
                         [&](const RuleTable* t) { return t->name == name; });
  return it == tables_.end() ? nullptr : *it;
}

std::vector<const RuleTable*> simplify_tables() {
  return {&iverson_table(), &index_arith_table(), &sum_elim_table(), &gen_index_table(),
          &let_table(),     &ring_table(),        &loop_table()};
}

}  // namespace adlab::ir::rewrite
