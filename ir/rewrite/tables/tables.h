// The rule tables (DESIGN 2.5): declared once each, in `tables/*.cpp`, reading like the papers'
// figures. The rewrite engine applies the oriented ones; `adlab rules` proves all of them.
#pragma once

#include <string_view>
#include <vector>

#include "ir/rewrite/rule.h"

namespace adlab::ir::rewrite {

// Core tables every strategy uses (issue 3).
const RuleTable& iverson_table();       // Iverson algebra, paper 000 P11 and (5.22)-(5.24)
const RuleTable& iverson_laws_table();  // identities proved but not oriented (they grow terms)
const RuleTable& sum_elim_table();      // paper 000 errata 10: SE and E∃
const RuleTable& gen_index_table();     // paper 000 (5.21) with its range guard
const RuleTable& let_table();           // paper 000 (5.1)-(5.10), 5.10 corrected
const RuleTable& ring_table();          // paper 001 Fig. 8b, each rule's domain stated honestly
const RuleTable& adjoint_identities_table();  // inner-product identities behind 000 (6.29), E6
const RuleTable& loop_table();
const RuleTable& index_arith_table();  // integer comparisons decided from the context // paper 001
                                       // Fig. 8e, e4 with its bounds check
const RuleTable& iverson_forward_table();  // paper 000 (6.1)-(6.13), first-order identities
const RuleTable& iverson_adjoint_table();  // paper 000 (6.14)-(6.28), inner-product identities
const RuleTable& sparsity_table();     // paper 004 Fig. 9: S1-S7, N1 (corrected), N2
const RuleTable& sdql_inferred_table();  // digest 004 4.3: R1-R7 with their preconditions
const RuleTable& dftilde_table();      // paper 001 Fig. 8 c, d, e2, f, g, a6 and LICM
const RuleTable& dftilde_errata_table();  // the same without their side conditions: REFUTED
const RuleTable& flat_index_table();      // (a * n + b) / n = a, (a * n + b) % n = b for 0 <= b < n
const RuleTable& errata_table();          // the papers' wrong rules: each must be REFUTED

// Every registered table, core first; strategies add theirs with register_table.
class TableRegistry {
 public:
  static TableRegistry& instance();
  void add(const RuleTable* t);
  const std::vector<const RuleTable*>& tables() const { return tables_; }
  const RuleTable* find(std::string_view name) const;

 private:
  std::vector<const RuleTable*> tables_;
};

// The oriented core tables `adlab print --simplify` applies, in order.
std::vector<const RuleTable*> simplify_tables();

}  // namespace adlab::ir::rewrite
