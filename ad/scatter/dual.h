// Paper 002 section 4.6 (dual phase): kernels visited in reverse with a contribution map
// (label -> list of adjoint programs); indexing adjoints become scatter-adds (Permute (+)), a
// fold's and a max's adjoints are built from scans, sums broadcast.
#pragma once

#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ad/scatter/flatten.h"
#include "ad/scatter/scalar_adjoint.h"
#include "ir/function.h"

namespace adlab::ad::scatter {

class Dual {
 public:
  // active: the differentiated parameters; activity propagates through the kernels.
  Dual(const FlatProgram& p, const std::vector<ir::Expr>& wrt, FreshNames& names);
  // Adds an adjoint contribution (a full value of var's type) to a top-level variable.
  void seed(ir::Expr var, ir::Expr adjoint);
  // Appends the dual statements; returns the adjoint of each wrt parameter.
  std::vector<ir::Expr> run(std::vector<ir::Stmt>& out);

 private:
  const FlatProgram& p_;
  std::vector<ir::Expr> wrt_;
  FreshNames& names_;
  std::unordered_set<ir::Expr, ir::ExprHash> active_;
  std::unordered_map<ir::Expr, std::vector<ir::Expr>, ir::ExprHash> contrib_;
  std::vector<ir::Stmt>* out_ = nullptr;

  bool is_active(ir::Expr v) const { return active_.count(v) > 0; }
  ir::Expr emit(const std::string& hint, ir::Expr value);
  ir::Expr collect(ir::Expr var, const std::string& hint);
  void assemble(const std::vector<Contribution>& cs, const std::vector<ir::Expr>& vars,
                const std::vector<ir::Expr>& hull, ir::Expr guard);
  // The suffix products prod_{j > q} partial_j over a kernel's inner index q < n (1 past the
  // end): the per-step partials as a Map kernel, then a reversed scan (*). Returns the scan's
  // variable and the suffix at q.
  std::pair<ir::Expr, ir::Expr> suffix_products(const Kernel& k, ir::Expr q, ir::Expr n,
                                                ir::Expr partial, const std::string& hint,
                                                ir::ElemType t);
  void dual_kernel(const Kernel& k, ir::Expr dk);
  void dual_reduce(const Kernel& k, ir::Expr g);
  void dual_maxmin(const Kernel& k, ir::Expr g);
  void dual_fold(const Kernel& k, ir::Expr g);
  void dual_scan(const Kernel& k, ir::Expr dk);
};

}  // namespace adlab::ad::scatter
