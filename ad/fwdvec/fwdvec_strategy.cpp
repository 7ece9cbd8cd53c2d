// The fwdvec pipeline (paper 001 sections 4.1-4.3): inline calls, seed one-hot directions in
// blocks of k, D[[.]] per statement with fusion / sum elimination / LICM, read the Jacobian out.
#include "ad/fwdvec/fwdvec_strategy.h"

#include <algorithm>

#include "ad/fwdvec/inline_calls.h"
#include "ad/fwdvec/licm.h"
#include "ad/fwdvec/tangent.h"
#include "ir/builder.h"
#include "ir/context.h"
#include "ir/typecheck.h"

namespace adlab::ad {

using namespace ir;
using fwdvec::TangentOf;
using fwdvec::Tangents;

namespace {

Expr ilit(std::int64_t v) {
  return Literal::make(static_cast<double>(v), ElemType::I64);
}
Expr imul(Expr a, Expr b) {
  if (is_literal(a, 0) || is_literal(b, 0)) return Literal::make(0, ElemType::I64);
  if (is_literal(a, 1)) return b;
  if (is_literal(b, 1)) return a;
  return Binary::make(BinaryOp::Mul, a, b);
}
Expr iadd(Expr a, Expr b) {
  if (is_literal(a, 0)) return b;
  if (is_literal(b, 0)) return a;
  return Binary::make(BinaryOp::Add, a, b);
}
Expr ivar(const std::string& base) {
  return Var::make(Context::current().fresh_name(base), Type::scalar(ElemType::I64));
}
std::vector<Expr> ivars(std::size_t n, const std::string& base) {
  std::vector<Expr> out;
  for (std::size_t k = 0; k < n; ++k) out.push_back(ivar(base));
  return out;
}
Expr gen_or_self(const std::vector<Expr>& vars, const std::vector<Expr>& bounds, Expr body) {
  if (vars.empty()) return body;
  return Gen::make(Domain{vars, bounds, Expr(), {}}, body);
}
Expr numel(const Type& t) {
  Expr n = ilit(1);
  for (auto d : t.dims) n = imul(n, d);
  return n;
}
// Row-major flat index of `idx` in a tensor of type t.
Expr flat_index(const Type& t, const std::vector<Expr>& idx) {
  Expr q = ilit(0);
  for (std::size_t k = 0; k < idx.size(); ++k) q = iadd(imul(q, t.dims[k]), idx[k]);
  return q;
}

std::shared_ptr<Function> signature_of(const Function& f, const std::string& suffix) {
  auto out = std::make_shared<Function>();
  out->name = Context::current().fresh_name(f.name + "_fwdvec_" + suffix);
  out->declared_sizes = f.declared_sizes;
  out->sizes = f.sizes;
  out->params = f.params;
  out->pos = f.pos;
  out->result_pos = f.result_pos;
  return out;
}

// The tangent statements (and the naive variant's repeated primal) follow the primal ones and
// copy its bodies' binders, whose names a primal statement may bind too (one interned variable:
// `let (a, b) = loop[t < 2] (a = s, b = 0.5) {...}`; decision 238).
void finish(Function& out) {
  unshadow_statements(out);
  std::vector<Type> types;
  for (auto x : out.results) types.push_back(x->type);
  out.result_type = types.size() == 1 ? types[0] : Type::tuple(types);
  check_function(out);
}

// The primal statements renamed apart (the naive variant recomputes them in every pass). Binders
// inside their values that share the originals' names are renamed by finish().
void renamed_primal(const Function& f, std::vector<Stmt>& stmts, std::vector<Expr>& results) {
  SubstMap m;
  for (const auto& s : f.stmts) {
    Stmt c{{}, substitute(s.value, m)};
    for (auto v : s.vars) {
      Expr nv = Var::make(Context::current().fresh_name(var_name(v)), v->type);
      m[v] = nv;
      c.vars.push_back(nv);
    }
    stmts.push_back(c);
  }
  for (auto r : f.results) results.push_back(substitute(r, m));
}

// Every result that is not a variable becomes a statement, so its tangent is a statement's.
FunctionPtr results_let_bound(const FunctionPtr& f) {
  auto out = std::make_shared<Function>(*f);
  for (auto& r : out->results) {
    if (r.as<Var>()) continue;
    Expr v = Var::make(Context::current().fresh_name("result"), r->type);
    out->stmts.push_back(Stmt{{v}, r});
    r = v;
  }
  return out;
}

class FwdvecStrategy : public Strategy {
 public:
  std::string_view name() const override { return "fwdvec"; }
  std::string_view paper() const override { return "001"; }
  Capabilities capabilities() const override {
    Capabilities c;
    c.modes = {Mode::Gradient, Mode::Jvp, Mode::Jacobian, Mode::Vjp, Mode::Hvp};
    c.variants = {"opt", "naive"};
    c.loops = true;
    c.width = true;
    c.emits_ir = true;
    return c;
  }

  Derivative differentiate(const FunctionPtr& fp, const Request& r) const override {
    ir::FunctionPositions cite_in(fp->pos);  // errors cite fp's occurrences (decision 218)
    bool naive = r.variant == "naive";
    if (!naive && !r.variant.empty() && r.variant != "opt")
      throw Error("strategy `fwdvec` has no variant `" + r.variant + "`");
    for (const auto& w : r.wrt)
      if (fp->param_index(w) < 0)
        throw Error(fp->pos, "fwdvec: `" + fp->name + "` has no parameter `" + w + "`");
    if (r.mode == Mode::Hvp) return hvp(fp, r);
    FunctionPtr f = results_let_bound(fwdvec::inline_calls(*fp));
    std::vector<Expr> wrt;
    for (auto k : wrt_parameters(*f, r.wrt)) {
      Expr p = f->params[k];
      if (p->type.is_tuple() || !is_float(p->type.elem))
        throw Error(f->pos, "fwdvec: cannot differentiate with respect to `" + var_name(p) +
                                "` (not floating)");
      if (p->type.storage != Storage::Dense)
        throw Unsupported(f->pos, "fwdvec: sparse (@csr/@coo) parameter `" + var_name(p) +
                                      "` as a differentiated input is not supported");
      wrt.push_back(p);
    }
    if (wrt.empty()) throw Error(f->pos, "fwdvec: no floating parameter to differentiate by");
    for (auto res : fp->results)
      if (res->type.storage != Storage::Dense)
        throw Unsupported(fp->result_pos.valid() ? fp->result_pos : fp->pos,
                          "fwdvec: a sparse (@coo) result is not supported (its tangent would be "
                          "dense, the reference is restricted to the stored keys)");
    fwdvec::TangentOptions opt;
    if (naive) opt = fwdvec::TangentOptions{false, false, false, false};
    Derivative d;
    d.function = r.mode == Mode::Jvp ? jvp(*f, wrt, opt, d.notes)
                                     : jacobian(*f, wrt, r, naive, opt, d.notes);
    return d;
  }

 private:
  // jvp: k = 1, the tangent parameters are the seeds.
  FunctionPtr jvp(const Function& f, const std::vector<Expr>& wrt, fwdvec::TangentOptions opt,
                  std::string& notes) const {
    auto out = signature_of(f, "jvp");
    Expr dir = ivar("dir");
    Tangents T(dir, ilit(1), dir, opt, f.pos);
    for (auto x : wrt) {
      Expr tx = Var::make(Context::current().fresh_name("t_" + var_name(x)), x->type);
      out->params.push_back(tx);
      T.bind(x, TangentOf{TangentOf::Kind::Lane, tx, {}, {}});
    }
    out->stmts = f.stmts;
    for (const auto& s : f.stmts) T.statement(s, out->stmts);
    out->results = f.results;
    for (auto res : f.results) {
      Expr m = T.materialise(res, out->stmts);
      auto o = ivars(res->type.rank(), "o");
      std::vector<Expr> at = o;
      at.push_back(ilit(0));
      out->results.push_back(gen_or_self(o, res->type.dims, Access::make(m, at)));
    }
    finish(*out);
    notes = "fwdvec jvp: one direction (k = 1), " + std::to_string(out->stmts.size()) +
            " statements\n" + T.trace();
    return out;
  }

  // gradient, jacobian, vjp: one-hot seeds in blocks of k directions.
  FunctionPtr jacobian(const Function& f, const std::vector<Expr>& wrt, const Request& r,
                       bool naive, fwdvec::TangentOptions opt, std::string& notes) const {
    check_gradient_result(f, r.mode, "fwdvec");
    auto out = signature_of(f, mode_name(r.mode));
    std::vector<Expr> offsets;
    Expr total = ilit(0);
    for (auto x : wrt) {
      offsets.push_back(total);
      total = iadd(total, numel(x->type));
    }
    // directions per pass (k) and passes (P = ceil(N / k), an exact division for the shapes)
    std::size_t width = naive ? 1 : r.width;
    Expr k = width == 0 ? total : ilit(static_cast<std::int64_t>(width));
    bool one_pass = width == 0;
    Expr dir = ivar("dir"), pass, global = dir, passes;
    if (!one_pass) {
      pass = ivar("pass");
      global = iadd(imul(pass, k), dir);
      Expr up = Binary::make(BinaryOp::Add, total, ilit(static_cast<std::int64_t>(width) - 1));
      passes = width == 1
                   ? total
                   : Binary::make(
                         BinaryOp::Div,
                         Binary::make(BinaryOp::Sub, up, Binary::make(BinaryOp::Mod, up, k)), k);
    }
    Tangents T(dir, k, global, opt, f.pos);
    for (std::size_t w = 0; w < wrt.size(); ++w)
      T.bind(wrt[w], TangentOf{TangentOf::Kind::Seed, Expr(), offsets[w], {}});

    std::vector<Stmt> tangent;
    std::vector<Expr> results = f.results;
    if (naive) {
      results.clear();
      renamed_primal(f, tangent, results);
    }
    const std::vector<Stmt>& primal = naive ? tangent : f.stmts;
    std::vector<Stmt> tstmts = naive ? tangent : std::vector<Stmt>{};
    for (const auto& s : std::vector<Stmt>(primal)) T.statement(s, tstmts);
    std::vector<Expr> rvec;
    for (auto res : results) {
      Expr m = T.materialise(res, tstmts);
      if (!m.as<Var>()) {  // let-bound: the Jacobian reads it once per entry
        Expr v = Var::make(Context::current().fresh_name("d_result"), m->type);
        tstmts.push_back(Stmt{{v}, m});
        m = v;
      }
      rvec.push_back(m);
    }

    out->stmts = f.stmts;
    std::vector<Expr> blocks;  // per result: [P, O..., k] or [O..., k]
    if (one_pass) {
      out->stmts.insert(out->stmts.end(), tstmts.begin(), tstmts.end());
      blocks = rvec;
    } else {
      Expr body = fwdvec::wrap_lets(tstmts, rvec.size() == 1 ? rvec[0] : Tuple::make(rvec));
      Expr all = Gen::make(Domain{{pass}, {passes}, Expr(), {}}, body);
      Expr bv = Var::make(Context::current().fresh_name("passes"), all->type);
      out->stmts.push_back(Stmt{{bv}, all});
      for (std::size_t i = 0; i < rvec.size(); ++i)
        blocks.push_back(rvec.size() == 1 ? bv : Proj::make(bv, static_cast<int>(i)));
    }
    // J[O..., A...] = tangent of result O in direction q = offset + flat(A)
    std::vector<std::vector<Expr>> jac(f.results.size());
    for (std::size_t ri = 0; ri < f.results.size(); ++ri) {
      const Type& rt = f.results[ri]->type;
      for (std::size_t w = 0; w < wrt.size(); ++w) {
        const Type& wt = wrt[w]->type;
        auto o = ivars(rt.rank(), "o");
        auto a = ivars(wt.rank(), "a");
        // DESIGN 2.3: a Jacobian block is f64; a gradient has its parameter's element type
        const ElemType block_elem = r.mode == Mode::Jacobian   ? ElemType::F64
                                    : r.mode == Mode::Gradient ? wt.elem
                                                               : rt.elem;
        if (one_pass && wrt.size() == 1 && rt.rank() == 0 && wt.rank() == 1 &&
            blocks[ri]->type.elem == block_elem) {
          jac[ri].push_back(blocks[ri]);  // the tangent vector is the gradient row itself
          continue;
        }
        Expr q = iadd(offsets[w], flat_index(wt, a));
        std::vector<Expr> at;
        if (!one_pass) at.push_back(width == 1 ? q : Binary::make(BinaryOp::Div, q, k));
        at.insert(at.end(), o.begin(), o.end());
        at.push_back(one_pass ? q : width == 1 ? ilit(0) : Binary::make(BinaryOp::Mod, q, k));
        std::vector<Expr> vars = o, bounds = rt.dims;
        vars.insert(vars.end(), a.begin(), a.end());
        bounds.insert(bounds.end(), wt.dims.begin(), wt.dims.end());
        Expr j = gen_or_self(vars, bounds, dsl::to_float(Access::make(blocks[ri], at), block_elem));
        Expr jv = Var::make(Context::current().fresh_name("jac_" + var_name(wrt[w])), j->type);
        out->stmts.push_back(Stmt{{jv}, j});
        jac[ri].push_back(jv);
      }
    }
    out->results = f.results;
    if (r.mode == Mode::Vjp) {
      std::vector<Expr> cts;
      for (std::size_t ri = 0; ri < f.results.size(); ++ri) {
        Expr ct = Var::make(Context::current().fresh_name("ct_" + std::to_string(ri)),
                            f.results[ri]->type);
        out->params.push_back(ct);
        cts.push_back(ct);
      }
      // cotangent of w = sum_r J_rw^T ct_r over the floating results (an integer result's
      // cotangent carries no derivative), each term in w's element type (no implicit f32/f64
      // promotion, DESIGN 2.3)
      for (std::size_t w = 0; w < wrt.size(); ++w) {
        auto a = ivars(wrt[w]->type.rank(), "a");
        const ElemType we = wrt[w]->type.elem;
        Expr acc;
        for (std::size_t ri = 0; ri < f.results.size(); ++ri) {
          const Type& rt = f.results[ri]->type;
          if (!is_float(rt.elem)) continue;
          auto o = ivars(rt.rank(), "o");
          std::vector<Expr> at = o;
          at.insert(at.end(), a.begin(), a.end());
          Expr term = Binary::make(BinaryOp::Mul, o.empty() ? cts[ri] : Access::make(cts[ri], o),
                                   at.empty() ? jac[ri][w] : Access::make(jac[ri][w], at));
          if (!o.empty()) term = Reduce::make(ReduceOp::Sum, Domain{o, rt.dims, Expr(), {}}, term);
          term = dsl::to_float(term, we);
          acc = acc.defined() ? Binary::make(BinaryOp::Add, acc, term) : term;
        }
        if (!acc.defined()) acc = Literal::make(0, we);
        out->results.push_back(gen_or_self(a, wrt[w]->type.dims, acc));
      }
    } else {
      for (auto& row : jac) out->results.insert(out->results.end(), row.begin(), row.end());
    }
    finish(*out);
    notes = std::string("fwdvec ") + (naive ? "naive" : "opt") + ": " +
            (one_pass ? "one pass, k = all directions" : "passes of k = " + std::to_string(width)) +
            ", " + std::to_string(out->stmts.size()) + " statements\n" + T.trace();
    return out;
  }

  // hvp = jvp of the gradient (DESIGN 2.3): forward over forward, fresh directions each time.
  Derivative hvp(const FunctionPtr& f, const Request& r) const {
    Request g = r;
    g.mode = Mode::Gradient;
    Derivative grad = differentiate(f, g);
    std::vector<std::string> names;
    for (auto k : wrt_parameters(*f, r.wrt)) names.push_back(var_name(f->params[k]));
    Request j{names, Mode::Jvp, r.variant, 0};
    Derivative out = differentiate(grad.function, j);
    out.notes = "fwdvec hvp: jvp of [" + grad.notes + "]";
    return out;
  }
};

}  // namespace

std::unique_ptr<Strategy> make_fwdvec_strategy() {
  return std::make_unique<FwdvecStrategy>();
}

}  // namespace adlab::ad
