// Multiprecision finite-difference references (DESIGN 4.2), parallel over input coordinates.
#include "checker/gradcheck/reference.h"

#include "checker/gradcheck/dependence.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <limits>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "ad/strategy.h"
#include "ir/context.h"
#include "ir/error.h"
#include "ir/interp/interpreter_mp.h"
#include "ir/tensor/tensor_ops.h"

namespace adlab::checker {

using ir::mp50;
using MpTensors = std::vector<ir::BasicTensor<mp50>>;

mp50 richardson(std::vector<mp50> d) {
  // Row k of the table: d[k] at step h / 2^k; each pass removes the next even power of h.
  mp50 factor = 4;
  for (std::size_t level = 1; level < d.size(); ++level) {
    for (std::size_t k = d.size() - 1; k >= level; --k)
      d[k] = (factor * d[k] - d[k - 1]) / (factor - 1);
    factor *= 4;
  }
  return d.back();
}

double Reference::primal_scale() const {
  double s = 0;
  for (const auto& p : primal) s = std::max(s, std::fabs(ir::math::to_double(p)));
  return s;
}

double Reference::result_scale(std::size_t b) const {
  double s = 0;
  const Block& blk = out.blocks.at(b);
  for (std::size_t k = blk.offset; k < blk.offset + blk.count && k < primal.size(); ++k)
    s = std::max(s, std::fabs(ir::math::to_double(primal[k])));
  return s > 0 ? s : primal_scale();
}

namespace {

std::string step_text(double h) {  // 1e-07, not std::to_string's 0.000000
  char b[32];
  std::snprintf(b, sizeof b, "%.3g", h);
  return b;
}

// Sizes, no operation counts, kink tracking; the rounding probe when asked for.
ir::EvalOptions evaluation_options(const ReferenceOptions& o) {
  ir::EvalOptions eo{o.sizes, false, true};
  eo.rounding_probe = o.rounding_probe;
  return eo;
}

// Evaluates f at perturbed inputs; one per worker thread (interpreters are not shared).
class Evaluator {
 public:
  Evaluator(const ir::Function& f, const MpTensors& base, const Layout& in,
            const ReferenceOptions& o)
      : f_(f), base_(base), in_(in), interp_(evaluation_options(o)) {}

  // Flattened floating results at x0 + delta (delta over the wrt coordinates).
  std::vector<mp50> at(const std::vector<mp50>& x) {
    MpTensors args = base_;
    scatter_into(in_, x, args);
    auto out = interp_.run_tensors(f_, args);
    branches_ = interp_.kink().branches;
    branch_points_ = interp_.kink().branch_points;
    second_order_branch_points_ = interp_.kink().second_order_branch_points;
    std::vector<mp50> flat;
    for (const auto& t : out)
      if (ir::is_float(t.elem)) flat.insert(flat.end(), t.values.begin(), t.values.end());
    return flat;
  }

  std::uint64_t branches() const { return branches_; }
  std::uint64_t branch_points() const { return branch_points_; }
  std::uint64_t second_order_branch_points() const { return second_order_branch_points_; }

 private:
  std::uint64_t branches_ = 0;
  std::uint64_t branch_points_ = 0;
  std::uint64_t second_order_branch_points_ = 0;
  const ir::Function& f_;
  const MpTensors& base_;
  const Layout& in_;
  ir::Interpreter<mp50> interp_;
};

int thread_count(const ReferenceOptions& o, std::size_t work) {
  int n = o.threads > 0 ? o.threads
                        : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return static_cast<int>(
      std::min<std::size_t>(static_cast<std::size_t>(n), std::max<std::size_t>(work, 1)));
}

// Runs job(evaluator, k) for k in [0, n) on worker threads; rethrows the first error.
template <class Job>
void parallel_for(std::size_t n, int threads, const ir::Function& f, const MpTensors& base,
                  const Layout& in, const ReferenceOptions& o, Job job) {
  std::atomic<std::size_t> next{0};
  std::exception_ptr error;
  std::mutex error_mutex;
  ir::Context* ctx = &ir::Context::current();
  auto worker = [&] {
    ir::ContextScope scope(*ctx);
    Evaluator ev(f, base, in, o);
    for (;;) {
      std::size_t k = next.fetch_add(1);
      if (k >= n) return;
      try {
        job(ev, k);
      } catch (...) {
        std::lock_guard lock(error_mutex);
        if (!error) error = std::current_exception();
        next = n;
        return;
      }
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

mp50 step_for(const mp50& x, double step) {
  using boost::multiprecision::abs;
  mp50 ax = abs(x);
  return mp50(step) * (ax > 1 ? ax : mp50(1));
}

// What 50-digit differences of values up to |f| resolve at a step (or product of steps) h:
// kMpResolution |f| / h, in mp50: in double, 1e-48 |f| underflowed to 0 for |f| below 1e-276 and
// claimed an exact reference (a reviewing helper; decision 232).
double mp_resolution(double f, const mp50& h) {
  return ir::math::to_double(mp50(kMpResolution) * mp50(f) / h);
}

// right slope - left slope per result entry of a stencil x0 +- h v:
// (f(x0 + h v) - 2 f(x0) + f(x0 - h v)) / h (signed: its limit is extrapolated, decision 259)
std::vector<mp50> slope_gaps(const std::vector<mp50>& plus, const std::vector<mp50>& minus,
                             const std::vector<mp50>& primal, const mp50& h) {
  std::vector<mp50> g(primal.size());
  for (std::size_t i = 0; i < g.size(); ++i) g[i] = (plus[i] - 2 * primal[i] + minus[i]) / h;
  return g;
}

// An extrapolated estimate's whole error: its resolution, or the truncation it improves on (the
// change from one Richardson level fewer); infinite where the estimate or a stencil value is not
// finite (decisions 224, 227, 228).
double estimate_error(const mp50& value, const mp50& coarser, double resolution, bool finite) {
  const double truncation = std::fabs(ir::math::to_double(value - coarser));
  return finite && std::isfinite(truncation) && std::isfinite(ir::math::to_double(value))
             ? std::max(resolution, truncation)
             : std::numeric_limits<double>::infinity();
}

// Each entry keeps the estimate with the smaller error: the fine one where its error is below
// (a tiny coordinate's relative step, decision 224; a retake, decision 256).
void keep_better(std::vector<mp50>& value, std::vector<double>& resolution,
                 std::vector<double>& error, const std::vector<mp50>& fine_value,
                 const std::vector<double>& fine_resolution,
                 const std::vector<double>& fine_error) {
  for (std::size_t i = 0; i < value.size(); ++i)
    if (fine_error[i] < error[i]) {
      value[i] = fine_value[i];
      resolution[i] = fine_resolution[i];
      error[i] = fine_error[i];
    }
}

// A coordinate that also gets a step relative to itself (decision 224).
bool is_tiny(const mp50& x) {
  const double ax = std::fabs(ir::math::to_double(x));
  return ax > 0 && ax < kRelativeStepBelow;
}

// A branch point's limit is taken where the three windows agree, and the quotients' rounding
// lies, within this of the value (or below kBranchPointFloor, for a value of 0): they differ
// where the quotients hold several powers (x |x| + x |x|^0.5, or h and h^4 of a large step) or
// rounding the extrapolation amplifies (p near 0), and a term that barely moves can hide under
// rounding as coarse as 3e-11 (f = 1e24: x |x|^1e-4 added 1e-7; a reviewing helper,
// /work/stage/audit37_review).
constexpr double kBranchPointAgreement = 1e-20;
constexpr double kBranchPointFloor = 1e-50;
// Whether `uncertainty` (a rounding or a disagreement) is small enough beside `value`.
bool settled(double uncertainty, const mp50& value) {
  return uncertainty <=
         std::max(kBranchPointAgreement * std::fabs(ir::math::to_double(value)), kBranchPointFloor);
}
// A smooth column's step, 1e-12 max(|x|, 1), is 0.01 at x = 1e10, where 3 sin(x) + 1e30's
// Richardson value was 2e-11 off (its h^4 term) and every right strategy FAILed at a tolerance
// of 1.7e-14 (an audit helper's z4_ctl_far; decision 256). Where an entry's truncation estimate
// exceeds its rounding and kRetakeAbove of its value, the column is retaken with
// kRetakeExtraLevels more Richardson levels at steps 10, 10^3, 10^6, ..., 10^21 times smaller
// (retake r shrinks by 10^r more: x = 1e20 needs a step below 1e-2, x = 1e10 beside f = 1e30
// one near 1e-3), until every entry is below that; each entry keeps the estimate with the
// smaller error. More levels rather than only smaller steps: beside f = 1e30 the rounding,
// 1e-20 / h, allows no step below 1e-3. No stop at a retake that improves nothing: at
// x = 1e14 a step of 10 aliases sin into small values with small estimates, and the next,
// honest one looked worse (a reviewing helper, /work/stage/audit38_review). The estimate is
// the h^2 term two levels remove, far above their value's error, so the bar is a tenth of a
// double's rounding, not `settled`'s 1e-20: that retook sin(x) at |x| = 250 for nothing
// (three times the time for a 120-input entry at 1e3).
constexpr int kSmoothRetakes = 6;
// Retake r (from 1) divides the previous retake's step by 10^r: the first step over
// 10^(r (r + 1) / 2) in all.
mp50 retake_shrink(int r) {
  return boost::multiprecision::pow(mp50(10), r);
}
constexpr int kRetakeExtraLevels = 2;
constexpr double kRetakeAbove = 1e-17;
bool all_truncations_settled(const std::vector<mp50>& value, const std::vector<double>& resolution,
                             const std::vector<double>& error) {
  for (std::size_t i = 0; i < value.size(); ++i) {
    // a NaN value (a stencil past a domain's edge: log(s + 1e-13) at s = 0) was "settled", as
    // every comparison with it is false, and never retaken inside the domain (an audit fuzz)
    const double v = std::fabs(ir::math::to_double(value[i]));
    if (!std::isfinite(v) || !std::isfinite(error[i])) return false;
    if (error[i] > resolution[i] && error[i] > std::max(kRetakeAbove * v, kBranchPointFloor))
      return false;
  }
  return true;
}
// The limit of difference quotients d[k] at steps h / 2^k (four of them) at a differentiable
// branch point, where they are D + c h^p + b h^2 + ... for an unknown p (x |x| at 0: p = 1;
// x |x|^0.5: p = 0.5) rather than Richardson's series in h^2. Richardson pairs remove the h^2
// term (the smooth part's), then Aitken's delta-squared removes c h^p whatever p: exact for
// one such power, and the caller compares three of these limits to see whether it was one.
// Where the pairs have no second difference above the quotients' rounding `noise`, a term may
// hide there: x |x|^1e-15 moves them (by 5e-22) without bending them, and x |x|^1e-4 beside
// f = 1e24 moves them by less than their rounding, each adding 1e-7 (a reviewing helper).
// Plain Richardson is then taken only where the pairs are exactly equal (no term at all), or
// they do not move beyond the rounding and the rounding is below kBranchPointAgreement of the
// value; elsewhere NaN (no limit to judge by). A term that moves them by less than 1e-20 of
// the value while adding more (x |x|^1e-14: 1e-21 and 1e-7) is beyond any difference quotient.
mp50 branch_point_limit(const std::vector<mp50>& d, double noise) {
  std::vector<mp50> r;
  for (std::size_t k = 0; k + 1 < d.size(); ++k) r.push_back((4 * d[k + 1] - d[k]) / 3);
  const mp50 delta = r[2] - r[1], second = r[2] - 2 * r[1] + r[0];
  using boost::multiprecision::abs;
  if (abs(second) > mp50(noise)) {
    // Aitken also "extrapolates" a diverging c h^p (p < 0) to its antilimit: (x x)^0.75's
    // second differences grow as h^-0.5 and gave H = 0 where none exists (decision 257)
    const mp50 limit = r[2] - delta * delta / second;
    if (abs(r[2] - limit) > abs(r[0] - limit)) return std::numeric_limits<mp50>::quiet_NaN();
    return limit;
  }
  const mp50 plain = richardson(d);
  const bool flat = abs(delta) <= mp50(noise) && abs(r[1] - r[0]) <= mp50(noise);
  if ((delta == 0 && r[1] == r[0]) || (flat && settled(noise, plain))) return plain;
  return std::numeric_limits<mp50>::quiet_NaN();  // also where a quotient is not finite
}
// The levels a branch point's column takes: three limits of four quotients each. Two windows
// agreed on a reference 1e-7 off where two powers' Aitken residuals were tuned to be equal at
// both (a reviewing helper, /work/stage/audit36_review); a third breaks the tie.
constexpr int kBranchPointLevels = 6;
// The last window's branch_point_limit of kBranchPointLevels quotients, and whichever of the
// two earlier windows' limits is farther from it (a non-finite one first): the difference is
// the limit's error estimate (decisions 254, 257).
std::pair<mp50, mp50> branch_point_windows(const std::vector<mp50>& d, double noise) {
  using boost::multiprecision::abs;
  const mp50 limit = branch_point_limit({d.begin() + 2, d.end()}, noise);
  mp50 farther = limit;
  for (std::size_t w = 0; w < 2; ++w) {
    const mp50 other = branch_point_limit({d.begin() + w, d.end() - 2 + w}, noise);
    if (!boost::multiprecision::isfinite(other) || abs(other - limit) > abs(farther - limit))
      farther = other;
  }
  return {limit, farther};
}

// The limit of three one-sided slope gaps at steps h, h / 2, h / 4, which are G + c h^q (q > 0
// unknown: a smooth f's gap is h f'', |x|^1.5's c h^0.5, a kink's its jump G): Aitken's
// delta-squared, exact for one power; a constant gap (no second difference above `noise`) is
// its own limit; NaN where the gaps change by equal steps (no power) or grow (decision 259).
mp50 gap_limit(const mp50& a, const mp50& b, const mp50& c, double noise) {
  using boost::multiprecision::abs;
  const mp50 delta = c - b, second = c - 2 * b + a;
  if (abs(second) <= mp50(noise))
    return abs(delta) <= mp50(noise) ? c : std::numeric_limits<mp50>::quiet_NaN();
  const mp50 limit = c - delta * delta / second;
  if (abs(c - limit) > abs(a - limit)) return std::numeric_limits<mp50>::quiet_NaN();
  return limit;
}
// The three windows' limits of a gap's pairs may spread by this much of the largest pair (a
// smooth f's pairs hold h^3 and h^5 terms, which Aitken leaves at about h^2 of them) before
// the limit is not trusted (decision 259).
constexpr double kGapLimitZero = 1e-6;

// A base moved off 0 is a kink where the one-sided slopes differ in the limit h -> 0 (|x|: a
// gap of 2 at every step), not where their gap vanishes with h (x^2 = sqrt(x^4): 2 h; x |x|:
// 0; |x|^1.5: c h^0.5). `gaps`: right slope - left slope per level and result entry, for the
// levels whose stencil moved a base off 0; every level must have (decision 249). Pairs
// 2 g(h / 2) - g(h) remove the smooth part's h f''; the limits of the last three windows of
// three pairs (gap_limit) must agree, and the last be 0 within the rounding and their spread,
// or it is a kink. The first version compared the last gap with the first (a kink below 0.8
// of it): a smooth part's h f'' shrinks with h and took the jump along, so
// sqrt((x - c)^2) + 1000 (x - c)^2 at x = c = 1e9 (step 1e-3; gaps 4 -> 3), and the second
// derivative of x |x| + 2 x^2 + sin(3000 x) at 0, PASSed (reviewing helpers,
// /work/stage/audit39_review, audit40_review; decision 259). Needs kBranchPointLevels levels;
// fewer decide nothing.
bool slopes_stay_apart(const std::vector<std::vector<mp50>>& gaps, const std::vector<double>& seen,
                       const mp50& h_last, int levels) {
  using boost::multiprecision::abs;
  if (static_cast<int>(gaps.size()) != levels || levels < kBranchPointLevels) return false;
  static_assert(kBranchPointLevels >= 6, "three windows of three pairs");
  for (std::size_t i = 0; i < seen.size(); ++i) {
    const double noise = mp_resolution(std::max(seen[i], 1e-300), h_last);
    mp50 largest_gap = 0;
    for (const auto& g : gaps) largest_gap = std::max(largest_gap, mp50(abs(g[i])));
    if (!boost::multiprecision::isfinite(largest_gap)) return true;
    if (largest_gap <= mp50(noise)) continue;  // flat: no gap at any step
    // pairs 2 g(h / 2) - g(h) remove a smooth part's h f'' (|x|^1.5 + x^2: c h^0.5 + 2 h is no
    // single power), then the last three windows of three pairs. Their limit is 0 against the
    // pairs, not the gaps: a smooth part 1e6 times a kink's jump (|x| + cos(2e9 x), h f'' = 4e6
    // beside 2) set the bar above the jump, and the kink PASSed (a reviewing helper,
    // /work/stage/audit40_review). In 50 digits: gaps rounded to doubles left the pairs of a
    // smooth f'' of 4e6 at 1e-9 of noise.
    std::vector<mp50> pair;
    mp50 largest = 0;
    for (std::size_t k = 0; k + 1 < gaps.size(); ++k) {
      pair.push_back(2 * gaps[k + 1][i] - gaps[k][i]);
      largest = std::max(largest, mp50(abs(pair.back())));
    }
    // The last window's limit must be 0 within the rounding and the windows' spread, and the
    // spread small beside the pairs (several powers that no window resolves: a kink). Against
    // a bar of 1e-6 of the pairs instead, |x| + 1e8 |x|^1.1 (pairs 2 + 1.1e7 h^0.1, every
    // window's limit exactly 2) PASSed.
    std::vector<mp50> limits;
    for (std::size_t w = pair.size() - 5; w + 2 < pair.size(); ++w)
      limits.push_back(gap_limit(pair[w], pair[w + 1], pair[w + 2], 3 * noise));
    mp50 spread = 0;
    for (const auto& l : limits) {
      if (!boost::multiprecision::isfinite(l)) return true;  // a window with no limit
      spread = std::max(spread, mp50(abs(l - limits.back())));
    }
    const mp50 rounding = 12 * noise;
    if (!(spread <= std::max(rounding, mp50(kGapLimitZero) * largest))) return true;
    if (!(abs(limits.back()) <= rounding + spread)) return true;
  }
  return false;
}

// The directions a cusp no single coordinate shows is looked for along (decision 254): every
// coordinate together, alternating signs, then kSeededCuspDirections seeded pseudo-random
// directions with entries in [-1, 1]. A cusp seen along some direction is seen along almost
// every direction unless its base is clipped to a cone (sqrt(max(q, 0)) with q a quadratic
// form): a cone w degrees wide is hit by each direction with a chance of about w / 180, so one
// of 15 degrees is missed 7% of the time, and one under a few degrees almost always.
constexpr int kSeededCuspDirections = 30;
std::vector<std::pair<std::string, std::vector<double>>> cusp_directions(std::size_t n) {
  std::vector<std::pair<std::string, std::vector<double>>> d;
  d.emplace_back("(1, ..., 1)", std::vector<double>(n, 1.0));
  std::vector<double> alternating(n);
  for (std::size_t k = 0; k < n; ++k) alternating[k] = k % 2 == 0 ? 1.0 : -1.0;
  d.emplace_back("(1, -1, 1, ...)", alternating);
  std::uint64_t state = 0x9e3779b97f4a7c15ULL;  // splitmix64, fixed seed: runs are reproducible
  auto next = [&state] {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  };
  for (int k = 0; k < kSeededCuspDirections; ++k) {
    std::vector<double> v(n);
    // multiples of 1/64 in [-1, 1] other than 0: exact steps, every coordinate moved
    for (auto& x : v) {
      const auto u = static_cast<int>(next() % 128);
      x = (u < 64 ? u - 64 : u - 63) / 64.0;
    }
    std::string text = "seeded direction " + std::to_string(k + 1) + " (";
    for (std::size_t i = 0; i < std::min<std::size_t>(n, 4); ++i)
      text += (i > 0 ? ", " : "") + std::to_string(static_cast<int>(v[i] * 64)) + "/64";
    d.emplace_back(text + (n > 4 ? ", ...)" : ")"), v);
  }
  return d;
}

struct Prepared {
  MpTensors base;
  Layout in;
  std::vector<mp50> x0;
};

Prepared prepare(const ir::Function& f, const std::vector<ir::Tensor>& inputs,
                 const std::vector<std::string>& wrt) {
  // Differences of a rounded value are 0 or a jump: the derivative the strategies give through
  // f32(x) (x's, decision 157) is not what finite differences measure, so none is checked.
  try {
    ad::reject_f32_rounding(f, "the checker's reference",
                            "finite differences see its rounding steps, not a derivative");
  } catch (const ad::Unsupported& e) {
    throw Error(static_cast<const Error&>(e));  // an ERROR, not a construct a strategy declines
  }
  Prepared p;
  for (const auto& t : inputs) p.base.push_back(ir::convert_scalar<mp50>(t));
  p.in = input_layout(f, wrt, inputs);
  p.x0 = gather(p.in, p.base);
  return p;
}

}  // namespace

Reference reference_jacobian(const ir::Function& f, const std::vector<ir::Tensor>& inputs,
                             const std::vector<std::string>& wrt, const ReferenceOptions& o) {
  auto t0 = std::chrono::steady_clock::now();
  Prepared p = prepare(f, inputs, wrt);
  Reference r;
  r.in = p.in;
  {  // the primal, with kink tracking, in mp50: switches the wrt inputs can move (decision 207)
    std::vector<std::size_t> wrt_params;
    for (const auto& b : p.in.blocks) wrt_params.push_back(b.index);
    const auto movable = nodes_reading(f, wrt_params);
    ir::EvalOptions eo = evaluation_options(o);
    eo.kink_nodes = &movable;
    ir::Interpreter<mp50> interp(eo);
    auto out = interp.run_tensors(f, p.base);
    r.kink = interp.kink();
    for (const auto& t : out) {
      r.results.push_back(ir::convert_scalar<double>(t));
      if (ir::is_float(t.elem)) r.primal.insert(r.primal.end(), t.values.begin(), t.values.end());
    }
    r.out = output_layout(r.results);
  }
  const std::size_t n = r.in.size, m = r.out.size;
  r.jacobian.assign(n * m, mp50(0));
  std::atomic<bool> changed{false};
  std::mutex note_mutex;
  // The first reason any column gives for a kink is the note (columns run in parallel).
  auto note_kink = [&](const std::string& note) {
    if (changed.exchange(true)) return;
    std::lock_guard lock(note_mutex);
    r.branch_note = note;
  };
  r.resolution.assign(n * m, 0.0);
  std::atomic<std::size_t> evaluations{1};
  parallel_for(n, thread_count(o, n), f, p.base, p.in, o, [&](Evaluator& ev, std::size_t j) {
    // Column j by central differences from step h over o.levels halvings, Richardson
    // extrapolated, and what they resolve: kMpResolution times the largest |f_i| the stencil
    // saw, over the smallest step (|f(x0)| alone missed x^2 at 1e-150, whose stencil values
    // are h^2 = 1e-24; an audit helper, decision 224).
    // `error` estimates each entry's whole error: the resolution or the truncation of the
    // extrapolation of one level fewer (which the returned value, with every level, improves
    // on), infinite where a stencil value or the estimate is not finite (a step that leaves
    // log's domain). The difference from the level-0 value alone overstated it by orders and
    // handed a worse step the choice (a reviewing helper; decision 227).
    // Returns whether the stencil moved a branch point's base off 0. `branch_point`: the
    // column is at a differentiable branch point (kBranchPointLevels levels): each entry's value
    // is branch_point_limit of the last four quotients, its error estimate the larger difference
    // from those of the two earlier windows of four.
    auto column = [&](mp50 h, int levels, std::vector<mp50>& value, std::vector<double>& resolution,
                      std::vector<double>& error, bool branch_point) -> bool {
      std::vector<std::vector<mp50>> d(static_cast<std::size_t>(levels));
      // |one-sided slope to the right - to the left| per level, where a branch point's base
      // left 0 (decision 249)
      std::vector<std::vector<mp50>> slope_gap;
      std::vector<double> seen(m, 0.0);
      std::vector<bool> finite(m, true);
      for (std::size_t i = 0; i < m; ++i) seen[i] = std::fabs(ir::math::to_double(r.primal[i]));
      auto note_change = [&](const std::string& why) {
        note_kink("moving input coordinate " + std::to_string(j) + " by " +
                  step_text(ir::math::to_double(h)) + why);
      };
      for (int level = 0; level < levels; ++level, h /= 2) {
        std::vector<mp50> x = p.x0;
        x[j] = p.x0[j] + h;
        auto plus = ev.at(x);
        bool flip = ev.branches() != r.kink.branches;
        bool moved_off_zero = ev.branch_points() != r.kink.branch_points;
        x[j] = p.x0[j] - h;
        auto minus = ev.at(x);
        flip = flip || ev.branches() != r.kink.branches;
        moved_off_zero = moved_off_zero || ev.branch_points() != r.kink.branch_points;
        if (flip) note_change(" changes a branch");
        if (moved_off_zero && plus.size() == m && minus.size() == m)
          slope_gap.push_back(slope_gaps(plus, minus, r.primal, h));
        if (plus.size() != m || minus.size() != m)
          throw Error(
              "the number of result entries changes under perturbation (a value-dependent "
              "sparse pattern?)");
        auto& row = d[static_cast<std::size_t>(level)];
        row.resize(m);
        for (std::size_t i = 0; i < m; ++i) {
          row[i] = (plus[i] - minus[i]) / (2 * h);
          const double a = std::fabs(ir::math::to_double(plus[i]));
          const double b = std::fabs(ir::math::to_double(minus[i]));
          finite[i] = finite[i] && std::isfinite(a) && std::isfinite(b);
          seen[i] = std::max({seen[i], a, b});
        }
      }
      evaluations += 2 * static_cast<std::size_t>(levels);
      const mp50 h_last = h * 2;  // the smallest step taken
      if (slopes_stay_apart(slope_gap, seen, h_last, levels)) {
        h = h_last;
        note_change(" moves a branch point's base off 0 where the one-sided slopes differ");
      }
      value.resize(m);
      resolution.resize(m);
      error.resize(m);
      for (std::size_t i = 0; i < m; ++i) {
        std::vector<mp50> est;
        for (auto& row : d) est.push_back(row[i]);
        resolution[i] = mp_resolution(std::max(seen[i], 1e-300), h_last);
        if (branch_point && est.size() == kBranchPointLevels) {
          // the last window's limit, its error the larger difference from the other two
          const auto [limit, farther] = branch_point_windows(est, resolution[i]);
          value[i] = limit;
          error[i] = estimate_error(limit, farther, resolution[i], finite[i]);
        } else {
          value[i] = richardson(est);
          const mp50 coarser = est.size() > 1 ? richardson({est.begin(), est.end() - 1}) : value[i];
          error[i] = estimate_error(value[i], coarser, resolution[i], finite[i]);
        }
      }
      return !slope_gap.empty();
    };
    std::vector<mp50> value;
    std::vector<double> resolution, error;
    const bool tiny = is_tiny(p.x0[j]);
    // a tiny coordinate's two columns take one level more, for their error estimates
    const int levels = tiny ? o.levels + 1 : o.levels;
    const mp50 step = step_for(p.x0[j], o.step);
    const bool moved_off_zero = column(step, levels, value, resolution, error, false);
    // Where the stencil moved a branch point's base off 0 and the slopes agree there, f is
    // differentiable but not smooth, and its central differences are not c h^2 + c' h^4 + ...:
    // x |x| = x sqrt(x^2) at 0 gives exactly h, so Richardson's value at h = 1e-12, 3.3e-13,
    // FAILed every right 0. Such a column (and a tiny coordinate's relative one) is taken again
    // over kBranchPointLevels levels and extrapolated by branch_point_limit (decision 254).
    const int column_levels = moved_off_zero ? kBranchPointLevels : levels;
    if (moved_off_zero) column(step, column_levels, value, resolution, error, true);
    // A coordinate far below 1 also gets a step relative to itself, and each entry takes the
    // estimate with the smaller error estimate: the step of max(|x|, 1) cannot see x^2's
    // derivative at x = 1e-150 in 50 digits (it read 0, and every strategy FAILed; decision
    // 224), nor log's at 1e-10 (1% of x: 5e-10 off) or 1e-13 (past the pole: NaN; decision
    // 225), while a relative step cannot see sin(x + 1)'s.
    if (tiny) {
      std::vector<mp50> fine_value;
      std::vector<double> fine_resolution, fine_error;
      column(mp50(o.step) * boost::multiprecision::abs(p.x0[j]), column_levels, fine_value,
             fine_resolution, fine_error, moved_off_zero);
      keep_better(value, resolution, error, fine_value, fine_resolution, fine_error);
    }
    // A smooth column whose truncation has not settled is retaken at smaller steps; each entry
    // takes the estimate with the smaller error (decision 256).
    if (!moved_off_zero) {
      mp50 h = step;
      for (int retake = 0;
           retake < kSmoothRetakes && !all_truncations_settled(value, resolution, error);
           ++retake) {
        h /= retake_shrink(retake + 1);
        std::vector<mp50> fine_value;
        std::vector<double> fine_resolution, fine_error;
        column(h, levels + kRetakeExtraLevels, fine_value, fine_resolution, fine_error, false);
        keep_better(value, resolution, error, fine_value, fine_resolution, fine_error);
      }
    }
    // A branch point's limit is used only where its three extrapolations agree and the
    // quotients' rounding is negligible, both `settled` (1e-20 relative), and the difference
    // becomes part of the resolution. Beside f = 1e22 at a step of 1e-12 the 50-digit
    // quotients resolve only 1e-14 of a derivative of 3: such an entry is AT-KINK, not judged.
    // Elsewhere no value is trustworthy enough to judge a strategy by, and the entry is AT-KINK:
    // a first version that widened the resolution by a truncation estimate let 1e-7 errors pass
    // beside f = 1e22, and Aitken alone left a b h^2 term 1e-7 off, FAILing right strategies
    // and PASSing one 1e-7 wrong (reviewing helpers, /work/stage/audit34_review, audit35_review).
    if (moved_off_zero) {
      for (std::size_t i = 0; i < m; ++i) {
        if (settled(error[i], value[i])) {  // error[i] is at least the resolution
          resolution[i] = std::max(resolution[i], error[i]);
          continue;
        }
        note_kink("moving input coordinate " + std::to_string(j) +
                  " moves a branch point's base off 0 where its differences converge to no "
                  "single order (" +
                  (std::isfinite(error[i])
                       ? "three extrapolations or their rounding differ by " + step_text(error[i])
                       : std::string("no extrapolation settles")) +
                  ")");
        break;
      }
    }
    for (std::size_t i = 0; i < m; ++i) {
      r.jacobian[i * n + j] = value[i];
      r.resolution[i * n + j] = resolution[i];
    }
  });
  // A branch point that no single coordinate moves off 0 can still be a cusp: sqrt(x y) at the
  // origin is |t| along (1, 1), sqrt(max(-x y, 0)) along (1, -1), and pow(u^2, 1/6) with
  // u = x y (x - y) along neither (it vanishes on both). Every coordinate is stepped together
  // along a few fixed directions, stopping at the first that shows one (decisions 249, 254).
  if (!changed && r.kink.branch_point.defined() && n > 1) {
    Evaluator ev(f, p.base, p.in, o);
    mp50 largest = 0;
    for (const auto& x : p.x0) largest = std::max(largest, mp50(boost::multiprecision::abs(x)));
    for (const auto& [name, v] : cusp_directions(n)) {
      mp50 h = step_for(largest, o.step);
      std::vector<std::vector<mp50>> gaps;
      std::vector<double> seen(m, 0.0);
      for (std::size_t i = 0; i < m; ++i) seen[i] = std::fabs(ir::math::to_double(r.primal[i]));
      for (int level = 0; level < kBranchPointLevels; ++level, h /= 2) {
        std::vector<mp50> up = p.x0, down = p.x0;
        for (std::size_t k = 0; k < n; ++k) {
          up[k] += h * mp50(v[k]);
          down[k] -= h * mp50(v[k]);
        }
        auto plus = ev.at(up);
        bool moved = ev.branch_points() != r.kink.branch_points;
        auto minus = ev.at(down);
        moved = moved || ev.branch_points() != r.kink.branch_points;
        evaluations += 2;
        if (!moved || plus.size() != m || minus.size() != m) break;
        gaps.push_back(slope_gaps(plus, minus, r.primal, h));
        for (std::size_t i = 0; i < m; ++i)
          seen[i] = std::max({seen[i], std::fabs(ir::math::to_double(plus[i])),
                              std::fabs(ir::math::to_double(minus[i]))});
      }
      if (slopes_stay_apart(gaps, seen, h * 2, kBranchPointLevels)) {
        note_kink("moving every input coordinate together along " + name + " by " +
                  step_text(ir::math::to_double(h * 2)) +
                  " moves a branch point's base off 0 where the one-sided slopes differ");
        break;
      }
    }
  }
  r.branch_change = changed;
  r.evaluations = evaluations;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

std::vector<mp50> reference_jvp(const ir::Function& f, const std::vector<ir::Tensor>& inputs,
                                const std::vector<std::string>& wrt, const std::vector<double>& v,
                                const ReferenceOptions& o) {
  Prepared p = prepare(f, inputs, wrt);
  if (v.size() != p.in.size)
    throw Error("a direction of size " + std::to_string(v.size()) + " for " +
                std::to_string(p.in.size) + " inputs");
  mp50 scale = 1;
  for (const auto& x : p.x0) scale = std::max(scale, mp50(boost::multiprecision::abs(x)));
  std::vector<std::vector<mp50>> d(static_cast<std::size_t>(o.levels));
  parallel_for(static_cast<std::size_t>(o.levels),
               thread_count(o, static_cast<std::size_t>(o.levels)), f, p.base, p.in, o,
               [&](Evaluator& ev, std::size_t level) {
                 mp50 h = mp50(o.step) * scale / mp50(1 << level);
                 std::vector<mp50> xp = p.x0, xm = p.x0;
                 for (std::size_t j = 0; j < v.size(); ++j) {
                   xp[j] += h * mp50(v[j]);
                   xm[j] -= h * mp50(v[j]);
                 }
                 auto plus = ev.at(xp), minus = ev.at(xm);
                 auto& row = d[level];
                 for (std::size_t i = 0; i < plus.size(); ++i)
                   row.push_back((plus[i] - minus[i]) / (2 * h));
               });
  std::vector<mp50> out(d[0].size());
  for (std::size_t i = 0; i < out.size(); ++i) {
    std::vector<mp50> est;
    for (auto& row : d) est.push_back(row[i]);
    out[i] = richardson(est);
  }
  return out;
}

namespace {
// A coordinate's second-difference step: step2 max(|x|, 1), or step2 |x| for a tiny coordinate
// in the relative estimate (the Jacobian's rule, decision 224, for the hvp; decision 228).
mp50 hvp_step(const mp50& x, double step2, bool relative) {
  if (relative && is_tiny(x)) return mp50(step2) * boost::multiprecision::abs(x);
  return step_for(x, step2);
}

// x0's non-smooth decisions, which every stencil point must take (`branches`), and its
// second-order branch points' bases at 0, which a stencil point may move off 0.
struct DecisionsAtX0 {
  std::uint64_t branches = 0;
  std::uint64_t second_order_branch_points = 0;
};

// The step along v: it moves coordinate k by at most its own step. One step for every
// coordinate, the largest one's, moved a small coordinate across a kink 0.05 away
// (`a max(b, 0)^2` at a = 1e8; an audit helper, decision 204).
mp50 hvp_direction_step(const Prepared& p, const std::vector<double>& v, double step2,
                        bool relative) {
  mp50 hv = 0;
  for (std::size_t k = 0; k < v.size(); ++k)
    if (v[k] != 0) {
      mp50 hk = hvp_step(p.x0[k], step2, relative) / mp50(std::fabs(v[k]));
      if (hv == 0 || hk < hv) hv = hk;
    }
  return hv;
}

// H v at one second-difference step (ReferenceOptions::step2 = `step2`) over `levels` halvings;
// `coarser`, when given, gets the estimate of one level fewer (Richardson's error estimate is
// the difference); `crossed` is set when a stencil point takes another non-smooth decision than
// x0, `moved_off_zero` (when given) when one moves a branch point's base off 0. `relative`: tiny
// coordinates step relative to themselves. `branch_point` (kBranchPointLevels levels): each
// entry is branch_point_limit of the last four quotients, and `coarser` gets whichever of the
// two earlier windows' limits is farther from it (decision 257).
std::vector<mp50> hvp_at_step(const ir::Function& f, const Prepared& p,
                              const std::vector<double>& v, const ReferenceOptions& o, double step2,
                              int levels, const DecisionsAtX0& at_x0,
                              std::vector<double>* resolution, std::vector<mp50>* coarser,
                              bool& crossed, bool relative = false, bool* moved_off_zero = nullptr,
                              bool branch_point = false) {
  const std::size_t n = p.in.size;
  std::atomic<bool> changed{false}, moved{false};
  const mp50 hv = hvp_direction_step(p, v, step2, relative);
  std::vector<mp50> out(n);
  if (coarser) coarser->assign(n, mp50(0));
  std::vector<double> f_seen(n, 0.0);  // |f| at the stencil's points, for the resolution
  parallel_for(n, thread_count(o, n), f, p.base, p.in, o, [&](Evaluator& ev, std::size_t j) {
    // (H v)_j = d2/(ds dt) f(x + s e_j + t v) at 0: mixed central second differences.
    std::vector<mp50> est;
    mp50 hs = hvp_step(p.x0[j], step2, relative), ht = hv == 0 ? hs : hv;
    for (int level = 0; level < levels; ++level, hs /= 2, ht /= 2) {
      auto f_at = [&](int sj, int sv) {
        std::vector<mp50> x = p.x0;
        for (std::size_t k = 0; k < n; ++k) x[k] += mp50(sv) * ht * mp50(v[k]);
        x[j] += mp50(sj) * hs;
        auto y = ev.at(x);
        if (ev.branches() != at_x0.branches) changed = true;
        if (ev.second_order_branch_points() != at_x0.second_order_branch_points) moved = true;
        if (y.size() != 1) throw Error("a Hessian-vector product needs a scalar result");
        f_seen[j] = std::max(f_seen[j], std::fabs(ir::math::to_double(y[0])));
        return y[0];
      };
      est.push_back((f_at(1, 1) - f_at(1, -1) - f_at(-1, 1) + f_at(-1, -1)) / (4 * hs * ht));
    }
    if (branch_point && est.size() == kBranchPointLevels) {
      // the quotients' rounding, the resolution's rule below at this entry's smallest steps
      const mp50 shrink = std::ldexp(1.0, levels - 1);
      const mp50 last = hvp_step(p.x0[j], step2, relative) / shrink;
      const double noise =
          mp_resolution(std::max(f_seen[j], 1e-300), last * (hv > 0 ? hv / shrink : last));
      const auto [limit, farther] = branch_point_windows(est, noise);
      out[j] = limit;
      if (coarser) (*coarser)[j] = farther;
    } else {
      out[j] = richardson(est);
      if (coarser && est.size() > 1) (*coarser)[j] = richardson({est.begin(), est.end() - 1});
    }
  });
  crossed = changed;
  if (moved_off_zero) *moved_off_zero = moved;
  if (resolution) {
    const double fx = f_seen.empty() ? 0.0 : *std::max_element(f_seen.begin(), f_seen.end());
    const mp50 shrink = std::ldexp(1.0, std::max(levels - 1, 0));
    const mp50 ht = hv / shrink;
    resolution->assign(n, 0.0);
    for (std::size_t j = 0; j < n; ++j) {
      const mp50 hs = hvp_step(p.x0[j], step2, relative) / shrink;
      (*resolution)[j] = mp_resolution(std::max(fx, 1e-300), hs * (ht > 0 ? ht : hs));
    }
  }
  return out;
}

// Where the 50-digit rounding at step2 is coarse against H v itself (|f| 1e18 beside a Hessian
// of 1: resolution 4e-12, which excused a Hessian entry 2e-12 wrong; an audit helper, decision
// 214), H v again at a 1000 times larger step with one more Richardson level: an entry takes it
// where its rounding plus the truncation estimated by the last level's change is smaller, and
// the stencil crosses no switch.
void refine_with_larger_step(const ir::Function& f, const Prepared& p, const std::vector<double>& v,
                             const ReferenceOptions& o, const DecisionsAtX0& at_x0,
                             std::vector<mp50>& hv, std::vector<double>& resolution) {
  double scale = 0, coarsest = 0;
  for (std::size_t j = 0; j < hv.size(); ++j) {
    scale = std::max(scale, std::fabs(ir::math::to_double(hv[j])));
    coarsest = std::max(coarsest, resolution[j]);
  }
  if (!(coarsest > kHvpResolutionTarget * scale)) return;
  bool crossed = false;
  std::vector<double> res;
  std::vector<mp50> coarser;
  auto wide = hvp_at_step(f, p, v, o, o.step2 * 1000, o.levels + 1, at_x0, &res, &coarser, crossed);
  if (crossed) return;
  for (std::size_t j = 0; j < hv.size(); ++j) {
    const double truncation = std::fabs(ir::math::to_double(wide[j] - coarser[j]));
    const double uncertainty = res[j] + truncation;
    // The last level's change bounds the truncation only where the step resolves f's curvature:
    // a term cos(5e7 a) 1e-21 beside f = 1e18 is invisible at the larger step at every level,
    // and its second derivative (1e-6) was dropped. The two values must agree within both
    // uncertainties (a reviewing helper).
    const double apart = std::fabs(ir::math::to_double(wide[j] - hv[j]));
    if (std::isfinite(uncertainty) && uncertainty < resolution[j] &&
        apart <= resolution[j] + uncertainty) {
      hv[j] = wide[j];
      resolution[j] = uncertainty;
    }
  }
}

// Where the hvp's stencil moves a branch point's base off 0, f's second differences are not a
// series in h^2 and its Hessian may not exist (decision 257): x |x| + 2 x^2 at 0 has f'' = 2 on
// the left and 6 on the right, and the central difference, exactly their mean 4, PASSed
// fwdvec's 4; |x|^3 = (x x)^1.5 has H = 0 and a difference of 4 h / 3 after Richardson, which
// FAILed every right 0; (x x)^0.75 has none (it grows as h^-0.5).
// First, along each coordinate and along v, the one-sided second differences
// (f(x + 2 h u) - 2 f(x + h u) + f(x)) / h^2 and their mirror must close as h halves, as
// slopes_stay_apart asks of first differences (their gap f(x + 2 h u) - 2 f(x + h u)
// + 2 f(x - h u) - f(x - 2 h u) over h^2 is 2 h f''' where f is smooth); a gap that stays is a
// kink of the gradient there. Then H v is retaken over kBranchPointLevels levels and
// extrapolated by branch_point_limit, and used only where its three windows and their rounding
// settle; the agreement becomes part of the resolution. Otherwise StencilCrossesSwitch: the
// cell is AT-KINK, not judged.
std::vector<mp50> hvp_at_branch_point(const ir::Function& f, const Prepared& p,
                                      const std::vector<double>& v, const ReferenceOptions& o,
                                      double step2, const DecisionsAtX0& at_x0, const mp50& f0,
                                      std::vector<double>& resolution) {
  const std::size_t n = p.in.size;
  Evaluator ev(f, p.base, p.in, o);
  auto directions = std::vector<std::pair<std::string, std::vector<double>>>{};
  for (std::size_t j = 0; j < n && !o.hvp_coordinates_tested; ++j) {
    std::vector<double> e(n, 0.0);
    e[j] = 1;
    directions.emplace_back("input coordinate " + std::to_string(j), std::move(e));
  }
  directions.emplace_back("the hvp's direction", v);
  // and the Jacobian's cusp directions: x |y| + y |x| at the origin is smooth along the axes
  // and along a v of mixed signs, not along (1, 1) (a reviewing helper; decision 259)
  if (n > 1 && !o.hvp_coordinates_tested)
    for (auto& d : cusp_directions(n)) directions.push_back(std::move(d));
  for (const auto& [name, u] : directions) {
    mp50 h = hvp_direction_step(p, u, step2, false);
    if (h == 0) continue;
    std::vector<std::vector<mp50>> gaps;
    std::vector<double> seen = {std::fabs(ir::math::to_double(f0))};
    for (int level = 0; level < kBranchPointLevels; ++level, h /= 2) {
      bool moved = false;
      auto f_at = [&](int k) {
        std::vector<mp50> x = p.x0;
        for (std::size_t i = 0; i < n; ++i) x[i] += mp50(k) * h * mp50(u[i]);
        const mp50 y = ev.at(x).at(0);
        moved = moved || ev.second_order_branch_points() != at_x0.second_order_branch_points;
        if (ev.branches() != at_x0.branches)
          throw StencilCrossesSwitch("moving " + name + " by " + step_text(ir::math::to_double(h)) +
                                     " changes a branch (the hvp's branch-point test)");
        seen[0] = std::max(seen[0], std::fabs(ir::math::to_double(y)));
        return y;
      };
      const mp50 gap = (f_at(2) - 2 * f_at(1) + 2 * f_at(-1) - f_at(-2)) / (h * h);
      if (!moved) break;
      gaps.push_back({gap});
    }
    const mp50 h_last = h * 2;
    if (slopes_stay_apart(gaps, seen, h_last * h_last, kBranchPointLevels))
      throw StencilCrossesSwitch(
          "moving " + name + " by " + step_text(ir::math::to_double(h_last)) +
          " moves a branch point's base off 0 where the one-sided second derivatives differ "
          "(no Hessian there)");
  }
  bool crossed = false;
  std::vector<mp50> farther;
  auto hv = hvp_at_step(f, p, v, o, step2, kBranchPointLevels, at_x0, &resolution, &farther,
                        crossed, false, nullptr, true);
  if (crossed) throw StencilCrossesSwitch("the hvp's branch-point stencil changes a branch");
  // an entry of 0 is judged against H v's largest, as the checker's tolerance is: against a
  // floor of 1e-50 alone, every Hessian with a zero entry (|x|^3 + y^2) was AT-KINK, its
  // quotients' rounding being 1e-45 |f| / h^2 (a reviewing helper; decision 259)
  mp50 largest = 0;
  for (const auto& x : hv) largest = std::max(largest, mp50(boost::multiprecision::abs(x)));
  for (std::size_t j = 0; j < n; ++j) {
    const double error = estimate_error(hv[j], farther[j], resolution[j], true);
    if (!settled(error, std::max(mp50(boost::multiprecision::abs(hv[j])), largest)))
      throw StencilCrossesSwitch(
          "the hvp's stencil moves a branch point's base off 0 where its second differences "
          "converge to no single order (" +
          (std::isfinite(error)
               ? "three extrapolations or their rounding differ by " + step_text(error)
               : std::string("no extrapolation settles")) +
          ")");
    resolution[j] = std::max(resolution[j], error);
  }
  return hv;
}
}  // namespace

std::vector<mp50> reference_hvp(const ir::Function& f, const std::vector<ir::Tensor>& inputs,
                                const std::vector<std::string>& wrt, const std::vector<double>& v,
                                const ReferenceOptions& o, std::vector<double>* resolution) {
  Prepared p = prepare(f, inputs, wrt);
  if (v.size() != p.in.size)
    throw Error("a direction of size " + std::to_string(v.size()) + " for " +
                std::to_string(p.in.size) + " inputs");
  // step2 is 1000 times the Jacobian's step, so its stencil can cross a switch the Jacobian's
  // missed (x 1e-10 from a kink; an audit helper, decision 210): then smaller steps, each
  // 1000 times smaller (rounding 1e-50 |f| / h^2 grows), and a crossing at all of them is a kink.
  DecisionsAtX0 at_x0;
  mp50 f0 = 0;
  {
    Evaluator ev(f, p.base, p.in, o);
    const auto y = ev.at(p.x0);
    if (y.size() != 1) throw Error("a Hessian-vector product needs a scalar result");
    f0 = y[0];
    at_x0 = {ev.branches(), ev.second_order_branch_points()};
  }
  // A tiny coordinate's estimates at the usual step take one level more, for their error
  // estimates, and are compared entry by entry with a second estimate whose tiny coordinates step
  // relative to themselves: the usual step was 1% of x for log at 1e-10 (1.3e-8 off) and cannot
  // see x^3's 6x at 1e-150 in 50 digits (decision 228, as the Jacobian's decision 224).
  const bool tiny = std::any_of(p.x0.begin(), p.x0.end(), is_tiny);
  const int levels = tiny ? o.levels + 1 : o.levels;
  const auto error_of = [](const std::vector<mp50>& value, const std::vector<mp50>& coarser,
                           const std::vector<double>& res) {
    std::vector<double> error(value.size());
    for (std::size_t j = 0; j < value.size(); ++j)
      error[j] = estimate_error(value[j], coarser[j], res[j], true);
    return error;
  };
  std::vector<mp50> relative, relative_coarser;
  std::vector<double> relative_res, relative_error;
  if (tiny) {
    bool crossed = false;
    relative = hvp_at_step(f, p, v, o, o.step2, levels, at_x0, &relative_res, &relative_coarser,
                           crossed, true);
    if (crossed)
      relative.clear();  // not at x0's decisions: not a candidate
    else
      relative_error = error_of(relative, relative_coarser, relative_res);
  }
  const auto give = [&](std::vector<mp50> hv, std::vector<double> res) {
    if (resolution) *resolution = std::move(res);
    return hv;
  };
  double step2 = o.step2;
  bool finite = true;
  for (int attempt = 0; attempt < kHvpStepAttempts; ++attempt, step2 /= 1000) {
    bool crossed = false;
    finite = true;  // the last attempt's, not a stale one (a reviewing helper; decision 227)
    std::vector<double> res;
    std::vector<mp50> coarser;
    bool moved_off_zero = false;
    auto hv = hvp_at_step(f, p, v, o, step2, levels, at_x0, &res, &coarser, crossed, false,
                          &moved_off_zero);
    if (crossed) continue;
    if (moved_off_zero) {
      hv = hvp_at_branch_point(f, p, v, o, step2, at_x0, f0, res);
      return give(std::move(hv), std::move(res));
    }
    // a stencil past a pole or out of a domain (log at x = 1e-10 with a step of 1e-9) is not
    // the Hessian: smaller steps too (an audit helper's false FAILs; decision 225)
    finite = std::all_of(hv.begin(), hv.end(),
                         [](const mp50& h) { return boost::multiprecision::isfinite(h); });
    if (!finite) continue;
    std::vector<double> error = error_of(hv, coarser, res);
    if (resolution && attempt == 0) {
      const std::vector<double> before = res;
      refine_with_larger_step(f, p, v, o, at_x0, hv, res);
      for (std::size_t j = 0; j < error.size(); ++j)
        if (res[j] != before[j]) error[j] = res[j];  // the larger step's whole uncertainty
    }
    // as the Jacobian's smooth columns (decision 256): step2 max(|x|, 1) is 10 at x = 1e10
    double fine_step2 = step2;
    for (int retake = 0; retake < kSmoothRetakes && !all_truncations_settled(hv, res, error);
         ++retake) {
      fine_step2 /= ir::math::to_double(retake_shrink(retake + 1));
      bool fine_crossed = false;
      std::vector<double> fine_res;
      std::vector<mp50> fine_coarser;
      auto fine = hvp_at_step(f, p, v, o, fine_step2, levels + kRetakeExtraLevels, at_x0, &fine_res,
                              &fine_coarser, fine_crossed);
      if (fine_crossed) break;
      keep_better(hv, res, error, fine, fine_res, error_of(fine, fine_coarser, fine_res));
    }
    if (!relative.empty()) keep_better(hv, res, error, relative, relative_res, relative_error);
    return give(std::move(hv), std::move(res));
  }
  // no usual step gave a finite value: the relative one may, everywhere (log at 1e-13)
  if (!finite && !relative.empty() &&
      std::all_of(relative_error.begin(), relative_error.end(),
                  [](double e) { return std::isfinite(e); }))
    return give(std::move(relative), std::move(relative_res));
  char step[32];
  std::snprintf(step, sizeof step, "%.3g", step2 * 1000);
  if (!finite)
    throw Error("the hvp reference is not finite at any step down to " + std::string(step) +
                " (relative): a pole or the edge of a domain within the stencil");
  throw StencilCrossesSwitch(
      "the hvp's finite-difference stencil crosses a switch at every step "
      "down to " +
      std::string(step) + " (relative)");
}

}  // namespace adlab::checker
