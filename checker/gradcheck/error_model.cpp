// Error model of the gradient checker (DESIGN 4.2).
#include "checker/gradcheck/error_model.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "checker/gradcheck/f32_paths.h"
#include "ir/interp/interpreter.h"

namespace adlab::checker {

namespace {
constexpr double kSafety = 64;
// How far an ill-conditioned primal (rho) may widen the model: a cancellation elsewhere in the
// function widened every derivative's tolerance to 1e-8, and an f32 one to 5.4 (the cap scaled
// with u), so derivatives 400 % wrong passed (decision 188). The largest tolerance a suite
// entry's AD cells needed is 4.7e-10 (accelerate/logsumexp2, worst error 3.7e-13).
constexpr double kMaxRhoTolerance = 1e-10;
// An f32 block of a function that computes nothing in f32 carries only the roundings of f64
// values to f32 where a derivative is stored or accumulated in an f32 variable, each within
// 2^-24: no f32 operation amplifies them, so the safety factor is 4, not 64 (decision 202).
constexpr double kF32RoundingSafety = 4;
// How many times the primal's operation count a derivative program's rounding is modelled with
// at most (decision 216): reverse mode's cost bound is 4-5 (paper 000 Thm 6.35), an hvp's about
// 10.
constexpr std::int64_t kMaxOpsPerEntry = 16;

bool is_f32(const ir::Type& t) {
  if (t.is_tuple()) return std::any_of(t.fields.begin(), t.fields.end(), is_f32);
  return t.elem == ir::ElemType::F32;
}

// Whether f's derivatives are f32 values or computed from f32 rounding (decision 177): f computes
// in f32, returns an f32 result (a tangent has its type), or a differentiated parameter is f32
// (its gradient block has its type). An f32 parameter only read into f64 arithmetic does not
// make f64 derivatives f32-accurate (decision 188).
bool derivatives_in_f32(const ir::Function& f, const std::vector<std::string>& wrt,
                        bool computes_f32) {
  for (const auto& p : f.params) {
    const bool differentiated =
        wrt.empty() ? ir::is_float(p->type.elem)
                    : std::find(wrt.begin(), wrt.end(), ir::var_name(p)) != wrt.end();
    if (differentiated && is_f32(p->type)) return true;
  }
  for (const auto& r : f.results)
    if (is_f32(r->type)) return true;
  return computes_f32;
}
}  // namespace

std::string Tolerance::basis() const {
  std::ostringstream os;
  os << "max(floor " << floor << ", min(64 u sqrt(ops+1) max(1, rho/u), max(1e-10, "
     << "64 u sqrt(ops+1)))) with ops=" << ops << ", rho=" << rho << ", u=" << unit_roundoff;
  return os.str();
}

double relative_to_primal(double difference, double want, double scale) {
  return std::fabs(difference) / std::max({std::fabs(want), 1e-3 * scale, 1e-300});
}

Tolerance derive_tolerance(const ir::Function& f, const std::vector<ir::Tensor>& inputs,
                           const Reference& ref, const std::map<std::string, std::int64_t>& sizes,
                           double floor, const std::vector<std::string>& wrt) {
  Tolerance t;
  t.floor = floor;
  t.f32_paths = f32_paths(f);
  if (derivatives_in_f32(f, wrt, t.computes_f32())) t.unit_roundoff = 0x1p-24;
  ir::Interpreter<double> interp(ir::EvalOptions{sizes, true, false});
  auto out = interp.run_tensors(f, inputs);
  t.ops = interp.counts().total();
  double scale = ref.primal_scale();
  std::size_t k = 0;
  for (const auto& r : out) {
    if (!ir::is_float(r.elem)) continue;
    for (double v : r.values) {
      t.double_primal.push_back(v);
      double want = ir::math::to_double(ref.primal[k++]);
      t.rho = std::max(t.rho, std::isfinite(v) ? relative_to_primal(v - want, want, scale) : 1.0);
    }
  }
  return t.with_floor(floor);
}

Tolerance Tolerance::with_floor(double accuracy) const {
  Tolerance t = *this;
  t.floor = accuracy;
  const double u = unit_roundoff;
  const double rounding = kSafety * u * std::sqrt(static_cast<double>(ops) + 1);
  const double model = rounding * std::max(1.0, rho / u);
  // An ill-conditioned primal (rho near 1, or a non-finite double result) must not widen the
  // tolerance until anything passes: rho widens it to 1e-10 at most, never past the rounding
  // model of an f32 function.
  t.value = std::max(t.floor, std::min(model, std::max(kMaxRhoTolerance, rounding)));
  return t;
}

bool Tolerance::computes_f32() const {
  return std::find(f32_paths.result.begin(), f32_paths.result.end(), true) !=
         f32_paths.result.end();
}

Tolerance Tolerance::with_unit(double u) const {
  if (unit_roundoff == u) return *this;
  Tolerance t = *this;
  t.unit_roundoff = u;
  return t.with_floor(floor);
}

Tolerance Tolerance::for_f64_block() const {
  return with_unit(0x1p-53);
}

Tolerance Tolerance::for_f32_arithmetic() const {
  return with_unit(0x1p-24);
}

Tolerance Tolerance::for_f32_block() const {
  Tolerance t = for_f64_block();
  const double rounding = kF32RoundingSafety * 0x1p-24 * std::sqrt(static_cast<double>(ops) + 1);
  t.value = std::max(t.value, rounding);
  return t;
}

Tolerance Tolerance::allowing_ops(std::int64_t program_ops) const {
  // Each derivative entry is computed along at most a few times the primal's operations (a
  // whole Jacobian in one program is many such computations side by side), so the program's
  // total counts up to kMaxOpsPerEntry times the primal's: a bloated derivative program no
  // longer loosens its own tolerance without bound (decision 216).
  const std::int64_t cap = kMaxOpsPerEntry * std::max<std::int64_t>(ops, 1);
  program_ops = std::min(program_ops, cap);
  if (program_ops <= ops) return *this;
  Tolerance t = *this;
  t.ops = program_ops;
  return t.with_floor(floor);
}

namespace {
// Entry k's relative error, |got - want| / max(|want|, 1e-3 * its group's scale, tiny), or
// against the group's floor scale where the group's reference is zero throughout, or against
// max(|want|, magnitude_k) where magnitudes are given; infinite where got or want is not
// finite. `errors` has the reference's resolution subtracted, `unresolved` does not; `coarse`
// is the resolution itself relative to an entry whose chain-rule terms say it is not zero.
// `spread` is the judging scale relative to a non-zero entry's value (its terms' magnitude over
// the value): where tolerance times it reaches 1, a 0 would pass.
struct EntryErrors {
  std::vector<double> errors, unresolved, coarse, spread;
};

EntryErrors relative_errors(const std::vector<double>& got, const std::vector<ir::mp50>& want,
                            const std::vector<std::size_t>& sizes, double floor_scale,
                            const std::vector<double>& group_floors,
                            const std::vector<double>& magnitudes = {},
                            const std::vector<double>& resolutions = {}) {
  const bool by_magnitude = magnitudes.size() == want.size();
  const bool resolved = resolutions.size() == want.size();
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> errors(want.size(), inf), raw(want.size(), inf), coarse(want.size(), 0.0),
      spread(want.size(), 0.0);
  std::size_t start = 0;
  for (std::size_t g = 0; g < sizes.size(); ++g) {
    const double floor_scale_g = g < group_floors.size() ? group_floors[g] : floor_scale;
    const std::size_t end = std::min(start + sizes[g], want.size());
    double scale = 0;
    for (std::size_t k = start; k < end; ++k)
      scale = std::max(scale, std::fabs(ir::math::to_double(want[k])));
    // A group that is zero throughout is judged against the function's magnitude.
    const bool zero_group = !(scale > 1e-30 * std::max(1.0, floor_scale_g));
    for (std::size_t k = start; k < end; ++k) {
      const double w = ir::math::to_double(want[k]);
      // The magnitude of the entry's own chain-rule terms, where known, replaces its group's
      // scale: a zero or a small entry was judged against the function or its group, so d/dw = 1
      // for an exact 0 beside a 1e14 constant passed (an audit helper; decision 205).
      // A non-finite magnitude (0 * inf in a partial) judges the entry by itself.
      const double mag = by_magnitude && std::isfinite(magnitudes[k]) ? magnitudes[k] : 0.0;
      const double denom = by_magnitude ? std::max({std::fabs(w), mag, 1e-300})
                           : zero_group ? std::max(floor_scale_g, 1e-300)
                                        : std::max({std::fabs(w), 1e-3 * scale, 1e-300});
      // what the reference cannot resolve is no error (decision 205)
      const double slack = resolved && std::isfinite(resolutions[k]) ? resolutions[k] : 0.0;
      if (std::isfinite(got[k]) && std::isfinite(w)) {
        errors[k] = std::max(std::fabs(got[k] - w) - slack, 0.0) / denom;
        raw[k] = std::fabs(got[k] - w) / denom;
      }
      // an entry its terms say is not zero, below what the reference resolves: any value
      // within the resolution passes, a wrong 0 as well as the right value (expm1'(-100) as 0
      // passed silently; an audit helper, decision 224)
      if (mag > 0) coarse[k] = slack / denom;
      if (by_magnitude && w != 0 && std::isfinite(w)) spread[k] = denom / std::fabs(w);
    }
    start = end;
  }
  return {errors, raw, coarse, spread};
}

// Each entry against its own tolerance: the worst entry is the one furthest past its tolerance
// (the error itself where tolerances are 0); the first non-finite entry is the one reported,
// and it always fails.
Comparison judge(const EntryErrors& e, const std::vector<double>& tolerances,
                 const std::vector<double>& got, const std::vector<ir::mp50>& want) {
  const std::vector<double>& errors = e.errors;
  Comparison c;
  // entries within their tolerance only thanks to the reference's resolution, or checked only
  // as finely as it resolves them
  for (std::size_t k = 0; k < errors.size(); ++k)
    if (errors[k] <= tolerances[k] &&
        (!(e.unresolved[k] <= tolerances[k]) || e.coarse[k] > tolerances[k])) {
      ++c.unresolved;
      c.unresolved_error = std::max({c.unresolved_error, e.unresolved[k], e.coarse[k]});
    }
  // entries whose tolerance admits 0: their terms cancel to a value below tolerance x terms
  // (40 steps of a chaotic map: |J| 3e22 for J = 1e9; an audit helper, decision 226)
  for (std::size_t k = 0; k < errors.size(); ++k)
    if (errors[k] <= tolerances[k] && e.spread[k] * tolerances[k] >= 1) {
      ++c.admits_zero;
      c.spread = std::max(c.spread, e.spread[k]);
    }
  if (!tolerances.empty()) c.tolerance = tolerances[0];
  double worst_excess = 0;
  for (std::size_t k = 0; k < errors.size(); ++k) {
    const double err = errors[k], tol = tolerances[k];
    const double excess = tol > 0 ? err / tol : err;
    const bool first_non_finite = !std::isfinite(err) && std::isfinite(c.worst_error);
    if (first_non_finite || (std::isfinite(c.worst_error) && (k == 0 || excess > worst_excess))) {
      worst_excess = excess;
      c.worst_error = err;
      c.tolerance = tol;
      c.worst_index = k;
      c.got = got[k];
      c.want = ir::math::to_double(want[k]);
    }
  }
  c.pass = std::isfinite(c.worst_error) && c.worst_error <= c.tolerance;
  return c;
}

std::vector<std::size_t> or_one_group(const std::vector<std::size_t>& groups, std::size_t n) {
  return groups.empty() ? std::vector<std::size_t>{n} : groups;
}
}  // namespace

Comparison compare(const std::vector<double>& got, const std::vector<ir::mp50>& want,
                   double tolerance, const std::vector<std::size_t>& groups, double floor_scale,
                   const std::vector<double>& group_floors,
                   const std::vector<double>& group_tolerances,
                   const std::vector<double>& magnitudes, const std::vector<double>& resolutions) {
  if (got.size() != want.size()) {
    Comparison c;
    c.pass = false;
    c.tolerance = tolerance;
    c.worst_error = std::numeric_limits<double>::infinity();
    return c;
  }
  const std::vector<std::size_t> sizes = or_one_group(groups, want.size());
  std::vector<double> tolerances;
  tolerances.reserve(want.size());
  for (std::size_t g = 0; g < sizes.size(); ++g)
    tolerances.insert(tolerances.end(), sizes[g],
                      g < group_tolerances.size() ? group_tolerances[g] : tolerance);
  tolerances.resize(want.size(), tolerance);
  Comparison c =
      judge(relative_errors(got, want, sizes, floor_scale, group_floors, magnitudes, resolutions),
            tolerances, got, want);
  if (want.empty()) c.tolerance = tolerance;
  return c;
}

Comparison compare_primal(const std::vector<double>& got, const Reference& ref,
                          const Tolerance& tol) {
  if (got.size() != ref.primal.size() || tol.double_primal.size() != ref.primal.size())
    return compare(got, ref.primal, tol.value);  // fails: the sizes differ
  const std::vector<std::size_t> sizes = ref.out.block_sizes();
  const double scale = ref.primal_scale();
  // Entry by entry against itself, not against its result's or the function's scale: 50 for an
  // exact 0 beside a 1e16 result, and an entry 1000 times its value beside a 1e20 entry of the
  // same result, passed (audit helpers; decision 205). A cancelling entry has its own allowance:
  // the interpreter's error there, under the same measure.
  const std::vector<double> itself(got.size(), 0.0);
  const EntryErrors errors = relative_errors(got, ref.primal, sizes, scale, {}, itself);
  const std::vector<double> rho =
      relative_errors(tol.double_primal, ref.primal, sizes, scale, {}, itself).errors;
  std::vector<double> allowances;
  allowances.reserve(got.size());
  for (const Block& block : ref.out.blocks) {
    // f32 arithmetic in the result's computation, an f32 copy of an input, or f64 (decision 206)
    const bool arithmetic = block.index < tol.f32_paths.result.size()
                                ? tol.f32_paths.result[block.index]
                                : tol.computes_f32();
    const bool f32 = ref.results.at(block.index).elem == ir::ElemType::F32;
    const double base = arithmetic ? tol.for_f32_arithmetic().value
                        : f32      ? tol.for_f32_block().value
                                   : tol.for_f64_block().value;
    for (std::size_t k = block.offset; k < block.offset + block.count; ++k)
      // Entry by entry: a cancelling entry excuses its own rounding, not its neighbours'; where
      // the double run is not finite it excuses nothing (decision 202).
      allowances.push_back(std::max(base, std::isfinite(rho[k]) ? 4 * rho[k] : 0.0));
  }
  return judge(errors, allowances, got, ref.primal);
}

}  // namespace adlab::checker
