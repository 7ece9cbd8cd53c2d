// The iverson pipeline (paper 000 sections 5-6): normalise into Tensor SSA, then transpose
// (gradient, vjp) or apply the forward rules (jvp); hvp is forward over reverse.
#include "ad/iverson/iverson_strategy.h"

#include <algorithm>
#include "ir/context.h"

#include "ad/iverson/forward.h"
#include "ad/iverson/normal_form.h"
#include "ad/iverson/normalise.h"
#include "ad/iverson/transpose.h"
#include "ir/syntax/printer.h"
#include "ir/typecheck.h"

namespace adlab::ad {

using namespace ir;
using namespace iverson;

namespace {

std::vector<Expr> wrt_vars(const Function& f, const Request& r) {
  for (const auto& w : r.wrt)
    if (f.param_index(w) < 0) throw Error("iverson: `" + f.name + "` has no parameter `" + w + "`");
  std::vector<Expr> out;
  for (auto k : wrt_parameters(f, r.wrt)) {
    Expr p = f.params[k];
    if (p->type.is_tuple() || !is_float(p->type.elem))
      throw Error("iverson: cannot differentiate with respect to `" + var_name(p) +
                  "` (not floating)");
    if (p->type.storage != Storage::Dense)
      throw Unsupported(f.pos,
                        "iverson: sparse (@csr/@coo) parameters are outside paper 000's "
                        "language");
    out.push_back(p);
  }
  return out;
}

FunctionPtr finish(const Function& f, std::string name, std::vector<Expr> params,
                   std::vector<Stmt> stmts, std::vector<Expr> results) {
  auto out = std::make_shared<Function>();
  out->name = std::move(name);
  out->declared_sizes = f.declared_sizes;
  out->sizes = f.sizes;
  out->params = std::move(params);
  out->pos = f.pos;
  out->result_pos = f.result_pos;
  out->stmts = std::move(stmts);
  out->results = std::move(results);
  std::vector<Type> types;
  for (auto x : out->results) types.push_back(x->type);
  out->result_type = types.size() == 1 ? types[0] : Type::tuple(types);
  check_function(*out);
  return out;
}

// f in Tensor SSA, each pass checked by its normal-form validator (digest 000 P9); f's names are
// reserved. `trace` gets one line per pass.
SsaProgram validated_ssa(const Function& f, FreshNames& names, logic::PredicateService& logic,
                         std::string& trace) {
  names.reserve_all(f);
  Normalisation n = normalise_passes(f, names, logic);
  trace += "normalisation passes (digest 000 section 4), each validated:\n";
  for (const auto& line : n.trace) trace += "  " + line + "\n";
  return n.program;
}

// gradient / vjp: (params..., cotangents...) -> (results..., adjoints of wrt...)
Derivative reverse(const FunctionPtr& fp, const Request& r) {
  const Function& f = *fp;
  std::vector<Expr> wrt = wrt_vars(f, r);
  FreshNames names;
  logic::PredicateService logic;
  std::string passes;
  SsaProgram p = validated_ssa(f, names, logic, passes);
  std::vector<Expr> params = f.params;
  std::vector<Seed> seeds;
  if (r.mode == Mode::Gradient) {
    check_gradient_result(f, r.mode, "iverson");
    seeds.push_back(Seed{p.results[0], Literal::make(1, f.results[0]->type.elem)});
  } else {
    for (std::size_t k = 0; k < p.results.size(); ++k) {
      Expr ct = Var::make(names.fresh("ct_" + std::to_string(k)), p.results[k]->type);
      params.push_back(ct);
      seeds.push_back(Seed{p.results[k], ct});
    }
  }
  Adjoints a = transpose(p, wrt, seeds, names, logic, r.variant == "naive");
  std::vector<Stmt> stmts = p.stmts;
  stmts.insert(stmts.end(), a.stmts.begin(), a.stmts.end());
  std::vector<Expr> results = p.results;
  results.insert(results.end(), a.gradients.begin(), a.gradients.end());
  Derivative d;
  d.function =
      finish(f, names.fresh(f.name + "_iverson_" + mode_name(r.mode)), params, stmts, results);
  if (auto v = is_gather_only(*d.function); !v.ok)
    throw InternalError("iverson: the derivative is not gather-only: " + v.reason);
  std::string notes = passes + "iverson: Tensor SSA (" + std::to_string(p.stmts.size()) +
                      " statements):\n" + function_str(*to_function(f, p, f.name + "_ssa")) +
                      "transposition (paper 000 (6.14)-(6.29), then SE):\n";
  for (const auto& line : a.trace) notes += "  " + line + "\n";
  d.notes = notes;
  return d;
}

// jvp: (params..., tangents of wrt...) -> (results..., tangents of results...), rules 6.1-6.13
Derivative forward(const FunctionPtr& fp, const Request& r) {
  const Function& f = *fp;
  std::vector<Expr> wrt = wrt_vars(f, r);
  FreshNames names;
  logic::PredicateService logic;
  std::string passes;
  SsaProgram p = validated_ssa(f, names, logic, passes);
  std::vector<Expr> params = f.params, tangents;
  for (auto w : wrt) {
    tangents.push_back(Var::make(names.fresh("t_" + var_name(w)), w->type));
    params.push_back(tangents.back());
  }
  Tangents t = forward_rules(p, wrt, tangents, names);
  std::vector<Stmt> stmts = p.stmts;
  stmts.insert(stmts.end(), t.stmts.begin(), t.stmts.end());
  std::vector<Expr> results = p.results;
  results.insert(results.end(), t.result_tangents.begin(), t.result_tangents.end());
  Derivative d;
  d.function = finish(f, names.fresh(f.name + "_iverson_jvp"), params, stmts, results);
  d.notes = passes + "iverson: forward rules (paper 000 (6.1)-(6.13)) on Tensor SSA:\n" +
            function_str(*to_function(f, p, f.name + "_ssa")) + "forward rules applied:\n";
  for (const auto& line : t.trace) d.notes += "  " + line + "\n";
  return d;
}

// hvp = jvp of the gradient (forward over reverse): (params..., tangents of wrt...) ->
// (result, gradients..., tangent of the result, Hessian-vector products...)
Derivative forward_over_reverse(const FunctionPtr& fp, const Request& r) {
  Request g = r;
  g.mode = Mode::Gradient;
  Derivative grad = reverse(fp, g);
  Request j = r;
  j.mode = Mode::Jvp;
  if (j.wrt.empty())
    for (auto k : wrt_parameters(*fp, r.wrt)) j.wrt.push_back(var_name(fp->params[k]));
  Derivative d;
  try {
    d = forward(grad.function, j);
  } catch (const Unsupported& e) {  // the construct is in the gradient program, not in fp
    std::vector<std::string> notes = e.notes();
    notes.push_back(
        "hvp differentiates iverson's own gradient program again (forward over "
        "reverse); the construct is in that program (`adlab grad --emit` prints it)");
    throw Unsupported(e.pos(), e.message(), notes);
  }
  d.notes = grad.notes + d.notes;
  return d;
}

class IversonStrategy : public Strategy {
 public:
  std::string_view name() const override { return "iverson"; }
  std::string_view paper() const override { return "000"; }
  Capabilities capabilities() const override {
    Capabilities c;
    c.modes = {Mode::Gradient, Mode::Vjp, Mode::Jvp, Mode::Hvp};
    c.variants = {"default", "naive"};
    c.emits_ir = true;
    c.reverse = true;
    c.cheap_gradient = true;
    return c;
  }

  Derivative differentiate(const FunctionPtr& fp, const Request& r) const override {
    ir::FunctionPositions cite_in(fp->pos);  // errors cite fp's occurrences (decision 218)
    if (!r.variant.empty() && r.variant != "default" && r.variant != "naive")
      throw Error("strategy `iverson` has no variant `" + r.variant + "`");
    switch (r.mode) {
      case Mode::Gradient:
      case Mode::Vjp:
        return reverse(fp, r);
      case Mode::Jvp:
        return forward(fp, r);
      case Mode::Hvp:
        return forward_over_reverse(fp, r);
      default:
        throw Unsupported(fp->pos, std::string("iverson: mode ") + mode_name(r.mode) +
                                       " is not supported (gradient, vjp, jvp, hvp are)");
    }
  }
};

}  // namespace

std::unique_ptr<Strategy> make_iverson_strategy() {
  return std::make_unique<IversonStrategy>();
}

}  // namespace adlab::ad
