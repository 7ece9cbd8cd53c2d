// Copy propagation, CSE up to the names of bound indices, and dead statements on Tensor SSA.
#include "ad/iverson/cse.h"

#include <string>
#include <unordered_map>

#include "ir/mutator.h"
#include "ir/substitute.h"
#include "ir/syntax/printer.h"

namespace adlab::ad::iverson {

using namespace ir;

namespace {

// Canonical naming (digest 000 section 4): a value's bound variables renamed by order of first
// occurrence, its free ones kept. The renaming is injective and the names (`%0`, `%1`, ...) are
// not names of the syntax, so nothing is captured: equal keys mean alpha-equivalent values.
class CanonicalBinders : public Mutator {
 public:
  explicit CanonicalBinders(VarSet free) : free_(std::move(free)) {}
  Expr mutate_node(const Var& v, Expr self) override {
    if (free_.count(self)) return self;
    auto it = renamed_.find(self);
    if (it == renamed_.end())
      it = renamed_
               .emplace(self, Var::make("%" + std::to_string(renamed_.size()), mutate_type(v.type)))
               .first;
    return it->second;
  }

 private:
  VarSet free_;
  std::unordered_map<Expr, Expr, ExprHash> renamed_;
};

// Every bound variable printed alike: an order of operands that does not depend on index names.
class BlindBinders : public Mutator {
 public:
  explicit BlindBinders(const VarSet& free) : free_(free) {}
  Expr mutate_node(const Var& v, Expr self) override {
    return free_.count(self) ? self : Var::make("%", mutate_type(v.type));
  }

 private:
  const VarSet& free_;
};

// The operands of + and * in a fixed order (digest 000 section 4: terms and factors in a fixed
// total order): exact in IEEE arithmetic, where both are commutative.
class OrderOperands : public Mutator {
 public:
  explicit OrderOperands(const VarSet& free) : blind_(free) {}
  // Variables stay themselves: the base rebuilds one whose type changes, and ordering `n * 2`
  // in the type of a free `a: f64[n * 2]` made a new variable that CanonicalBinders then took
  // for a bound one, so `sum a` and `sum b` got one key and were merged (decision 180).
  Expr mutate_node(const Var& v, Expr self) override {
    (void)v;
    return self;
  }
  Expr mutate_node(const Binary& n, Expr self) override {
    Expr a = mutate(n.a), b = mutate(n.b);
    if ((n.op == BinaryOp::Add || n.op == BinaryOp::Mul) &&
        expr_str(blind_.mutate(b)) < expr_str(blind_.mutate(a)))
      std::swap(a, b);
    return Binary::make(n.op, a, b);
  }

 private:
  BlindBinders blind_;
};

Expr canonical_key(Expr value) {
  auto fv = free_vars(value);
  VarSet free(fv.begin(), fv.end());
  return CanonicalBinders(free).mutate(OrderOperands(free).mutate(value));
}

}  // namespace

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
    Expr key = canonical_key(val);
    if (auto it = seen.find(key); it != seen.end() && it->second->type == v->type) {
      replaced[v] = it->second;
      continue;
    }
    seen[key] = v;
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
