// The dualrev strategy on IR programs (Interpreter<Dual>): the running example exactly, every
// mode, every variant, and every construct the interpreter runs, against the fd baseline.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "ad/dualrev/ir_engine.h"
#include "ad/dualrev/parallel_split.h"
#include "ad/dualrev/tape.h"
#include "ad/strategy.h"
#include "ir/syntax/parser.h"
#include "ir/tensor/tensor_ops.h"

using namespace adlab;
using namespace adlab::ad;

namespace {

const char* kPrograms = R"(
func running_example(x: f64, y: f64) -> f64 {
  let z = x + y
  return x * z
}

func constructs(x: f64[n], idx: i64[m], k: i64, A: f64[n, n] @csr) -> f64 {
  let s = scan[i < n] (+) x[i] * x[i]
  let h = loop[r < k] (acc = x) { next gen[i < n] tanh(acc[i] + 0.5 * x[i]) }
  let g = sum[j < m] x[idx[j]] * h[idx[j]]
  let c = sum[i < n] select(x[i] < 0, -x[i], exp(x[i]) / (1 + x[i] * x[i]))
  let sp = sum[(i, j) in A] A[i, j] * x[j] * sigmoid(x[i])
  let t = scatter[j < m] to f64[n] at (idx[j]) add x[j] * x[j]
  let p = scan[i < n] (*) (1 + 0.1 * x[i])
  let w = (max[i5 < n] sin(x[i5])) + sum[i6 < n, j6 < i6] [i6 + j6 < n] * log1p(x[i6] * x[i6]) * x[j6]
  return s[n - 1] + g + c + sp + sum[i < n] t[i] * p[i] + w + pow(1.5 + x[0] * x[0], x[1])
}

func two_results(x: f64[3], y: f64) -> (f64[3], f64) {
  return (gen[i < 3] x[i] * y, sum[i < 3] x[i] * x[i])
}

func particles[T](pos: f64[P, 2], vel: f64[P, 2]) -> f64 {
  let fin = gen[p < P] loop[t < T] (x = pos[p, 0], y = pos[p, 1], vx = vel[p, 0], vy = vel[p, 1]) {
    next (x + 0.05 * vx, y + 0.05 * vy, vx + 0.05 * (-0.5 * x - 0.2 * vx), vy + 0.05 * (-0.5 * y - 0.2 * vy))
  }
  return sum[q < P] fin[q].0 * fin[q].1
}

func floor_dims(a: f64[n]) -> f64 {
  let a1 = gen[i < n / 4 + 1, k < n] a[k] * f64(i)
  return sum[l < n] a1[1, l]
}

func shifted(x: f64[n]) -> f64 {
  let y = gen[i < n] x[i + 1] * 2
  return sum[j < n] y[j]
}

func triangle(x: f64[n]) -> f64 {
  let a = sum[j < n, l < j] x[l] * x[j]
  return a
}

func rounding(x: f64) -> f64 {
  return f64(f32(x)) * 2
}

func loops3(x: f64[n], w: f64[n]) -> f64 {
  let a = gen[i < n] sin(x[i]) * w[i]
  let s = sum[i < n] a[i] * x[i]
  let b = gen[i < n, j < 3] a[i] * s + f64(j) * x[i]
  return sum[i < n] b[i, 2] * w[i]
}

func dead_overflow(x: f64[n]) -> f64 {
  let big = exp(1000 * x[0])
  return sum[i < n] sin(x[i]) * x[i]
}

func cancel_overflow(x: f64[2]) -> f64 {
  let y = 1 / (x[0] * 1e-200)
  let z = y - y
  return z + x[0] * x[1]
}

func dead_overflow_rows(x: f64[2]) -> f64[2] {
  let big = exp(1000 * x[0])
  return gen[i < 2] select(i == 0, sin(x[0]) * x[0], big * x[1])
}
)";

ir::FunctionPtr program(const std::string& name) {
  static ir::Module m = ir::parse_module(kPrograms, "dualrev_test.adl");
  return m.entry(name);
}

std::vector<ir::Tensor> run(const std::string& strategy, const std::string& fn, Mode mode,
                            const std::vector<ir::Tensor>& in, std::vector<std::string> wrt = {}) {
  auto [s, variant] = StrategyRegistry::instance().resolve(strategy);
  auto d = s->differentiate(program(fn), Request{wrt, mode, variant});
  backends::Options o;
  o.count_ops = true;
  return d.executable("interp", o)->run(in);
}

std::vector<ir::Tensor> constructs_inputs() {
  ir::Tensor x = ir::dense_f64({5}, {0.3, -0.4, 0.7, 0.2, -0.9});
  ir::Tensor idx = ir::dense_i64({4}, {2, 0, 2, 4});
  ir::Tensor k = ir::dense_i64({}, {3});
  ir::Tensor A =
      ir::make_csr(5, 5, {0, 2, 3, 3, 5, 6}, {0, 3, 2, 1, 4, 0}, {1.5, -0.5, 2.0, 0.25, 1.0, -1.0});
  return {x, idx, k, A};
}

}  // namespace

TEST_CASE("003 section 4 running example through Interpreter<Dual>: (37, 12) exactly",
          "[dualrev]") {
  for (std::string s : {"dualrev", "dualrev/tape", "dualrev/staged-map", "dualrev/naive"}) {
    auto out = run(s, "running_example", Mode::Gradient, {ir::scalar(12), ir::scalar(13)});
    REQUIRE(out.size() == 3);
    CHECK(out[0].values[0] == 12.0 * 25.0);
    CHECK(out[1].values[0] == 37.0);
    CHECK(out[2].values[0] == 12.0);
  }
}

TEST_CASE("dualrev on scan, loop, data-dependent indexing, select, CSR, scatter, pow",
          "[dualrev]") {
  auto in = constructs_inputs();
  auto fd = run("fd", "constructs", Mode::Gradient, in, {"x", "A"});
  for (std::string s : {"dualrev/tape", "dualrev/staged-map", "dualrev/naive"}) {
    INFO(s);
    auto out = run(s, "constructs", Mode::Gradient, in, {"x", "A"});
    REQUIRE(out.size() == 3);
    CHECK(out[0].values[0] == fd[0].values[0]);  // the same primal as the interpreter in double
    for (std::size_t r = 1; r < 3; ++r) {
      REQUIRE(out[r].values.size() == fd[r].values.size());
      for (std::size_t i = 0; i < out[r].values.size(); ++i)
        CHECK(out[r].values[i] == Approx(fd[r].values[i]).epsilon(1e-6).margin(1e-7));
    }
    CHECK(out[2].storage == ir::Storage::Csr);  // the gradient keeps the stored pattern
  }
}

TEST_CASE("dualrev vjp and jacobian with two results (one reverse pass per output row)",
          "[dualrev]") {
  std::vector<ir::Tensor> in = {ir::dense_f64({3}, {1, 2, 3}), ir::scalar(0.5)};
  auto jac = run("dualrev", "two_results", Mode::Jacobian, in);
  REQUIRE(jac.size() == 2 + 4);
  // d(x_i y)/dx = y I, d(x_i y)/dy = x; d(sum x^2)/dx = 2x, d/dy = 0
  CHECK(jac[2].shape == std::vector<std::int64_t>{3, 3});
  CHECK(jac[2].values == std::vector<double>{0.5, 0, 0, 0, 0.5, 0, 0, 0, 0.5});
  CHECK(jac[3].values == std::vector<double>{1, 2, 3});
  CHECK(jac[4].values == std::vector<double>{2, 4, 6});
  CHECK(jac[5].values == std::vector<double>{0});
  auto in_vjp = in;
  in_vjp.push_back(ir::dense_f64({3}, {1, -1, 2}));
  in_vjp.push_back(ir::scalar(3));
  auto v = run("dualrev", "two_results", Mode::Vjp, in_vjp);
  REQUIRE(v.size() == 4);
  CHECK(v[2].values == std::vector<double>{0.5 + 6, -0.5 + 12, 1 + 18});
  CHECK(v[3].values == std::vector<double>{1 - 2 + 6});
}

TEST_CASE("a value no output reads contributes nothing, even with an infinite partial",
          "[dualrev]") {
  // An unused exp(1000 x) has partial inf; the tape's sweep multiplied its adjoint 0 by it, and
  // the gradient through x[0] read NaN (an audit helper's fuzzer; decision 236). d/dx_i of
  // sin(x_i) x_i is sin x_i + x_i cos x_i.
  std::vector<ir::Tensor> in = {ir::dense_f64({2}, {1.5, 2.0})};
  for (std::string s : {"dualrev", "dualrev/staged-map", "dualrev/naive"}) {
    INFO(s);
    auto out = run(s, "dead_overflow", Mode::Gradient, in);
    REQUIRE(out.size() == 2);
    CHECK(out[1].values[0] == Approx(std::sin(1.5) + 1.5 * std::cos(1.5)).epsilon(1e-15));
    CHECK(out[1].values[1] == Approx(std::sin(2.0) + 2.0 * std::cos(2.0)).epsilon(1e-15));
  }
  // A node whose contributions cancel to 0 (z = y - y) above an infinite partial (1 / (x 1e-200)
  // at x = 1e-60: y = 1e260, dy/dx = -inf): the tape and staged-map sum them first and take 0
  // times it as 0 (a reviewing helper; d/dx = (x1, x0)). Naive (stage 1) calls y's
  // backpropagator once per use, +inf and -inf: NaN, as forward mode's dy - dy.
  for (std::string s : {"dualrev", "dualrev/staged-map"}) {
    INFO(s);
    auto out = run(s, "cancel_overflow", Mode::Gradient, {ir::dense_f64({2}, {1e-60, 0.5})});
    REQUIRE(out.size() == 2);
    CHECK(out[1].values == std::vector<double>{0.5, 1e-60});
  }
  // The Jacobian's rows are swept as lanes: row 0 does not read `big` (its lane is 0 there),
  // row 1 does (inf), and only row 1 may be infinite.
  auto jac = run("dualrev", "dead_overflow_rows", Mode::Jacobian, in);
  REQUIRE(jac.size() == 2);
  const auto& j = jac[1].values;  // [2 outputs, 2 inputs]
  CHECK(j[0] == Approx(std::sin(1.5) + 1.5 * std::cos(1.5)).epsilon(1e-15));
  CHECK(j[1] == 0);
  CHECK(std::isinf(j[2]));
}

TEST_CASE("dualrev reports UNSUPPORTED for f32 rounding and modes it lacks, bad wrt is an error",
          "[dualrev]") {
  auto& reg = StrategyRegistry::instance();
  const Strategy* s = reg.find("dualrev");
  REQUIRE(s);
  CHECK(s->capabilities().variants.front() == "tape");
  CHECK_THROWS_AS(s->differentiate(program("rounding"), Request{}), Unsupported);
  CHECK_THROWS_WITH(s->differentiate(program("rounding"), Request{}),
                    Catch::Contains("dualrev_test.adl:46:14") && Catch::Contains("f32"));
  CHECK_THROWS_AS(s->differentiate(program("running_example"), Request{{}, Mode::Jvp, ""}),
                  Unsupported);
  CHECK_THROWS_WITH(
      s->differentiate(program("running_example"), Request{{"q"}, Mode::Gradient, ""}),
      Catch::Contains("no parameter `q`"));
  CHECK_THROWS_WITH(reg.resolve("dualrev/fast"), Catch::Contains("no variant"));
  // declined when differentiated, at the function's position (decision 222)
  CHECK_THROWS_WITH(
      s->differentiate(program("two_results"), Request{{}, Mode::Gradient, ""}),
      Catch::Contains("dualrev_test.adl:") && Catch::Contains("one floating scalar result"));
}

TEST_CASE("dualrev counts operations: forward, partials and the reverse pass", "[dualrev]") {
  auto [s, variant] = StrategyRegistry::instance().resolve("dualrev");
  auto d = s->differentiate(program("running_example"), Request{});
  backends::Options o;
  o.count_ops = true;
  auto exe = d.executable("interp", o);
  exe->run({ir::scalar(12), ir::scalar(13)});
  // forward: 1 add + 1 mul; reverse: 4 contributions, 2 of them multiplied (by 25 and 12), and
  // one addition (x receives two contributions; a first contribution is a write)
  CHECK(exe->counts()->adds == 1 + 1);
  CHECK(exe->counts()->muls == 1 + 2);
  const auto* stats = dualrev::last_resolve_stats(*exe);
  REQUIRE(stats);
  CHECK(stats->nodes_resolved == 4);
}

TEST_CASE(
    "003 section 12 on IR: a top-level gen runs as fork-join tasks, same bits for 1, 2, 4 "
    "threads",
    "[dualrev]") {
  auto [s, variant] = StrategyRegistry::instance().resolve("dualrev");
  std::vector<double> pos, vel;
  for (int k = 0; k < 10; ++k) {
    pos.push_back(std::sin(0.41 * k));
    vel.push_back(std::cos(0.3 * k));
  }
  std::vector<ir::Tensor> in = {ir::dense_f64({5, 2}, pos), ir::dense_f64({5, 2}, vel)};
  backends::Options o;
  o.sizes = {{"T", 50}};
  std::vector<std::vector<double>> grads;
  for (const char* threads : {"1", "2", "4"}) {
    ::setenv("ADLAB_THREADS", threads, 1);
    auto d = s->differentiate(program("particles"), Request{});
    auto exe = d.executable("interp", o);
    auto out = exe->run(in);
    CHECK(dualrev::last_job_count(*exe) > 1);  // the five particles ran in forked jobs
    std::vector<double> g = out[1].values;
    g.insert(g.end(), out[2].values.begin(), out[2].values.end());
    grads.push_back(g);
  }
  ::unsetenv("ADLAB_THREADS");
  for (std::size_t k = 1; k < grads.size(); ++k)
    CHECK(std::memcmp(grads[0].data(), grads[k].data(), grads[0].size() * sizeof(double)) == 0);
  auto fd = StrategyRegistry::instance().find("fd")->differentiate(program("particles"), Request{});
  auto want = fd.executable("interp", o)->run(in);
  for (std::size_t i = 0; i < 10; ++i) {
    CHECK(grads[0][i] == Approx(want[1].values[i]).epsilon(1e-6).margin(1e-8));
    CHECK(grads[0][10 + i] == Approx(want[2].values[i]).epsilon(1e-6).margin(1e-8));
  }
}

TEST_CASE(
    "003 section 12 on IR: every top-level gen and floating sum is a parallel loop, same bits for "
    "1, 2, 4 threads",
    "[dualrev]") {
  // f = sum_i (a_i s + 2 x_i) w_i, a_i = sin(x_i) w_i, s = sum_i a_i x_i:
  // df/dx_k = s cos(x_k) w_k^2 + 2 w_k + A (cos(x_k) w_k x_k + a_k), A = sum_i a_i w_i.
  auto f = program("loops3");
  REQUIRE(dualrev::split_chain(*f).size() == 3);  // gen, sum, gen (the result expression stays)
  const int n = 37;
  std::vector<double> x(n), w(n);
  for (int k = 0; k < n; ++k) x[k] = std::sin(0.7 * k + 0.2), w[k] = std::cos(0.3 * k);
  std::vector<ir::Tensor> in = {ir::dense_f64({n}, x), ir::dense_f64({n}, w)};
  double s = 0, A = 0;
  for (int i = 0; i < n; ++i) s += std::sin(x[i]) * w[i] * x[i], A += std::sin(x[i]) * w[i] * w[i];
  std::vector<std::vector<double>> grads;
  for (const char* threads : {"1", "2", "4"}) {
    ::setenv("ADLAB_THREADS", threads, 1);
    auto d = StrategyRegistry::instance().find("dualrev")->differentiate(f, Request{{"x"}});
    auto exe = d.executable("interp", backends::Options{});
    auto out = exe->run(in);
    CHECK(dualrev::last_job_count(*exe) >= 3 * 8);  // three forks of 8 chunks each
    grads.push_back(out[1].values);
  }
  ::unsetenv("ADLAB_THREADS");
  for (std::size_t k = 1; k < grads.size(); ++k)
    CHECK(std::memcmp(grads[0].data(), grads[k].data(), n * sizeof(double)) == 0);
  for (int k = 0; k < n; ++k) {
    double a = std::sin(x[k]) * w[k];
    double want =
        s * std::cos(x[k]) * w[k] * w[k] + 2 * w[k] + A * (std::cos(x[k]) * w[k] * x[k] + a);
    CHECK(grads[0][static_cast<std::size_t>(k)] == Approx(want).epsilon(1e-13).margin(1e-14));
  }
}

TEST_CASE("dualrev sum split: a triangular bound reads the shifted index in every chunk",
          "[dualrev]") {
  // a = sum_{l < j < n} x_l x_j: each chunk evaluated `l < j` with its local j (0 .. len - 1),
  // so at n = 10 every inner range was empty: a = 0, gradient 0 (found by a fuzzing helper).
  // da/dx_k = sum_{j > k} x_j + sum_{l < k} x_l; with x = (1, ..., 10) that is 55 - x_k.
  std::vector<double> x(10);
  for (int k = 0; k < 10; ++k) x[static_cast<std::size_t>(k)] = k + 1;
  for (const char* threads : {"1", "2"}) {
    ::setenv("ADLAB_THREADS", threads, 1);
    auto out = run("dualrev", "triangle", Mode::Gradient, {ir::dense_f64({10}, x)});
    REQUIRE(out.size() == 2);
    CHECK(out[0].values == std::vector<double>{1320});  // (55^2 - 385) / 2
    for (int k = 0; k < 10; ++k) CHECK(out[1].values[static_cast<std::size_t>(k)] == 54 - k);
  }
  ::unsetenv("ADLAB_THREADS");
}

TEST_CASE("dualrev gen split: a floor-division shape keeps the function whole", "[dualrev]") {
  auto out =
      run("dualrev", "floor_dims", Mode::Gradient, {ir::dense_f64({7}, {1, 2, 3, 4, 5, 6, 7})});
  REQUIRE(out.size() == 2);
  for (double g : out[1].values) CHECK(g == 1.0);
}

TEST_CASE("dualrev gen split: an out-of-range read inside a chunk is an adlab::Error",
          "[dualrev]") {
  ::setenv("ADLAB_THREADS", "2", 1);
  CHECK_THROWS_WITH(run("dualrev", "shifted", Mode::Gradient, {ir::dense_f64({4}, {1, 2, 3, 4})}),
                    Catch::Contains("index out of range") && Catch::Contains("x[i + 1]"));
  ::unsetenv("ADLAB_THREADS");
  CHECK(dualrev::tl_job == nullptr);
}
