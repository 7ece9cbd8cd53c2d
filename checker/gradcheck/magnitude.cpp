// |J| by one forward pass of sparse tangents with absolute partials (decision 205).
#include "checker/gradcheck/magnitude.h"

#include "ad/fwdvec/fwdvec_strategy.h"
#include "ad/sparse/tangent_engine.h"

namespace adlab::checker {

namespace {
// Sets the sparse tangents' magnitude mode for one pass on this thread.
class MagnitudeMode {
 public:
  MagnitudeMode() : before_(ad::sparse::tl_magnitudes) { ad::sparse::tl_magnitudes = true; }
  ~MagnitudeMode() { ad::sparse::tl_magnitudes = before_; }
  MagnitudeMode(const MagnitudeMode&) = delete;
  MagnitudeMode& operator=(const MagnitudeMode&) = delete;

 private:
  bool before_;
};

// The absolute-partials pass over g (f itself, or a program of f's parameters): its rows the
// entries of g's results named by `rows` (result rows[r].index, one after another), its columns
// ref's wrt coordinates; empty when the pass cannot run or g's results are not laid out so.
std::vector<double> absolute_jacobian(const ir::Function& g, const std::vector<ir::Tensor>& inputs,
                                      const Reference& ref, const std::vector<Block>& rows,
                                      const ReferenceOptions& o) {
  const std::size_t n = ref.in.size;
  std::size_t m = 0;
  for (const auto& b : rows) m += b.count;
  std::vector<std::size_t> wrt;
  for (const auto& b : ref.in.blocks) wrt.push_back(b.index);
  ad::sparse::TangentPass pass;
  try {
    MagnitudeMode mode;
    pass = ad::sparse::tangent_pass(g, inputs, wrt, ir::EvalOptions{o.sizes, false, false});
  } catch (const std::exception&) {
    return {};  // a construct the pass does not run: no magnitudes, the group rule applies
  }
  // tau's coordinates are the wrt parameters' stored entries in order, as the reference's columns
  if (pass.tau.size() != static_cast<std::int64_t>(n)) return {};
  std::vector<double> magnitude(m * n, 0.0);
  std::size_t offset = 0;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const std::size_t result = rows[r].index;
    if (result >= pass.results.size() || pass.results[result].values.size() != rows[r].count)
      return {};
    for (std::size_t k = 0; k < rows[r].count; ++k)
      for (const auto& e : pass.results[result].values[k].tangent()) {
        if (e.coord < 0 || static_cast<std::size_t>(e.coord) >= n) return {};
        magnitude[(offset + k) * n + static_cast<std::size_t>(e.coord)] = e.value;
      }
    offset += rows[r].count;
  }
  return magnitude;
}
}  // namespace

std::vector<double> reference_magnitudes(const ir::Function& f,
                                         const std::vector<ir::Tensor>& inputs,
                                         const Reference& ref, const ReferenceOptions& o) {
  return absolute_jacobian(f, inputs, ref, ref.out.blocks, o);
}

std::vector<double> hessian_magnitudes(const ir::FunctionPtr& f,
                                       const std::vector<ir::Tensor>& inputs, const Reference& ref,
                                       const ReferenceOptions& o) {
  if (ref.out.size != 1) return {};
  ad::Request r;
  r.mode = ad::Mode::Gradient;
  for (const auto& b : ref.in.blocks) r.wrt.push_back(ir::var_name(f->params[b.index]));
  ir::FunctionPtr gradient;
  try {
    gradient = ad::make_fwdvec_strategy()->differentiate(f, r).function;
  } catch (const std::exception&) {
    return {};  // fwdvec declines the program: no magnitudes, the hvp keeps its other rules
  }
  if (!gradient) return {};
  // the gradient program returns (f, one gradient block per wrt parameter)
  std::vector<Block> rows = ref.in.blocks;
  for (std::size_t b = 0; b < rows.size(); ++b) rows[b].index = 1 + b;
  return absolute_jacobian(*gradient, inputs, ref, rows, o);
}

}  // namespace adlab::checker
