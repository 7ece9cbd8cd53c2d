// Gen-pushout (paper 000 (5.21)-(5.24), (5.21) with its range guard).
#include "ad/iverson/gen_pushout.h"

#include "ad/iverson/pass_util.h"
#include "ad/iverson/terms.h"
#include "ad/strategy.h"
#include "ir/context.h"
#include "ir/mutator.h"
#include "ir/substitute.h"
#include "ir/visitor.h"

namespace adlab::ad::iverson {

using namespace ir;

namespace {

[[noreturn]] void unsupported(Expr at, const std::string& what) {
  throw Unsupported(pos_of(at), "iverson: " + what + " is outside paper 000's language");
}

// A predicate on indices and sizes only, usable as a fact: no read of data, no number compared.
bool is_index_predicate(Expr p) {
  struct Finder : Visitor {
    bool data = false;
    void visit_node(const Access& a, Expr self) override {
      (void)a;
      (void)self;
      data = true;
    }
    void visit_node(const Nz& n, Expr self) override {
      (void)n;
      (void)self;
      data = true;
    }
    void visit_node(const Binary& b, Expr self) override {
      if (is_float(b.a->type.elem)) data = true;
      Visitor::visit_node(b, self);
    }
  } f;
  f.visit(p);
  return !f.data;
}

class GenPushout : public Mutator {
 public:
  GenPushout(FreshNames& names, logic::PredicateService& logic, std::vector<Expr> facts)
      : names_(names), logic_(logic), facts_(std::move(facts)) {}

  // A statement's value or a result: its gens stay outermost; a tensor below them that is not a
  // name (a select of gens, a bracket on a tensor) is read at fresh binders first,
  // `e = gen[j < d] e[j]`, so the reads are pushed into it.
  Expr outermost(Expr e) {
    if (auto* g = e.as<Gen>()) {
      std::size_t mark = push_binders(g->dom);
      Expr body = outermost(g->body);
      facts_.resize(mark);
      return Gen::make(g->dom, body);
    }
    auto* a = e.as<Access>();
    if (e->type.rank() == 0 || e.as<Var>() ||
        (a && a->tensor.as<Var>() && a->indices.size() < a->tensor->type.rank()))
      return mutate(e);
    Domain dom;
    for (auto d : e->type.dims) {
      dom.vars.push_back(index_var(names_.fresh("j")));
      dom.bounds.push_back(d);
    }
    return outermost(Gen::make(dom, Access::make(e, dom.vars)));
  }

 protected:
  Expr mutate_node(const Access& a, Expr self) override {
    (void)self;
    std::vector<Expr> idx;
    for (auto i : a.indices) idx.push_back(mutate(i));
    return index_into(a.tensor, idx);
  }
  Expr mutate_node(const Gen& g, Expr self) override {
    (void)self;
    std::size_t mark = push_binders(g.dom);
    Expr body = mutate(g.body);
    facts_.resize(mark);
    return Gen::make(g.dom, body);
  }
  Expr mutate_node(const Reduce& r, Expr self) override {
    (void)self;
    std::size_t mark = push_binders(r.dom);
    Expr body = mutate(r.body);
    facts_.resize(mark);
    return Reduce::make(r.op, r.dom, body);
  }
  Expr mutate_node(const Iverson& iv, Expr self) override {
    (void)self;
    Expr p = mutate(iv.pred), body = iv.body;
    // (5.24) [p0] * [p1] * e = [p0 && p1] * e
    while (auto* inner = body.as<Iverson>()) {
      p = Binary::make(BinaryOp::And, p, mutate(inner->pred));
      body = inner->body;
    }
    // (5.23) [p] * gen[i] e = gen[i] [p] * e, when p does not read i
    if (auto* g = body.as<Gen>()) {
      bool reads_binder = false;
      for (auto v : g->dom.vars) reads_binder = reads_binder || is_free_in(v, p);
      if (!reads_binder) return mutate(Gen::make(g->dom, Iverson::make(p, g->body)));
    }
    std::size_t mark = push_guard(p);
    body = mutate(body);
    facts_.resize(mark);
    return Iverson::make(p, body);
  }
  Expr mutate_node(const Select& s, Expr self) override {
    (void)self;
    Expr c = mutate(s.cond);
    std::size_t mark = push_guard(c);
    Expr a = mutate(s.then_value);
    facts_.resize(mark);
    push_guard(Unary::make(UnaryOp::Not, c));
    Expr b = mutate(s.else_value);
    facts_.resize(mark);
    return Select::make(c, a, b);
  }

 private:
  FreshNames& names_;
  logic::PredicateService& logic_;
  std::vector<Expr> facts_;  // sizes >= 0, enclosing binders in range, enclosing brackets

  std::size_t push_binders(const Domain& dom) {
    std::size_t mark = facts_.size();
    for (std::size_t k = 0; k < dom.vars.size() && k < dom.bounds.size(); ++k)
      for (auto f : range_facts({Binder{dom.vars[k], dom.bounds[k]}})) facts_.push_back(f);
    return mark;
  }
  std::size_t push_guard(Expr p) {
    std::size_t mark = facts_.size();
    if (is_index_predicate(p)) facts_.push_back(p);
    return mark;
  }

  // t[idx...] with the read pushed into t (5.21, 5.22).
  Expr index_into(Expr t, const std::vector<Expr>& idx) {
    if (idx.empty()) return mutate(t);
    switch (t->kind) {
      case NodeKind::Var:
        return Access::make(t, idx);
      case NodeKind::Access: {  // a read of a read: one read
        auto* a = t.as<Access>();
        std::vector<Expr> all;
        for (auto i : a->indices) all.push_back(mutate(i));
        all.insert(all.end(), idx.begin(), idx.end());
        return index_into(a->tensor, all);
      }
      case NodeKind::Gen: {  // (5.21), with the range guard unless it is proved
        auto* g = t.as<Gen>();
        std::size_t k = g->dom.vars.size();
        if (idx.size() < k) unsupported(t, "a partial access into a `gen`");
        SubstMap m;
        std::vector<Expr> atoms;
        for (std::size_t d = 0; d < k; ++d) {
          m[g->dom.vars[d]] = idx[d];
          Expr in = Binary::make(BinaryOp::And, Binary::make(BinaryOp::Le, int_lit(0), idx[d]),
                                 Binary::make(BinaryOp::Lt, idx[d], g->dom.bounds[d]));
          if (logic_.implies(facts_, in) != logic::Answer::Yes) atoms.push_back(in);
        }
        std::vector<Expr> rest(idx.begin() + static_cast<std::ptrdiff_t>(k), idx.end());
        std::size_t mark = facts_.size();
        for (auto a : atoms) facts_.push_back(a);
        Expr body = index_into(substitute(g->body, m), rest);
        facts_.resize(mark);
        return guard(atoms, body);
      }
      case NodeKind::Iverson: {  // (5.22)
        auto* iv = t.as<Iverson>();
        std::size_t mark = push_guard(iv->pred);
        Expr body = index_into(iv->body, idx);
        facts_.resize(mark);
        return Iverson::make(iv->pred, body);
      }
      case NodeKind::Select: {
        auto* s = t.as<Select>();
        std::size_t mark = push_guard(s->cond);
        Expr a = index_into(s->then_value, idx);
        facts_.resize(mark);
        push_guard(Unary::make(UnaryOp::Not, s->cond));
        Expr b = index_into(s->else_value, idx);
        facts_.resize(mark);
        return Select::make(s->cond, a, b);
      }
      default:
        unsupported(t, construct_name(t));
    }
  }
};

}  // namespace

FunctionPtr push_out_gens(const Function& f, FreshNames& names, logic::PredicateService& logic) {
  std::vector<Expr> facts;
  for (auto sz : f.sizes) facts.push_back(Binary::make(BinaryOp::Le, int_lit(0), sz));
  std::vector<Stmt> stmts;
  std::vector<Expr> results;
  for (const auto& st : f.stmts) {
    GenPushout g(names, logic, facts);
    stmts.push_back(Stmt{st.vars, g.outermost(st.value)});
  }
  for (auto r : f.results) {
    GenPushout g(names, logic, facts);
    results.push_back(g.outermost(r));
  }
  return rebuilt(f, f.name, std::move(stmts), std::move(results));
}

}  // namespace adlab::ad::iverson
