// The `dualrev` strategy: an engine (Interpreter<Dual> records, a resolver reverses), not a
// source transformation (paper 003 sections 5-12).
#include "ad/dualrev/dualrev_strategy.h"

#include <algorithm>
#include "ir/context.h"

#include "ad/dualrev/ir_engine.h"
#include "ad/dualrev/parallel_split.h"

namespace adlab::ad {

namespace {

class DualrevStrategy : public Strategy {
 public:
  std::string_view name() const override { return "dualrev"; }
  std::string_view paper() const override { return "003"; }
  Capabilities capabilities() const override {
    Capabilities c;
    c.modes = {Mode::Gradient, Mode::Vjp, Mode::Jacobian};
    c.variants = {"tape", "staged-map", "naive"};  // the first is the default
    c.sparse_inputs = true;
    c.loops = true;
    c.parallel =
        false;  // IR gen/sum run sequentially in Interpreter<Dual> (docs/strategies/dualrev.md)
    c.reverse = true;
    c.cheap_gradient = true;  // paper 003 section 9: O(T + I), checked against every cost_bound
    return c;
  }
  Derivative differentiate(const ir::FunctionPtr& f, const Request& r) const override {
    ir::FunctionPositions cite_in(f->pos);  // errors cite f's occurrences (decision 218)
    if (!capabilities().supports(r.mode))
      throw Unsupported(f->pos, std::string("dualrev does not offer mode ") + mode_name(r.mode) +
                                    " (reverse mode: gradient, vjp, jacobian)");
    dualrev::Variant v = dualrev::parse_variant(r.variant.empty() ? "tape" : r.variant);
    check_wrt_names(*f, r.wrt, "dualrev");
    check_gradient_result(*f, r.mode, "dualrev");
    reject_f32_rounding(*f, "dualrev", "Interpreter<Dual> would drop its derivative");
    Derivative d;
    d.notes = std::string(
                  "dualrev (paper 003): Interpreter<Dual> (backend interp) or the generated unit "
                  "with T = Dual (backend cpu) records the tape; reverse pass: ") +
              dualrev::variant_name(v) + "\n";
    if (auto splits = dualrev::split_chain(*f); !splits.empty())
      d.notes += std::to_string(splits.size()) +
                 " top-level gen/sum loop(s) run as fork-join tasks on interp (8 chunks each; "
                 "threads from ADLAB_THREADS)\n";
    d.make_engine = [f, r, v](const std::string& backend, const backends::Options& o) {
      return dualrev::make_ir_engine(f, r, v, backend, o);
    };
    return d;
  }
};

}  // namespace

std::unique_ptr<Strategy> make_dualrev_strategy() {
  return std::make_unique<DualrevStrategy>();
}

}  // namespace adlab::ad
