// Pair elimination (paper 000 (5.11)-(5.20)).
#include "ad/iverson/pair_elimination.h"

#include <unordered_map>

#include "ad/iverson/pass_util.h"
#include "ad/strategy.h"
#include "ir/context.h"
#include "ir/mutator.h"

namespace adlab::ad::iverson {

using namespace ir;

namespace {

[[noreturn]] void unsupported(Expr at, const std::string& what) {
  throw Unsupported(pos_of(at), "iverson: " + what + " is outside paper 000's language");
}

// Component k of a tuple-typed name: `z.0` (printed `z_0`) of type [dims of z] field k.
Expr component(Expr v, std::size_t k) {
  const Type& t = v->type;
  Type ft = t.fields.at(k);
  std::vector<Expr> dims = t.dims;
  dims.insert(dims.end(), ft.dims.begin(), ft.dims.end());
  ft.dims = dims;
  return Var::make(var_name(v) + "." + std::to_string(k), ft);
}

class PairEliminator : public Mutator {
 public:
  // pi_k e, pushed inward until it meets a tuple or a name (5.11, 5.12, 5.14, 5.16).
  Expr project(Expr e, int k) {
    auto at = static_cast<std::size_t>(k);
    switch (e->kind) {
      case NodeKind::Tuple:  // (5.11)
        return e.as<Tuple>()->elems.at(at);
      case NodeKind::Var:  // a split name (5.18-5.20)
        return component(e, at);
      case NodeKind::Gen: {  // (5.12)
        auto* g = e.as<Gen>();
        return Gen::make(g->dom, project(g->body, k));
      }
      case NodeKind::Access: {  // (5.14)
        auto* a = e.as<Access>();
        return Access::make(project(a->tensor, k), a->indices);
      }
      case NodeKind::Iverson: {  // (5.16)
        auto* iv = e.as<Iverson>();
        return Iverson::make(iv->pred, project(iv->body, k));
      }
      case NodeKind::Select: {
        auto* s = e.as<Select>();
        return Select::make(s->cond, project(s->then_value, k), project(s->else_value, k));
      }
      case NodeKind::Proj: {
        auto* p = e.as<Proj>();
        return project(project(p->tuple, p->index), k);
      }
      default:
        unsupported(e, "a projection of `" + std::string(kind_name(e->kind)) + "`");
    }
  }

  // A statement binding `vars` to `value`, split until no name is tuple-valued (5.18-5.20).
  void bind(const std::vector<Expr>& vars, Expr value, std::vector<Stmt>& out) {
    if (vars.size() > 1) {  // let (a, b) = e
      for (std::size_t k = 0; k < vars.size(); ++k)
        bind({vars[k]}, project(value, static_cast<int>(k)), out);
      return;
    }
    Expr v = vars[0];
    if (v->type.is_tuple()) {
      for (std::size_t k = 0; k < v->type.fields.size(); ++k)
        bind({component(v, k)}, project(value, static_cast<int>(k)), out);
      return;
    }
    out.push_back(Stmt{{v}, mutate(value)});
  }

  // A result's components, each without tuples.
  void result(Expr r, std::vector<Expr>& out) {
    if (!r->type.is_tuple()) {
      out.push_back(mutate(r));
      return;
    }
    for (std::size_t k = 0; k < r->type.fields.size(); ++k)
      result(project(r, static_cast<int>(k)), out);
  }

 protected:
  Expr mutate_node(const Proj& p, Expr self) override {
    (void)self;
    return mutate(project(p.tuple, p.index));
  }
};

}  // namespace

FunctionPtr eliminate_pairs(const Function& f) {
  for (auto p : f.params)
    if (p->type.is_tuple())
      throw Unsupported(pos_of(p).valid() ? pos_of(p) : f.pos,
                        "iverson: a tuple parameter is outside paper 000's language");
  PairEliminator e;
  std::vector<Stmt> stmts;
  for (const auto& st : f.stmts) e.bind(st.vars, st.value, stmts);
  std::vector<Expr> results;
  for (auto r : f.results) e.result(r, results);
  return rebuilt(f, f.name, std::move(stmts), std::move(results));
}

}  // namespace adlab::ad::iverson
