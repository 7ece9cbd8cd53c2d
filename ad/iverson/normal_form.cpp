// Normal-form validators (digest 000 P9).
#include "ad/iverson/normal_form.h"

#include "ir/context.h"
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

Verdict is_gather_only(const Function& f) {
  GatherCheck c;
  c.visit(f.body_expr());
  return c.v;
}

}  // namespace adlab::ad::iverson
