// The scatter strategy's pipeline: flatten (labelling + primal, 002 section 4.5), seed, dual
// (section 4.6), combine (section 4.7) into one ir::Function per request.
#include "ad/scatter/scatter_strategy.h"

#include <algorithm>
#include "ir/context.h"

#include "ad/scatter/dual.h"
#include "ad/scatter/flatten.h"
#include "ir/builder.h"
#include "ir/typecheck.h"
#include "ir/visitor.h"

namespace adlab::ad {

using namespace ir;
using scatter::Dual;
using scatter::FlatProgram;
using scatter::FreshNames;

namespace {

Expr wrap_lets(const std::vector<Stmt>& stmts, Expr body) {
  for (auto it = stmts.rbegin(); it != stmts.rend(); ++it)
    body = Let::make(it->vars, it->value, body);
  return body;
}

class ScatterStrategy : public Strategy {
 public:
  std::string_view name() const override { return "scatter"; }
  std::string_view paper() const override { return "002"; }
  Capabilities capabilities() const override {
    Capabilities c;
    c.modes = {Mode::Gradient, Mode::Vjp, Mode::Jacobian};
    c.variants = {"store", "recompute"};
    c.loops = true;
    c.emits_ir = true;
    c.reverse = true;
    return c;
  }

  Derivative differentiate(const FunctionPtr& fp, const Request& r) const override {
    ir::FunctionPositions cite_in(fp->pos);  // errors cite fp's occurrences (decision 218)
    const Function& f = *fp;
    if (r.mode != Mode::Gradient && r.mode != Mode::Vjp && r.mode != Mode::Jacobian)
      throw Unsupported(f.pos, std::string("scatter is reverse mode: ") + mode_name(r.mode) +
                                   " is not supported (gradient, vjp, jacobian are)");
    bool store = r.variant.empty() || r.variant == "store";
    if (!store && r.variant != "recompute")
      throw Error("strategy `scatter` has no variant `" + r.variant + "`");
    std::vector<Expr> wrt;
    for (auto p : f.params) {
      const Type& t = p->type;
      bool fl = !t.is_tuple() && is_float(t.elem);
      bool named = std::find(r.wrt.begin(), r.wrt.end(), var_name(p)) != r.wrt.end();
      if (r.wrt.empty() ? fl : named) {
        if (!fl)
          throw Error("scatter: cannot differentiate with respect to `" + var_name(p) +
                      "` (not floating)");
        if (t.storage != Storage::Dense)
          throw Unsupported(f.pos, "scatter: sparse (@csr/@coo) parameters are not supported");
        wrt.push_back(p);
      }
    }
    for (const auto& w : r.wrt)
      if (f.param_index(w) < 0)
        throw Error("scatter: `" + f.name + "` has no parameter `" + w + "`");

    FreshNames names;
    names.reserve_all(f);  // generated names collide with none of f's
    FlatProgram flat = scatter::flatten(f, store, names);

    auto out = std::make_shared<Function>();
    out->name = names.fresh(f.name + "_scatter_" + mode_name(r.mode));
    out->declared_sizes = f.declared_sizes;
    out->sizes = f.sizes;
    out->params = f.params;
    out->pos = f.pos;
    out->result_pos = f.result_pos;
    for (const auto& k : flat.kernels) out->stmts.push_back(Stmt{{k.var}, k.value()});
    std::vector<Expr> results = flat.results;
    std::vector<Expr> extra;

    if (r.mode == Mode::Gradient) {
      check_gradient_result(f, r.mode, "scatter");
      Dual d(flat, wrt, names);
      d.seed(flat.results[0], Literal::make(1, f.results[0]->type.elem));
      extra = d.run(out->stmts);
    } else if (r.mode == Mode::Vjp) {
      Dual d(flat, wrt, names);
      for (std::size_t k = 0; k < flat.results.size(); ++k) {
        Expr ct = Var::make(names.fresh("ct_" + std::to_string(k)), f.results[k]->type);
        out->params.push_back(ct);
        d.seed(flat.results[k], ct);
      }
      extra = d.run(out->stmts);
    } else {
      // one vjp per output element, seeded with a one-hot cotangent (digest 002 section 2.1)
      for (std::size_t ri = 0; ri < flat.results.size(); ++ri) {
        const Type& rt = f.results[ri]->type;
        std::vector<Expr> o, odims;
        for (auto dim : rt.dims) {
          o.push_back(Var::make(names.fresh("o"), Type::scalar(ElemType::I64)));
          odims.push_back(dim);
        }
        for (std::size_t wi = 0; wi < wrt.size(); ++wi) {
          Expr seedv = Literal::make(1, rt.elem);
          if (!o.empty()) {
            std::vector<Expr> j;
            Expr eq;
            for (std::size_t k = 0; k < o.size(); ++k) {
              j.push_back(Var::make(names.fresh("q"), Type::scalar(ElemType::I64)));
              eq = scatter::and_guard(eq, Binary::make(BinaryOp::Eq, j.back(), o[k]));
            }
            seedv = scatter::gen_or_self(j, odims, Iverson::make(eq, Literal::make(1, rt.elem)));
          }
          Dual d(flat, {wrt[wi]}, names);
          d.seed(flat.results[ri], seedv);
          std::vector<Stmt> local;
          auto g = d.run(local);
          Expr block = wrap_lets(local, g[0]);
          Expr jv = Var::make(names.fresh("jac_" + std::to_string(ri) + "_" + var_name(wrt[wi])),
                              scatter::gen_or_self(o, odims, block)->type);
          out->stmts.push_back(Stmt{{jv}, scatter::gen_or_self(o, odims, block)});
          if (jv->type.elem != ElemType::F64) {
            // DESIGN 2.3: a Jacobian block is f64 (the cotangent of an f32 x is f32)
            std::vector<Expr> at = o, dims = odims;
            for (auto dim : wrt[wi]->type.dims) {
              at.push_back(Var::make(names.fresh("a"), Type::scalar(ElemType::I64)));
              dims.push_back(dim);
            }
            Expr conv = scatter::gen_or_self(
                at, dims, dsl::to_float(at.empty() ? jv : Access::make(jv, at), ElemType::F64));
            jv = Var::make(names.fresh("jac_" + std::to_string(ri) + "_" + var_name(wrt[wi])),
                           conv->type);
            out->stmts.push_back(Stmt{{jv}, conv});
          }
          extra.push_back(jv);
        }
      }
    }
    results.insert(results.end(), extra.begin(), extra.end());
    out->results = results;
    std::vector<Type> types;
    for (auto x : results) types.push_back(x->type);
    out->result_type = types.size() == 1 ? types[0] : Type::tuple(types);
    check_function(*out);
    Derivative d;
    d.function = out;
    d.notes = "scatter: " + std::to_string(flat.kernels.size()) + " primal kernels";
    return d;
  }
};

}  // namespace

std::unique_ptr<Strategy> make_scatter_strategy() {
  return std::make_unique<ScatterStrategy>();
}

}  // namespace adlab::ad
