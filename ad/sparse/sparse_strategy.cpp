// The `sparse` strategy: an engine (Interpreter<SparseDual> evaluates <e, D_tau[[e]]>), not a
// source transformation (docs/strategies/sparse.md, docs/decisions.md 63-70).
#include "ad/sparse/sparse_strategy.h"

#include <unordered_set>

#include "ad/sparse/tangent_engine.h"
#include "ir/context.h"
#include "ir/syntax/printer.h"
#include "ir/visitor.h"

namespace adlab::ad {

namespace {

// f32(x) rounds a floating value: Interpreter<SparseDual> would drop its tangent, so the strategy
// declines rather than report a wrong derivative.
void reject_f32_rounding(const ir::Function& f, std::unordered_set<const ir::Function*>& seen) {
  if (!seen.insert(&f).second) return;
  std::unordered_set<const ir::ExprNode*> visited;
  std::vector<ir::Expr> work(f.results.begin(), f.results.end());
  for (const auto& s : f.stmts) work.push_back(s.value);
  while (!work.empty()) {
    ir::Expr e = work.back();
    work.pop_back();
    if (!visited.insert(e.get()).second) continue;
    if (auto* p = e.as<ir::Prim>())
      if (p->op == ir::PrimOp::ToF32 && ir::is_float(p->args[0]->type.elem)) {
        SourcePos at = ir::pos_of(e, f.pos.source);
        throw Unsupported(at.valid() ? at : f.pos,
                          "sparse: `" + ir::expr_str(e) +
                              "` rounds a floating value to f32; its tangent would be dropped");
      }
    if (auto* c = e.as<ir::Call>()) reject_f32_rounding(*c->callee, seen);
    for (auto ch : ir::children(e)) work.push_back(ch);
  }
}

class SparseStrategy : public Strategy {
 public:
  std::string_view name() const override { return "sparse"; }
  std::string_view paper() const override { return "004"; }
  Capabilities capabilities() const override {
    Capabilities c;
    // One tensorised forward pass gives the whole Jacobian; the other modes contract it.
    c.modes = {Mode::Gradient, Mode::Vjp, Mode::Jvp, Mode::Jacobian};
    c.variants = {"dense", "coo"};
    c.sparse_inputs = true;
    c.loops = true;
    return c;
  }
  Derivative differentiate(const ir::FunctionPtr& f, const Request& r) const override {
    if (!capabilities().supports(r.mode))
      throw Unsupported(f->pos, std::string("sparse does not offer mode ") + mode_name(r.mode) +
                                    " (tensorised forward mode: gradient, vjp, jvp, jacobian)");
    sparse::JacobianLayout layout;
    if (r.variant.empty() || r.variant == "dense")
      layout = sparse::JacobianLayout::Dense;
    else if (r.variant == "coo")
      layout = sparse::JacobianLayout::Coo;
    else
      throw Error(f->pos, "sparse has no variant `" + r.variant + "` (dense, coo)");
    for (const auto& w : r.wrt) {
      int k = f->param_index(w);
      if (k < 0) throw Error(f->pos, "`" + f->name + "` has no parameter `" + w + "`");
      const auto& t = f->params[static_cast<std::size_t>(k)]->type;
      if (t.is_tuple())
        throw Unsupported(
            f->pos, "sparse: differentiating with respect to the tuple parameter `" + w + "`");
      if (!ir::is_float(t.elem))
        throw Error(f->pos, "parameter `" + w + "` is not floating: it has no derivative");
    }
    std::unordered_set<const ir::Function*> seen;
    reject_f32_rounding(*f, seen);
    Derivative d;
    d.notes =
        "sparse (paper 004): tensorised forward mode D_tau run by Interpreter<SparseDual>; tau = "
        "the stored entries of the differentiated parameters, seeded by onehot (one coordinate "
        "per stored entry; a sparse parameter's gradient is restricted to its pattern)\n";
    d.make_engine = [f, r, layout](const backends::Options& o) {
      return sparse::make_tangent_engine(f, r, layout, o);
    };
    return d;
  }
};

}  // namespace

std::unique_ptr<Strategy> make_sparse_strategy() {
  return std::make_unique<SparseStrategy>();
}

}  // namespace adlab::ad
