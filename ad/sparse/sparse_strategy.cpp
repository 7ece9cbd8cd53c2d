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
    ir::FunctionPositions cite_in(f->pos);  // errors cite f's occurrences (decision 218)
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
    check_wrt_names(*f, r.wrt, "sparse");
    check_gradient_result(*f, r.mode, "sparse");
    reject_f32_rounding(*f, "sparse", "its tangent would be dropped");
    Derivative d;
    d.notes =
        "sparse (paper 004): tensorised forward mode D_tau run by Interpreter<SparseDual>; tau = "
        "the stored entries of the differentiated parameters, seeded by onehot (one coordinate "
        "per stored entry; a sparse parameter's gradient is restricted to its pattern)\n";
    d.make_engine = [f, r, layout](const std::string& backend, const backends::Options& o) {
      if (backend != "interp")
        throw backends::Unsupported(f->pos,
                                    "sparse runs on the interpreter only (its SparseDual "
                                    "values have no compiled form), not on `" +
                                        backend + "`");
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
