// Normal-form validators (digest 000 P9).
#include "ad/iverson/normal_form.h"

#include <unordered_map>

#include "ir/context.h"
#include "ir/substitute.h"
#include "ir/syntax/printer.h"
#include "ir/visitor.h"

namespace adlab::ad::iverson {

using namespace ir;

namespace {

class SsaBodyCheck : public Visitor {
 public:
  Verdict v;
  void fail(Expr e, const std::string& why) {
    if (!v.ok) return;
    v.ok = false;
    v.reason = why + ": " + expr_str(e);
    v.pos = pos_of(e);
  }

 protected:
  void visit_node(const Let& n, Expr self) override {
    (void)n;
    fail(self, "a let in a body");
  }
  void visit_node(const Gen& n, Expr self) override {
    (void)n;
    fail(self, "a gen in a body");
  }
  void visit_node(const Call& n, Expr self) override {
    (void)n;
    fail(self, "a call in a body");
  }
  void visit_node(const Tuple& n, Expr self) override {
    (void)n;
    fail(self, "a tuple in a body");
  }
  void visit_node(const Proj& n, Expr self) override {
    (void)n;
    fail(self, "a projection in a body");
  }
  void visit_node(const Loop& n, Expr self) override {
    (void)n;
    fail(self, "a loop in a body");
  }
  void visit_node(const Scan& n, Expr self) override {
    (void)n;
    fail(self, "a scan in a body");
  }
  void visit_node(const Scatter& n, Expr self) override {
    (void)n;
    fail(self, "a scatter in a body");
  }
  void visit_node(const Reduce& n, Expr self) override {
    if (n.op != ReduceOp::Sum) fail(self, "a max/min reduction");
    Visitor::visit_node(n, self);
  }
  void visit_node(const Access& n, Expr self) override {
    if (!n.tensor.as<Var>()) fail(self, "a read of a computed tensor");
    if (n.indices.size() != n.tensor->type.rank()) fail(self, "a partial read");
    Visitor::visit_node(n, self);
  }
};

// Finds the first let, call, tuple or projection (the kind asked for).
class KindCheck : public Visitor {
 public:
  KindCheck(NodeKind kind, std::string what) : kind_(kind), what_(std::move(what)) {}
  Verdict v;

 protected:
  void found(Expr e) {
    if (!v.ok) return;
    v.ok = false;
    v.reason = what_ + ": " + expr_str(e);
    v.pos = pos_of(e);
  }
  void visit_node(const Let& n, Expr self) override {
    if (kind_ == NodeKind::Let) found(self);
    Visitor::visit_node(n, self);
  }
  void visit_node(const Call& n, Expr self) override {
    if (kind_ == NodeKind::Call) found(self);
    Visitor::visit_node(n, self);
  }
  void visit_node(const Tuple& n, Expr self) override {
    if (kind_ == NodeKind::Tuple) found(self);
    Visitor::visit_node(n, self);
  }
  void visit_node(const Proj& n, Expr self) override {
    if (kind_ == NodeKind::Proj) found(self);
    Visitor::visit_node(n, self);
  }

 private:
  NodeKind kind_;
  std::string what_;
};

// The first statement value or result of f that contains a node of this kind.
Verdict find_kind(const Function& f, NodeKind kind, const std::string& what) {
  for (const auto& st : f.stmts) {
    KindCheck c(kind, what);
    c.visit(st.value);
    if (!c.v.ok) {
      c.v.reason = "statement `" + var_name(st.vars[0]) + "`: " + c.v.reason;
      return c.v;
    }
  }
  for (auto r : f.results) {
    KindCheck c(kind, what);
    c.visit(r);
    if (!c.v.ok) return c.v;
  }
  return {};
}

class GatherCheck : public Visitor {
 public:
  Verdict v;
  int depth = 0;  // enclosing gens and sums
  void fail(Expr e, const std::string& why) {
    if (!v.ok) return;
    v.ok = false;
    v.reason = why;
    v.pos = pos_of(e);
  }

 protected:
  void visit_node(const Scatter& n, Expr self) override {
    (void)n;
    fail(self, "a scatter");
  }
  void visit_node(const Let& n, Expr self) override {
    if (depth > 0) fail(self, "a let under a gen or sum");
    Visitor::visit_node(n, self);
  }
  void visit_node(const Gen& n, Expr self) override {
    ++depth;
    Visitor::visit_node(n, self);
    --depth;
  }
  void visit_node(const Reduce& n, Expr self) override {
    ++depth;
    Visitor::visit_node(n, self);
    --depth;
  }
};

}  // namespace

Verdict is_tensor_ssa(const SsaProgram& p) {
  for (const auto& st : p.stmts) {
    if (st.vars.size() != 1) return Verdict{false, "a destructuring statement", {}};
    Expr body = st.value;
    if (auto* g = body.as<Gen>()) body = g->body;
    SsaBodyCheck c;
    c.visit(body);
    if (!c.v.ok) {
      c.v.reason = "statement `" + var_name(st.vars[0]) + "`: " + c.v.reason;
      return c.v;
    }
  }
  for (auto r : p.results)
    if (!r.as<Var>() && !r.as<Literal>()) return Verdict{false, "a result that is not a name", {}};
  return {};
}

Verdict is_call_free(const Function& f) {
  return find_kind(f, NodeKind::Call, "a call");
}

Verdict is_let_lifted(const Function& f) {
  if (auto v = is_call_free(f); !v.ok) return v;
  return find_kind(f, NodeKind::Let, "a let inside a value");
}

Verdict is_pair_free(const Function& f) {
  if (auto v = is_let_lifted(f); !v.ok) return v;
  for (const auto& st : f.stmts) {
    if (st.vars.size() != 1)
      return Verdict{false, "a destructuring statement `" + var_name(st.vars[0]) + ", ...`",
                     pos_of(st.value)};
    if (st.vars[0]->type.is_tuple())
      return Verdict{false, "a tuple-valued statement `" + var_name(st.vars[0]) + "`",
                     pos_of(st.value)};
  }
  if (auto v = find_kind(f, NodeKind::Tuple, "a tuple"); !v.ok) return v;
  return find_kind(f, NodeKind::Proj, "a projection");
}

// Gen-pushout's `e`: no gen, and every read is of a name.
class PushedOutCheck : public Visitor {
 public:
  Verdict v;

 protected:
  void fail(Expr e, const std::string& why) {
    if (!v.ok) return;
    v.ok = false;
    v.reason = why + ": " + expr_str(e);
    v.pos = pos_of(e);
  }
  void visit_node(const Gen& n, Expr self) override {
    fail(self, "a gen inside a value");
    Visitor::visit_node(n, self);
  }
  void visit_node(const Access& n, Expr self) override {
    if (!n.tensor.as<Var>()) fail(self, "a read of a computed tensor");
    Visitor::visit_node(n, self);
  }
};

Verdict is_gen_pushed_out(const Function& f) {
  if (auto v = is_pair_free(f); !v.ok) return v;
  auto check = [](Expr e) {
    while (auto* g = e.as<Gen>()) e = g->body;  // Ge ::= Gen[i < n] Ge | e
    PushedOutCheck c;
    c.visit(e);
    return c.v;
  };
  for (const auto& st : f.stmts)
    if (auto v = check(st.value); !v.ok) {
      v.reason = "statement `" + var_name(st.vars[0]) + "`: " + v.reason;
      return v;
    }
  for (auto r : f.results)
    if (auto v = check(r); !v.ok) return v;
  return {};
}

Verdict is_canonical(const SsaProgram& p) {
  if (auto v = is_tensor_ssa(p); !v.ok) return v;
  std::unordered_map<Expr, Expr, ExprHash> seen;
  for (const auto& st : p.stmts) {
    Expr v = st.vars[0];
    if (st.value.as<Var>())
      return Verdict{false, "a copy statement `" + var_name(v) + " = " + expr_str(st.value) + "`",
                     pos_of(st.value)};
    auto [it, fresh] = seen.emplace(st.value, v);
    if (!fresh && it->second->type == v->type)
      return Verdict{
          false,
          "statements `" + var_name(it->second) + "` and `" + var_name(v) + "` have the same value",
          pos_of(st.value)};
  }
  VarSet live;
  for (auto r : p.results)
    for (auto v : free_vars(r)) live.insert(v);
  for (auto it = p.stmts.rbegin(); it != p.stmts.rend(); ++it) {
    if (!live.count(it->vars[0]))
      return Verdict{false, "statement `" + var_name(it->vars[0]) + "` is never read",
                     pos_of(it->value)};
    for (auto v : free_vars(it->value)) live.insert(v);
  }
  return {};
}

Verdict is_gather_only(const Function& f) {
  GatherCheck c;
  c.visit(f.body_expr());
  return c.v;
}

}  // namespace adlab::ad::iverson
