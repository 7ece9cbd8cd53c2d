// The forward rules of paper 000 (6.1)-(6.13) on Tensor SSA.
#include "ad/iverson/forward.h"

#include <unordered_map>

#include "ad/iverson/local_tangent.h"
#include "ad/iverson/scalar_partials.h"
#include "ad/strategy.h"
#include "ad/strong_zero.h"
#include "ir/builder.h"
#include "ir/context.h"

namespace adlab::ad::iverson {

using namespace ir;

namespace {

class Forward {
 public:
  explicit Forward(FreshNames& names) : names_(names) {}
  std::unordered_map<Expr, Expr, ExprHash> tangent_of;  // variable -> its tangent variable
  LocalTangent local;                                   // the scalar forward rules, applied

  // The tangent of a scalar expression; the literal 0 when nothing active flows in.
  Expr tangent(Expr e) {
    switch (e->kind) {
      case NodeKind::Literal:
        return zero_like(e);
      case NodeKind::Var: {  // (6.1)
        auto it = tangent_of.find(e);
        return it == tangent_of.end() || !is_float(e->type.elem) ? Literal::make(0, ElemType::F64)
                                                                 : it->second;
      }
      case NodeKind::Access: {  // (6.2) d(t[a]) = dt[a]
        auto* a = e.as<Access>();
        auto it = tangent_of.find(a->tensor);
        if (it == tangent_of.end()) return zero_like(e);
        return Access::make(it->second, a->indices);
      }
      case NodeKind::Unary:  // (6.3), by the engine
        if (Expr d = local(e, tangent(e.as<Unary>()->a), Expr()); d.defined()) return d;
        break;
      case NodeKind::Binary: {  // (6.4), (6.5), sub and div, by the engine
        auto* b = e.as<Binary>();
        if (Expr d = local(e, tangent(b->a), tangent(b->b)); d.defined()) return d;
        break;
      }
      case NodeKind::Prim: {  // (6.8) black boxes
        auto* p = e.as<Prim>();
        Expr out = zero_like(e);
        for (std::size_t k = 0; k < p->args.size(); ++k) {
          if (!is_float(p->args[k]->type.elem)) continue;
          Expr dk = tangent(p->args[k]);
          if (is_zero(dk)) continue;
          // f64(x)/f32(x) of a floating x: the tangent converted to the result's type (the
          // adjoint partial converts to the argument's, which is right only in reverse)
          if (p->op == PrimOp::ToF64 || p->op == PrimOp::ToF32)
            out = add(out, dsl::to_float(dk, e->type.elem));
          else  // 0 * inf is 0 where the tangent is 0 (sqrt, pow: strong_zero.h)
            out = add(out, zero_where_tangent_is_zero(dk, partial_blows_up(*p, k),
                                                      scalar_partial(e, k, dk, e)));
        }
        return out;
      }
      case NodeKind::Iverson: {  // (6.10) d([p] e) = [p] de, by the engine
        Expr d = local(e, tangent(e.as<Iverson>()->body), Expr());
        if (d.defined()) return d;
        break;
      }
      case NodeKind::Reduce: {  // (6.11) d(sum e) = sum de, by the engine
        Expr d = local(e, tangent(e.as<Reduce>()->body), Expr());
        if (d.defined()) return d;
        break;
      }
      case NodeKind::Select: {  // only in derivatives fed back (hvp): the branch's tangent
        auto* s = e.as<Select>();
        Expr a = tangent(s->then_value), b = tangent(s->else_value);
        if (is_zero(a) && is_zero(b)) return a;
        return Select::make(s->cond, coerce_flexible(a, e->type.elem),
                            coerce_flexible(b, e->type.elem));
      }
      default:
        break;
    }
    throw Unsupported(pos_of(e), std::string("iverson: no forward rule for `") +
                                     kind_name(e->kind) + "` in Tensor SSA");
  }

 private:
  FreshNames& names_;
};

Expr zeros(const Type& t, FreshNames& names) {
  std::vector<Binder> k;
  for (auto d : t.dims) k.push_back(Binder{index_var(names.fresh("k")), d});
  return gen_over(k, Literal::make(0, t.elem));
}

}  // namespace

Tangents forward_rules(const SsaProgram& p, const std::vector<Expr>& wrt,
                       const std::vector<Expr>& tangent_params, FreshNames& names) {
  Forward fw(names);
  for (std::size_t k = 0; k < wrt.size(); ++k) fw.tangent_of[wrt[k]] = tangent_params[k];
  Tangents out;
  for (const auto& st : p.stmts) {
    Expr v = st.vars[0];
    Expr body = st.value;
    const Gen* g = body.as<Gen>();
    Expr d = fw.tangent(g ? g->body : body);
    if (is_zero(d)) continue;  // an inactive statement has no tangent
    d = coerce_flexible(d, v->type.elem);
    Expr value = g ? Gen::make(g->dom, d) : d;
    Expr dv = Var::make(names.fresh("t_" + var_name(v)), value->type);
    out.stmts.push_back(Stmt{{dv}, value});
    fw.tangent_of[v] = dv;
  }
  for (const auto& s : fw.local.trace())
    out.trace.push_back(s.rule + " [" + s.cite + "]" + (s.pos.valid() ? " at " + s.pos.str() : ""));
  for (auto r : p.results) {
    auto it = fw.tangent_of.find(r);
    out.result_tangents.push_back(it != fw.tangent_of.end() ? it->second : zeros(r->type, names));
  }
  return out;
}

}  // namespace adlab::ad::iverson
