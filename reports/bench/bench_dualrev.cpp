// Google Benchmark: dualrev used from C++ (paper 003 section 7's benchmarks) against ADOL-C taping
// and reversing the same function, and against the plain double primal; particles with 1, 2 and 4
// threads (docs/strategies/dualrev.md has the figures).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "ad/dualrev/api.h"
#include "ad/dualrev/particles.h"
#include "reports/bench/bench_main.h"
#include "reports/bench/paper003_checks.h"
#include "reports/bench/paper003_primals.h"

#ifdef ADLAB_HAVE_ADOLC
#include <adolc/adolc.h>
#endif

using namespace adlab::ad::dualrev;
using adlab::bench::fail;

namespace {

using namespace adlab::bench::paper003;

std::vector<double> iota(std::size_t n, double start, double step) {
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = start + step * static_cast<double>(i);
  return v;
}

const std::vector<double> kQuat = {1, 2, 3, 4, 5, 6, 7};  // Vec3 1 2 3, Quaternion 4 5 6 7

// ---- the known answers each timed derivative is checked against (decision 182) ----

// dot's gradient is (y, x), exactly: "" or the first entry that differs.
std::string dot_gradient_error(const std::vector<double>& x, const std::vector<double>& y,
                               const std::vector<double>& g) {
  const std::size_t n = x.size();
  for (std::size_t i = 0; i < 2 * n; ++i)
    if (g[i] != (i < n ? y[i] : x[i - n]))
      return "wrong gradient: entry " + std::to_string(i) + " is " + std::to_string(g[i]);
  return "";
}

// The summed softmax is 1 for every input, so neural's exact gradient is 0: every entry must be
// rounding noise. Zero cannot tell a reverse pass from none, so the weighted network's gradient
// (non-zero) is checked too, through the same engine, against a central difference.
std::string neural_gradient_error(const std::vector<double>& g,
                                  const std::vector<double>& weighted_g) {
  for (std::size_t i = 0; i < g.size(); ++i)
    if (!(std::fabs(g[i]) <= 1e-12))
      return "wrong gradient: entry " + std::to_string(i) + " is " + std::to_string(g[i]) +
             " where the exact one is 0";
  auto f = [](const std::vector<double>& p) { return neural<double, true>(p); };
  std::string why = directional_error(f, neural_params(), weighted_g, 1e-6, 1e-6);
  return why.empty() ? "" : "weighted network: " + why;
}

// One recording of neural (or its weighted twin) with inputs p, into ps; the output.
template <bool kWeighted = false>
Dual record_neural(Tape& tape, const std::vector<double>& p, std::vector<Dual>& ps) {
  Recording rec(tape);
  make_inputs(p.data(), p.size(), ps.data());
  return neural<Dual, kWeighted>(ps);
}

// The network's (or its weighted twin's) gradient through dualrev's tape, untimed.
template <bool kWeighted>
std::vector<double> neural_gradient_dualrev() {
  auto p = neural_params();
  Tape tape;
  std::vector<Dual> ps(p.size());
  std::vector<double> g(p.size());
  Dual y = record_neural<kWeighted>(tape, p, ps);
  tape.seed(y.id(), 1.0);
  tape.resolve();
  read_adjoints(tape, ps.data(), ps.size(), g.data());
  return g;
}

// ---- primal in double ----

void BM_DotPrimal(benchmark::State& st) {
  auto x = iota(static_cast<std::size_t>(st.range(0)), 1, 1);
  auto y = iota(x.size(), 3, 2);
  for (auto _ : st) {
    benchmark::DoNotOptimize(x.data());
    benchmark::DoNotOptimize(dot(x, y));
  }
}
BENCHMARK(BM_DotPrimal)->Arg(1000000)->Unit(benchmark::kMillisecond);

void BM_RotatePrimal(benchmark::State& st) {
  std::vector<double> a = kQuat;
  double r[3];
  for (auto _ : st) {
    benchmark::DoNotOptimize(a.data());
    rotate_vec_by_quat(a.data(), r);
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(BM_RotatePrimal)->Unit(benchmark::kNanosecond);

void BM_NeuralPrimal(benchmark::State& st) {
  auto p = neural_params();
  for (auto _ : st) {
    benchmark::DoNotOptimize(p.data());
    benchmark::DoNotOptimize(neural(p));
  }
}
BENCHMARK(BM_NeuralPrimal)->Unit(benchmark::kMicrosecond);

// ---- dualrev (tape variant): record, seed, resolve, read the gradient ----

void BM_DotDualrev(benchmark::State& st) {
  const auto n = static_cast<std::size_t>(st.range(0));
  auto x = iota(n, 1, 1), y = iota(n, 3, 2);
  Tape tape;
  std::vector<Dual> xs(n), ys(n);
  std::vector<double> g(2 * n);
  bool warm = false;  // one untimed run first: the tape keeps its memory (steady state)
  while (true) {
    Dual s;
    {
      Recording rec(tape);
      make_inputs(x.data(), n, xs.data());  // as ADOL-C's `<<=`, one input per value
      make_inputs(y.data(), n, ys.data());
      s = dot(xs, ys);
    }
    tape.clear_seeds();
    tape.seed(s.id(), 1.0);
    tape.resolve();
    read_adjoints(tape, xs.data(), n, g.data());  // as fos_reverse, into the gradient array
    read_adjoints(tape, ys.data(), n, g.data() + n);
    benchmark::DoNotOptimize(g.data());
    if (!warm) {
      warm = true;
      continue;
    }
    if (!st.KeepRunning()) break;
  }
  if (auto why = dot_gradient_error(x, y, g); !why.empty()) fail(st, why);
}
BENCHMARK(BM_DotDualrev)->Arg(1000000)->Unit(benchmark::kMillisecond);

// Recording cost per scalar operation (phase 0) and resolution cost per edge (phase 1) of the
// tape variant, on the dot product (items/s; the other phase is untimed).
void BM_DotDualrevPhase(benchmark::State& st) {
  const auto n = static_cast<std::size_t>(st.range(0));
  const bool reverse = st.range(1) == 1;
  auto x = iota(n, 1, 1), y = iota(n, 3, 2);
  Tape tape;
  std::vector<Dual> xs(n), ys(n);
  {  // an untimed first run: the tape keeps its memory (steady state)
    Recording rec(tape);
    make_inputs(x.data(), n, xs.data());
    make_inputs(y.data(), n, ys.data());
    dot(xs, ys);
  }
  // Counted once, untimed (counting the edges reads every end offset), the same every iteration.
  const std::int64_t per_iteration = reverse ? tape.num_edges() : tape.num_nodes();
  std::int64_t items = 0;
  for (auto _ : st) {
    if (reverse) st.PauseTiming();
    Dual s;
    {
      Recording rec(tape);
      make_inputs(x.data(), n, xs.data());
      make_inputs(y.data(), n, ys.data());
      s = dot(xs, ys);
    }
    if (reverse) st.ResumeTiming();
    if (!reverse) st.PauseTiming();
    tape.clear_seeds();
    tape.seed(s.id(), 1.0);
    tape.resolve();
    benchmark::DoNotOptimize(tape.adjoint(xs[0].id()));
    if (!reverse) st.ResumeTiming();
    items += per_iteration;
  }
  st.SetItemsProcessed(items);
}
BENCHMARK(BM_DotDualrevPhase)
    ->ArgNames({"n", "reverse"})
    ->Args({1000000, 0})
    ->Args({1000000, 1})
    ->Unit(benchmark::kMillisecond);

// The IDs of rotate's 7 inputs and 3 outputs, as Tape::jacobian_rows takes them.
struct RotateIds {
  NodeId in[7], out[3];
  RotateIds(const Dual* a, const Dual* r) {
    for (int i = 0; i < 7; ++i) in[i] = a[i].id();
    for (int k = 0; k < 3; ++k) out[k] = r[k].id();
  }
};

// The three rows in one vector sweep (Tape::jacobian_rows), as ADOL-C's fov_reverse below.
void BM_RotateDualrev(benchmark::State& st) {
  Tape tape;
  Dual a[7], r[3];
  double J[3][7];
  for (auto _ : st) {
    {
      Recording rec(tape);
      make_inputs(kQuat.data(), 7, a);
      rotate_vec_by_quat(a, r);
    }
    const RotateIds ids(a, r);
    tape.jacobian_rows(ids.out, ids.in, J[0]);
    benchmark::DoNotOptimize(J);
  }
  if (auto why = rotate_jacobian_error(kQuat.data(), J); !why.empty()) fail(st, why);
}
BENCHMARK(BM_RotateDualrev)->Unit(benchmark::kNanosecond);

// Where rotate's time goes: the recording alone (start, 7 inputs, the function, stop); the
// sweep and the Jacobian read are BM_RotateDualrev minus this (a paused timer would cost more
// than the phases themselves).
void BM_RotateDualrevRecordOnly(benchmark::State& st) {
  Tape tape;
  Dual a[7], r[3];
  for (auto _ : st) {
    {
      Recording rec(tape);
      make_inputs(kQuat.data(), 7, a);
      rotate_vec_by_quat(a, r);
    }
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(BM_RotateDualrevRecordOnly)->Unit(benchmark::kNanosecond);

// rotate's fixed costs, each alone: start and stop of an empty recording (job binding, closing
// the job), then with the 7 inputs; and the Jacobian's sweep and read on one recording (the
// vector sweep of Tape::jacobian_rows: lane zeroing, seeding, the sweep, the 3x7 read).
void BM_TapeStartStop(benchmark::State& st) {
  Tape tape;
  for (auto _ : st) {
    Recording rec(tape);
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_TapeStartStop)->Unit(benchmark::kNanosecond);

void BM_RotateDualrevInputsOnly(benchmark::State& st) {
  Tape tape;
  Dual a[7];
  for (auto _ : st) {
    {
      Recording rec(tape);
      make_inputs(kQuat.data(), 7, a);
    }
    benchmark::DoNotOptimize(a);
  }
}
BENCHMARK(BM_RotateDualrevInputsOnly)->Unit(benchmark::kNanosecond);

void BM_RotateDualrevJacobianOnly(benchmark::State& st) {
  Tape tape;
  Dual a[7], r[3];
  double J[3][7];
  {
    Recording rec(tape);
    make_inputs(kQuat.data(), 7, a);
    rotate_vec_by_quat(a, r);
  }
  const RotateIds ids(a, r);
  for (auto _ : st) {
    benchmark::DoNotOptimize(ids.in);
    tape.jacobian_rows(ids.out, ids.in, J[0]);
    benchmark::DoNotOptimize(J);
  }
  if (auto why = rotate_jacobian_error(kQuat.data(), J); !why.empty()) fail(st, why);
}
BENCHMARK(BM_RotateDualrevJacobianOnly)->Unit(benchmark::kNanosecond);

// The same Jacobian with one scalar reverse pass per output (paper 003 section 7's way), for
// comparison in the same run.
void BM_RotateDualrevRowByRow(benchmark::State& st) {
  Tape tape;
  Dual a[7], r[3];
  double J[3][7];
  for (auto _ : st) {
    {
      Recording rec(tape);
      for (int i = 0; i < 7; ++i) a[i] = make_input(kQuat[static_cast<std::size_t>(i)]);
      rotate_vec_by_quat(a, r);
    }
    for (int k = 0; k < 3; ++k) {  // one reverse pass per output (paper 003 section 7)
      tape.clear_seeds();
      tape.seed(r[k].id(), 1.0);
      tape.resolve();
      for (int i = 0; i < 7; ++i) J[k][i] = tape.adjoint(a[i].id());
    }
    benchmark::DoNotOptimize(J);
  }
  if (auto why = rotate_jacobian_error(kQuat.data(), J); !why.empty()) fail(st, why);
}
BENCHMARK(BM_RotateDualrevRowByRow)->Unit(benchmark::kNanosecond);

void BM_NeuralDualrev(benchmark::State& st) {
  auto p = neural_params();
  Tape tape;
  std::vector<Dual> ps(p.size());
  std::vector<double> g(p.size());
  for (auto _ : st) {
    Dual y;
    {
      Recording rec(tape);
      make_inputs(p.data(), p.size(), ps.data());
      y = neural(ps);
    }
    tape.clear_seeds();
    tape.seed(y.id(), 1.0);
    tape.resolve();
    read_adjoints(tape, ps.data(), ps.size(), g.data());
    benchmark::DoNotOptimize(g.data());
  }
  if (auto why = neural_gradient_error(g, neural_gradient_dualrev<true>()); !why.empty())
    fail(st, why);
  // The exact gradient is 0, so the bound above would pass a loop that skipped its reverse pass.
  // The same recording untimed gives the same bits, rounding residues included (decision 190).
  const auto untimed = neural_gradient_dualrev<false>();
  if (g != untimed)
    fail(st, "the timed loop's gradient differs from an untimed run's, bit for bit");
  st.counters["nonzero_residues"] = static_cast<double>(
      std::count_if(untimed.begin(), untimed.end(), [](double v) { return v != 0; }));
}
BENCHMARK(BM_NeuralDualrev)->Unit(benchmark::kMicrosecond);

// Where neural's time goes: phase 0 records (inputs and the function), 1 resolves (zeroing, seed,
// the reverse sweep), 2 reads the gradient; the other phases run untimed.
void BM_NeuralDualrevPhase(benchmark::State& st) {
  const auto phase = st.range(0);
  auto p = neural_params();
  Tape tape;
  std::vector<Dual> ps(p.size());
  std::vector<double> g(p.size());
  for (auto _ : st) {
    if (phase != 0) st.PauseTiming();
    Dual y;
    {
      Recording rec(tape);
      make_inputs(p.data(), p.size(), ps.data());
      y = neural(ps);
    }
    if (phase == 0) st.PauseTiming();
    if (phase == 1) st.ResumeTiming();
    tape.clear_seeds();
    tape.seed(y.id(), 1.0);
    tape.resolve();
    if (phase == 1) st.PauseTiming();
    if (phase == 2) st.ResumeTiming();
    read_adjoints(tape, ps.data(), ps.size(), g.data());
    benchmark::DoNotOptimize(g.data());
    if (phase != 2) st.ResumeTiming();
  }
}
BENCHMARK(BM_NeuralDualrevPhase)->ArgName("phase")->DenseRange(0, 2)->Unit(benchmark::kMicrosecond);

// Phase 2 without a paused timer: reading the 10,250 adjoints of one recording, repeated (the
// caches hold what the read touches; BM_NeuralDualrevPhase/phase:2 starts from the reverse pass).
void BM_NeuralReadAdjoints(benchmark::State& st) {
  auto p = neural_params();
  Tape tape;
  std::vector<Dual> ps(p.size());
  std::vector<double> g(p.size());
  Dual y = record_neural(tape, p, ps);
  tape.seed(y.id(), 1.0);
  tape.resolve();
  for (auto _ : st) {
    benchmark::DoNotOptimize(ps.data());
    read_adjoints(tape, ps.data(), ps.size(), g.data());
    benchmark::DoNotOptimize(g.data());
  }
  st.SetItemsProcessed(st.iterations() * static_cast<std::int64_t>(p.size()));
}
BENCHMARK(BM_NeuralReadAdjoints)->Unit(benchmark::kMicrosecond);

// Particles (paper 003 benchmark 6): 4 particles, 1000 steps, the particles in parallel. With 0
// steps the same job graph (forks, joins, inputs, the final sum) does no particle work: its time
// bounds the serial part s of the 1000-step run from above (Amdahl: 1.6x on 2 threads needs
// s <= 0.25), measured with one thread, which a loaded machine disturbs least.
void BM_ParticlesDualrev(benchmark::State& st) {
  const auto threads = static_cast<unsigned>(st.range(0));
  const auto particles = st.range(1);  // the paper's benchmark has 4
  const auto steps = static_cast<int>(st.range(2));
  std::vector<double> s0;
  for (std::int64_t k = 0; k < 4 * particles; ++k)
    s0.push_back(std::sin(0.41 * static_cast<double>(k)));
  Tape tape(TapeOptions{threads});
  std::vector<Dual> xs(s0.size());
  std::vector<double> g(s0.size());
  std::vector<double> wall_us;  // per iteration
  std::atomic<std::int64_t> body_ns{0};
  for (auto _ : st) {
    auto t0 = std::chrono::steady_clock::now();
    Dual y;
    {
      Recording rec(tape);
      for (std::size_t i = 0; i < s0.size(); ++i) xs[i] = make_input(s0[i]);
      y = testing::particles(xs, steps, true, &body_ns);
    }
    tape.clear_seeds();
    tape.seed(y.id(), 1.0);
    tape.resolve();
    for (std::size_t i = 0; i < s0.size(); ++i) g[i] = tape.adjoint(xs[i].id());
    benchmark::DoNotOptimize(g.data());
    wall_us.push_back(
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
  }
  // particles is quadratic in the state, so a central difference is exact up to rounding.
  auto f = [&](const std::vector<double>& s) { return testing::particles(s, steps, false); };
  if (auto why = directional_error(f, s0, g, 1e-3, 1e-9); !why.empty())
    fail(st, "wrong gradient: " + why);
  // The mean includes iterations where the OS descheduled a pool thread (a shared machine); the
  // median iteration shows the time when both threads got a core.
  std::nth_element(wall_us.begin(),
                   wall_us.begin() + static_cast<std::ptrdiff_t>(wall_us.size() / 2),
                   wall_us.end());
  st.counters["median_us"] = wall_us[wall_us.size() / 2];
  // Time inside the particles' loops (recording), summed over threads, per iteration: equal for
  // 1 and 2 threads when the threads do not slow each other down.
  st.counters["body_us"] = 1e-3 * static_cast<double>(body_ns.load()) /
                           static_cast<double>(std::max<std::size_t>(wall_us.size(), 1));
}
// On a shared machine the least disturbed of several repetitions is the fairest figure.
double min_of(const std::vector<double>& v) {
  return *std::min_element(v.begin(), v.end());
}

BENCHMARK(BM_ParticlesDualrev)
    ->ArgNames({"threads", "particles", "steps"})
    ->ArgsProduct({{1, 2, 4}, {4, 64}, {1000}})
    ->ArgsProduct({{1}, {4, 64}, {0}})
    ->ComputeStatistics("min", min_of)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

// The machine's own ceiling, in the same run: two equal halves of a dependent floating-point loop
// (no memory traffic, no tape) through the same pool's fork_join; 1 thread runs both halves.
// A shared or oversubscribed machine shows it here first: particles cannot scale better.
void BM_ParallelCeiling(benchmark::State& st) {
  ThreadPool pool(static_cast<unsigned>(st.range(0)));
  auto half = [](double seed) {
    double s = seed;
    for (int i = 0; i < 200000; ++i) s = s * 0.999999 + 1e-9;
    return s;
  };
  double seed = 1.0;
  for (auto _ : st) {
    benchmark::DoNotOptimize(seed);  // opaque: the loops cannot be folded at compile time
    double a = 0, b = 0;
    pool.fork_join([&] { a = half(seed); }, [&] { b = half(seed + 1); });
    benchmark::DoNotOptimize(a + b);
  }
}
BENCHMARK(BM_ParallelCeiling)
    ->ArgName("threads")
    ->Arg(1)
    ->Arg(2)
    ->ComputeStatistics("min", min_of)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

void BM_ParticlesPrimal(benchmark::State& st) {
  std::vector<double> s0;
  for (int k = 0; k < 16; ++k) s0.push_back(std::sin(0.41 * k));
  for (auto _ : st) {
    benchmark::DoNotOptimize(s0.data());
    benchmark::DoNotOptimize(testing::particles(s0, 1000, false));
  }
}
BENCHMARK(BM_ParticlesPrimal)->Unit(benchmark::kMicrosecond);

#ifdef ADLAB_HAVE_ADOLC
// ---- ADOL-C: tape with trace_on(tag, keep = 1) (Taylors kept, so no forward replay), then
// fos_reverse (gradients) or fov_reverse (the three Jacobian rows in one vector sweep). ----

void BM_DotAdolc(benchmark::State& st) {
  const auto n = static_cast<std::size_t>(st.range(0));
  auto x = iota(n, 1, 1), y = iota(n, 3, 2);
  std::vector<adouble> xs(n), ys(n);
  std::vector<double> g(2 * n);
  bool warm = false;  // one untimed run first, as for dualrev
  while (true) {
    trace_on(1, 1);
    for (std::size_t i = 0; i < n; ++i) xs[i] <<= x[i];
    for (std::size_t i = 0; i < n; ++i) ys[i] <<= y[i];
    adouble s = dot(xs, ys);
    double out;
    s >>= out;
    trace_off();
    double u = 1.0;
    fos_reverse(1, 1, static_cast<int>(2 * n), &u, g.data());
    benchmark::DoNotOptimize(g.data());
    if (!warm) {
      warm = true;
      continue;
    }
    if (!st.KeepRunning()) break;
  }
  if (auto why = dot_gradient_error(x, y, g); !why.empty()) fail(st, why);
}
BENCHMARK(BM_DotAdolc)->Arg(1000000)->Unit(benchmark::kMillisecond);

// Taping cost per operation (phase 0) and reverse cost per operation (phase 1) of ADOL-C on
// the dot product (operations counted by tapestats).
void BM_DotAdolcPhase(benchmark::State& st) {
  const auto n = static_cast<std::size_t>(st.range(0));
  const bool reverse = st.range(1) == 1;
  auto x = iota(n, 1, 1), y = iota(n, 3, 2);
  std::vector<adouble> xs(n), ys(n);
  std::vector<double> g(2 * n);
  std::int64_t items = 0;
  for (auto _ : st) {
    if (reverse) st.PauseTiming();
    trace_on(4, 1);
    for (std::size_t i = 0; i < n; ++i) xs[i] <<= x[i];
    for (std::size_t i = 0; i < n; ++i) ys[i] <<= y[i];
    adouble s = dot(xs, ys);
    double out;
    s >>= out;
    trace_off();
    if (reverse) st.ResumeTiming();
    if (!reverse) st.PauseTiming();
    double u = 1.0;
    fos_reverse(4, 1, static_cast<int>(2 * n), &u, g.data());
    benchmark::DoNotOptimize(g.data());
    if (!reverse) st.ResumeTiming();
    std::size_t stats[STAT_SIZE];
    tapestats(4, stats);
    items += static_cast<std::int64_t>(stats[NUM_OPERATIONS]);
  }
  st.SetItemsProcessed(items);
}
BENCHMARK(BM_DotAdolcPhase)
    ->ArgNames({"n", "reverse"})
    ->Args({1000000, 0})
    ->Args({1000000, 1})
    ->Unit(benchmark::kMillisecond);

void BM_RotateAdolc(benchmark::State& st) {
  adouble a[7], r[3];
  double J[3][7];
  double* Jp[3] = {J[0], J[1], J[2]};
  double U[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  double* Up[3] = {U[0], U[1], U[2]};
  for (auto _ : st) {
    trace_on(2, 1);
    for (int i = 0; i < 7; ++i) a[i] <<= kQuat[static_cast<std::size_t>(i)];
    rotate_vec_by_quat(a, r);
    double out;
    for (int k = 0; k < 3; ++k) r[k] >>= out;
    trace_off();
    fov_reverse(2, 3, 7, 3, Up, Jp);
    benchmark::DoNotOptimize(J);
  }
  if (auto why = rotate_jacobian_error(kQuat.data(), J); !why.empty()) fail(st, why);
}
BENCHMARK(BM_RotateAdolc)->Unit(benchmark::kNanosecond);

// The network's (or its weighted twin's) gradient taped by ADOL-C itself, untimed.
template <bool kWeighted>
std::vector<double> neural_gradient_adolc(short tag) {
  auto p = neural_params();
  std::vector<adouble> qs(p.size());
  std::vector<double> g(p.size());
  trace_on(tag, 1);
  for (std::size_t i = 0; i < p.size(); ++i) qs[i] <<= p[i];
  adouble y = neural<adouble, kWeighted>(qs);
  double out;
  y >>= out;
  trace_off();
  double u = 1.0;
  fos_reverse(tag, 1, static_cast<int>(p.size()), &u, g.data());
  return g;
}

void BM_NeuralAdolc(benchmark::State& st) {
  auto p = neural_params();
  std::vector<adouble> ps(p.size());
  std::vector<double> g(p.size());
  for (auto _ : st) {
    trace_on(3, 1);
    for (std::size_t i = 0; i < p.size(); ++i) ps[i] <<= p[i];
    adouble y = neural(ps);
    double out;
    y >>= out;
    trace_off();
    double u = 1.0;
    fos_reverse(3, 1, static_cast<int>(p.size()), &u, g.data());
    benchmark::DoNotOptimize(g.data());
  }
  // The same checks as dualrev's, the networks taped by ADOL-C itself.
  if (auto why = neural_gradient_error(g, neural_gradient_adolc<true>(5)); !why.empty())
    fail(st, why);
  if (g != neural_gradient_adolc<false>(6))
    fail(st, "the timed loop's gradient differs from an untimed run's, bit for bit");
}
BENCHMARK(BM_NeuralAdolc)->Unit(benchmark::kMicrosecond);
#endif

}  // namespace

int main(int argc, char** argv) {
#ifdef ADLAB_HAVE_ADOLC
  // ADOL-C keeps a tape in memory only up to its buffer sizes (524288 entries by default) and
  // spills to files beyond them; ADLAB_ADOLC_BUFSIZE=N writes a .adolcrc here with N-entry
  // buffers (the dot product at n = 10^6 needs about 16M to stay in memory; large buffers slow
  // every small tape down, so small functions run without it).
  if (const char* n = std::getenv("ADLAB_ADOLC_BUFSIZE")) {
    if (std::FILE* rc = std::fopen(".adolcrc", "w")) {
      for (const char* key : {"OBUFSIZE", "LBUFSIZE", "VBUFSIZE", "TBUFSIZE"})
        std::fprintf(rc, "\"%s\" = \"%s\"\n", key, n);
      std::fclose(rc);
    }
  }
#endif
  return adlab::bench::run_benchmarks(argc, argv);
}
