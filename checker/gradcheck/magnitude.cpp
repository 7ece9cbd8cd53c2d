// |J| by one forward pass of sparse tangents with absolute partials (decision 205).
#include "checker/gradcheck/magnitude.h"

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
}  // namespace

std::vector<double> reference_magnitudes(const ir::Function& f,
                                         const std::vector<ir::Tensor>& inputs,
                                         const Reference& ref, const ReferenceOptions& o) {
  const std::size_t n = ref.in.size, m = ref.out.size;
  std::vector<std::size_t> wrt;
  for (const auto& b : ref.in.blocks) wrt.push_back(b.index);
  ad::sparse::TangentPass pass;
  try {
    MagnitudeMode mode;
    pass = ad::sparse::tangent_pass(f, inputs, wrt, ir::EvalOptions{o.sizes, false, false});
  } catch (const std::exception&) {
    return {};  // a construct the pass does not run: no magnitudes, the group rule applies
  }
  // tau's coordinates are the wrt parameters' stored entries in order, as the reference's columns
  if (pass.tau.size() != static_cast<std::int64_t>(n)) return {};
  std::vector<double> magnitude(m * n, 0.0);
  for (const auto& b : ref.out.blocks) {
    if (b.index >= pass.results.size() || pass.results[b.index].values.size() != b.count) return {};
    for (std::size_t k = 0; k < b.count; ++k)
      for (const auto& e : pass.results[b.index].values[k].tangent()) {
        if (e.coord < 0 || static_cast<std::size_t>(e.coord) >= n) return {};
        magnitude[(b.offset + k) * n + static_cast<std::size_t>(e.coord)] = e.value;
      }
  }
  return magnitude;
}

}  // namespace adlab::checker
