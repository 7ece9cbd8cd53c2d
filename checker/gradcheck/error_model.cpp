// Error model of the gradient checker (DESIGN 4.2).
#include "checker/gradcheck/error_model.h"

#include <cmath>
#include <sstream>

#include "ir/interp/interpreter.h"

namespace adlab::checker {

namespace {
constexpr double kUnitRoundoff = 1.1102230246251565e-16;  // 2^-53
constexpr double kSafety = 64;
constexpr double kMaxModelTolerance = 1e-8;
}  // namespace

std::string Tolerance::basis() const {
  std::ostringstream os;
  os << "max(floor " << floor << ", 64 u sqrt(ops+1) max(1, rho/u)) with ops=" << ops
     << ", rho=" << rho;
  return os.str();
}

Tolerance derive_tolerance(const ir::Function& f, const std::vector<ir::Tensor>& inputs,
                           const Reference& ref, const std::map<std::string, std::int64_t>& sizes,
                           double floor) {
  Tolerance t;
  t.floor = floor;
  ir::Interpreter<double> interp(ir::EvalOptions{sizes, true, false});
  auto out = interp.run_tensors(f, inputs);
  t.ops = interp.counts().total();
  double scale = 0;
  for (const auto& p : ref.primal) scale = std::max(scale, std::fabs(ir::math::to_double(p)));
  std::size_t k = 0;
  for (const auto& r : out) {
    if (!ir::is_float(r.elem)) continue;
    for (double v : r.values) {
      double want = ir::math::to_double(ref.primal[k++]);
      double denom = std::max({std::fabs(want), 1e-3 * scale, 1e-300});
      t.rho = std::max(t.rho, std::isfinite(v) ? std::fabs(v - want) / denom : 1.0);
    }
  }
  double model = kSafety * kUnitRoundoff * std::sqrt(static_cast<double>(t.ops) + 1) *
                 std::max(1.0, t.rho / kUnitRoundoff);
  // An ill-conditioned primal (rho near 1, or a non-finite double result) must not widen the
  // tolerance until anything passes: the model is capped.
  t.value = std::max(floor, std::min(model, kMaxModelTolerance));
  return t;
}

Comparison compare(const std::vector<double>& got, const std::vector<ir::mp50>& want,
                   double tolerance, std::size_t row_length, double floor_scale) {
  Comparison c;
  if (got.size() != want.size()) {
    c.pass = false;
    c.worst_error = std::numeric_limits<double>::infinity();
    return c;
  }
  std::size_t len = row_length == 0 ? std::max<std::size_t>(want.size(), 1) : row_length;
  for (std::size_t start = 0; start < want.size(); start += len) {
    double scale = 0;
    for (std::size_t k = start; k < std::min(start + len, want.size()); ++k)
      scale = std::max(scale, std::fabs(ir::math::to_double(want[k])));
    for (std::size_t k = start; k < std::min(start + len, want.size()); ++k) {
      double w = ir::math::to_double(want[k]);
      double denom = std::max({std::fabs(w), 1e-3 * scale, 1e-3 * floor_scale, 1e-300});
      double err = std::isfinite(got[k]) ? std::fabs(got[k] - w) / denom
                                         : std::numeric_limits<double>::infinity();
      if (k == 0 || !(err <= c.worst_error)) {  // NaN and infinity are worst
        c.worst_error = err;
        c.worst_index = k;
        c.got = got[k];
        c.want = w;
      }
    }
  }
  c.pass = c.worst_error <= tolerance;
  return c;
}

}  // namespace adlab::checker
