// The parallel reverse pass (paper 003 section 12): random fork-join DAGs (digest 003 section 9
// "parallel random"), parallel small/large, particles; same bits for 1, 2 and 4 threads.
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <stdexcept>
#include <thread>

#include "ad/dualrev/api.h"
#include "ad/dualrev/particles.h"
#include "ad/dualrev/resolvers.h"

using namespace adlab;
using namespace adlab::ad::dualrev;

namespace {

// The generator of the ad-dualrev-th tests (digest 003 section 9): Extend with probability 1/2;
// else Split with probability 1 - 1/size (each part gets size / 3); else Source.
struct Graph {
  enum Kind { Source, Extend, Split } kind = Source;
  int input = 0;
  std::unique_ptr<Graph> left, right, next;
};

std::unique_ptr<Graph> generate(std::mt19937_64& rng, int size) {
  auto g = std::make_unique<Graph>();
  std::uniform_real_distribution<double> u(0, 1);
  if (u(rng) < 0.5) {
    g->kind = Graph::Extend;
    g->input = static_cast<int>(rng() % 2);
    g->next = generate(rng, size);
  } else if (u(rng) < 1 - 1.0 / std::max(size, 1)) {
    g->kind = Graph::Split;
    g->left = generate(rng, size / 3);
    g->right = generate(rng, size / 3);
    g->next = generate(rng, size / 3);
  }
  return g;
}

// Extend: s -> x s / log((x + s)^2 + 2); Split: fork (s + 2, s + 1), join a + 0.9 b.
template <class S>
S eval(const Graph& g, S s, const std::vector<S>& x, bool forks) {
  switch (g.kind) {
    case Graph::Source:
      return s;
    case Graph::Extend: {
      const S& xi = x[static_cast<std::size_t>(g.input)];
      using std::log;
      return eval<S>(*g.next, xi * s / log((xi + s) * (xi + s) + 2.0), x, forks);
    }
    case Graph::Split: {
      auto left = [&] { return eval<S>(*g.left, s + 2.0, x, forks); };
      auto right = [&] { return eval<S>(*g.right, s + 1.0, x, forks); };
      S a, b;
      if constexpr (std::is_same_v<S, Dual>) {
        if (forks) {
          auto [pa, pb] = parallel(left, right);
          a = pa;
          b = pb;
        } else {
          a = left();
          b = right();
        }
      } else {
        a = left();
        b = right();
      }
      return eval<S>(*g.next, a + 0.9 * b, x, forks);
    }
  }
  return s;
}

std::vector<double> grad_of(const Graph& g, const std::vector<double>& x, unsigned threads,
                            bool forks, Variant v = Variant::Tape, ResolveStats* stats = nullptr,
                            std::size_t* jobs = nullptr, std::int64_t* nodes = nullptr,
                            std::int64_t* edges = nullptr) {
  Tape t(TapeOptions{threads});
  ResolveOptions o;
  o.instrument = stats != nullptr;
  auto r = gradient(
      t, [&](const std::vector<Dual>& xs) { return eval<Dual>(g, xs[0] * xs[1], xs, forks); }, x, v,
      o);
  if (stats) *stats = r.stats;
  if (jobs) *jobs = t.num_jobs();
  if (nodes) *nodes = t.num_nodes();
  if (edges) *edges = t.num_edges();
  return r.gradient;
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

}  // namespace

TEST_CASE("003 section 9 parallel random: fork-join DAGs, same bits for 1, 2 and 4 threads",
          "[dualrev]") {
  int with_forks = 0;
  for (std::uint64_t seed = 1; seed <= 30; ++seed) {
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    auto g = generate(rng, 100);
    std::vector<double> x = {0.8, 1.3};
    ResolveStats stats;
    std::size_t jobs = 0;
    std::int64_t nodes = 0, edges = 0;
    auto g1 = grad_of(*g, x, 1, true, Variant::Tape, &stats, &jobs, &nodes, &edges);
    with_forks += jobs > 1;
    // The job graph: every node resolved once, every edge once, targets <c sources.
    CHECK(stats.nodes_visited == nodes);
    CHECK(stats.nodes_revisited == 0);
    CHECK(stats.edges_processed == edges);
    CHECK(stats.order_violations == 0);
    // Determinism: the same bits whatever the number of threads.
    for (unsigned threads : {2u, 4u}) CHECK(same_bits(g1, grad_of(*g, x, threads, true)));
    // The same derivative as without forks, as the other stages and as finite differences.
    auto seq = grad_of(*g, x, 1, false);
    auto staged = grad_of(*g, x, 1, true, Variant::StagedMap);
    for (std::size_t i = 0; i < 2; ++i) {
      CHECK(g1[i] == Approx(seq[i]).epsilon(1e-12).margin(1e-300));
      CHECK(g1[i] == Approx(staged[i]).epsilon(1e-12).margin(1e-300));
      long double h = 1e-6L;
      std::vector<long double> xp(x.begin(), x.end()), xm = xp;
      xp[i] += h;
      xm[i] -= h;
      long double fd =
          (eval(*g, xp[0] * xp[1], xp, false) - eval(*g, xm[0] * xm[1], xm, false)) / (2 * h);
      CHECK(g1[i] == Approx(static_cast<double>(fd)).epsilon(1e-6).margin(1e-9));
    }
  }
  CHECK(with_forks >= 10);  // the generator did produce fork-join graphs
}

TEST_CASE("dualrev/naive on fork-join DAGs: its calls are the tape's paths (decision 248)",
          "[dualrev]") {
  // naive_calls counts stage 1's calls without making them; where it is over the budget the
  // budget's error says so, where it is not, naive must finish within it
  int run = 0, over = 0;
  for (std::uint64_t seed = 1; seed <= 30; ++seed) {
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    auto g = generate(rng, 12);
    Tape t(TapeOptions{2, false});  // stage 1's recording: every operand use its own edge
    gradient(
        t, [&](const std::vector<Dual>& xs) { return eval<Dual>(*g, xs[0] * xs[1], xs, true); },
        {0.8, 1.3}, Variant::StagedMap);
    const double paths = ad::dualrev::detail::naive_calls(t);
    ResolveOptions o;
    o.call_limit = 200'000;
    if (paths > 200'000) {
      ++over;
      CHECK_THROWS_AS(t.resolve(Variant::Naive, o), CallLimitExceeded);
      continue;
    }
    ++run;
    const ResolveStats s = t.resolve(Variant::Naive, o);
    CHECK(static_cast<double>(s.nodes_resolved) == paths);
  }
  CHECK(run >= 10);  // both sides of the budget are reached (15 and 15 here)
  CHECK(over >= 10);
}

TEST_CASE("003 section 9 parallel small: (x y x) * (y + y + x)", "[dualrev]") {
  for (unsigned threads : {1u, 2u}) {
    Tape t(TapeOptions{threads});
    auto r = gradient(t,
                      [](const std::vector<Dual>& v) {
                        auto [a, b] = parallel([&] { return v[0] * v[1] * v[0]; },
                                               [&] { return v[1] + v[1] + v[0]; });
                        return a + b;
                      },
                      {1.5, -0.5});
    CHECK(r.gradient[0] == Approx(2 * 1.5 * -0.5 + 1));
    CHECK(r.gradient[1] == Approx(1.5 * 1.5 + 2));
    CHECK(t.num_jobs() == 4);  // root, two subtasks, the join job
  }
}

TEST_CASE("003 section 9 parallel large: two 300-step rotations in parallel", "[dualrev]") {
  auto rotate = [](Dual a, Dual b) {
    for (int i = 1; i <= 300; ++i) {
      double ang = 0.1 + 0.05 * std::sin(i);
      Dual na = a * std::cos(ang) - b * std::sin(ang);
      Dual nb = a * std::sin(ang) + b * std::cos(ang);
      a = na;
      b = nb;
    }
    return a + b;
  };
  double A = 30;
  for (int i = 1; i <= 300; ++i) A += 0.05 * std::sin(i);
  std::vector<double> prev;
  for (unsigned threads : {1u, 2u, 4u}) {
    Tape t(TapeOptions{threads});
    auto r = gradient(t,
                      [&](const std::vector<Dual>& v) {
                        auto [p, q] = parallel([&] { return rotate(v[0], v[1]); },
                                               [&] { return rotate(v[1], v[0]); });
                        return p + q;
                      },
                      {0.6, 0.9});
    CHECK(r.gradient[0] == Approx(2 * std::cos(A)).epsilon(1e-12));
    CHECK(r.gradient[1] == Approx(2 * std::cos(A)).epsilon(1e-12));
    if (!prev.empty()) CHECK(same_bits(prev, r.gradient));
    prev = r.gradient;
  }
}

TEST_CASE("003 section 7 particles: parallel gradient equals the sequential one", "[dualrev]") {
  std::vector<double> s0;
  for (int k = 0; k < 16; ++k) s0.push_back(std::sin(0.37 * k + 0.1));
  Tape seq_tape;
  auto seq = gradient(
      seq_tape, [](const std::vector<Dual>& v) { return testing::particles(v, 200, false); }, s0);
  std::vector<double> prev;
  for (unsigned threads : {1u, 2u, 4u}) {
    Tape t(TapeOptions{threads});
    auto par = gradient(
        t, [](const std::vector<Dual>& v) { return testing::particles(v, 200, true); }, s0);
    CHECK(t.num_jobs() > 1);
    for (std::size_t i = 0; i < s0.size(); ++i)
      CHECK(par.gradient[i] == Approx(seq.gradient[i]).epsilon(1e-13));
    if (!prev.empty()) CHECK(same_bits(prev, par.gradient));
    prev = par.gradient;
  }
}

TEST_CASE("dualrev fork: an exception in a subtask reaches the caller", "[dualrev]") {
  Tape t(TapeOptions{2});
  auto boom = [](const std::vector<Dual>& v) -> Dual {
    auto [a, b] = parallel([&] { return v[0] * 2.0; },
                           [&]() -> Dual { throw Error("bad input in the right subtask"); });
    return a + b;
  };
  CHECK_THROWS_WITH(gradient(t, boom, {1.0}), Catch::Contains("right subtask"));
  CHECK(tl_job == nullptr);  // the cursor was restored
  auto ok = gradient(t, [](const std::vector<Dual>& v) { return v[0] * v[0]; }, {3.0});
  CHECK(ok.gradient[0] == 6.0);
}

TEST_CASE("003 section 12 reverse pass: each job resolved on the thread that recorded it",
          "[dualrev]") {
  // Decision 122. f waits until g has started, so g's job is recorded by the worker, not by this
  // thread helping at the join; then the particles add jobs on whichever thread takes them.
  std::vector<double> s0;
  for (int k = 0; k < 32; ++k) s0.push_back(std::sin(0.37 * k + 0.1));
  for (unsigned threads : {2u, 4u}) {
    Tape t(TapeOptions{threads});
    std::vector<Dual> xs;
    Dual y;
    {
      Recording rec(t);
      for (double v : s0) xs.push_back(make_input(v));
      std::atomic<bool> g_started{false};
      auto [a, b] = parallel(
          [&] {
            const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
            while (!g_started && std::chrono::steady_clock::now() < deadline)
              std::this_thread::yield();
            return xs[0] * xs[1];
          },
          [&] {
            g_started = true;
            return xs[2] * xs[3];
          });
      REQUIRE(g_started);
      y = a + b + testing::particles(xs, 50, true);
    }
    std::size_t by_workers = 0;
    for (std::size_t k = 0; k < t.num_jobs(); ++k)
      by_workers += t.job(static_cast<std::uint32_t>(k)).thread != 0;
    CHECK(by_workers >= 1);
    t.seed(y.id(), 1.0);
    ResolveOptions o;
    o.instrument = true;
    const ResolveStats s = t.resolve(Variant::Tape, o);
    CHECK(s.jobs_off_thread == 0);
    CHECK(s.nodes_revisited == 0);
    CHECK(s.order_violations == 0);
    CHECK(t.adjoint(xs[0].id()) != 0.0);
  }
}

TEST_CASE("003 section 12 a fork abandoned by an exception, caught inside the recording",
          "[dualrev]") {
  // The subtask's job never closes (decision 125: a job's adjoints are sized and zeroed when it
  // closes), so the reverse pass sizes and zeroes them itself. A scalar that escaped the failed
  // subtask cannot be seeded: its job hangs under no join, the walk from the terminal job never
  // reaches it, and x's adjoint read 0 (decision 173). The parent job records on after the fork
  // and is closed at stop.
  for (unsigned threads : {1u, 2u}) {
    Tape t(TapeOptions{threads});
    Dual x, y, escaped;
    {
      Recording rec(t);
      x = make_input(1.5);
      Dual s = x * x;
      try {
        parallel([&] { return s * 2.0; },
                 [&]() -> Dual {
                   escaped = s * x;
                   throw std::runtime_error("abandoned");
                 });
      } catch (const std::runtime_error&) {
      }
      y = s * x + x;  // y = x^3 + x, in the parent job after the failed fork
    }
    // The first pass, seeded in the unclosed job: an error before any adjoint is touched.
    t.seed(escaped.id(), 1.0);
    CHECK_THROWS_WITH(t.resolve(), Catch::Contains("abandoned"));
    for (int pass = 0; pass < 2; ++pass) {  // later passes zero the previous one's adjoints
      t.clear_seeds();
      t.seed(y.id(), 1.0);
      t.resolve();
      CHECK(t.adjoint(y.id()) == 1.0);
      CHECK(t.adjoint(x.id()) == 3 * 1.5 * 1.5 + 1);
      CHECK(t.adjoint(escaped.id()) == 0.0);
    }
  }
}

TEST_CASE("a scalar of an abandoned fork's finished side, used after it: every stage refuses",
          "[dualrev]") {
  // u = x * x is made by the side that finished, the other side throws; y reads u after the
  // fork. Its job hangs under no join (decision 173): tape and staged-map refused, naive resolved
  // it (a reviewing helper; decision 248 counts naive's calls over the same job ranks)
  for (Variant v : {Variant::Tape, Variant::StagedMap, Variant::Naive}) {
    INFO(variant_name(v));
    Tape t(TapeOptions{1, v != Variant::Naive});
    Dual x, u, y;
    {
      Recording r(t);
      x = make_input(2.0);
      try {
        t.fork([&] { u = x * x; }, [] { throw std::runtime_error("g failed"); });
      } catch (const std::runtime_error&) {
      }
      y = u;
      for (int k = 0; k < 8; ++k) y = y + y;
    }
    t.seed(y.id(), 1.0);
    CHECK_THROWS_WITH(t.resolve(v), Catch::Contains("abandoned"));
  }
}

TEST_CASE("staged-map gives the same bits for 1, 2 and 4 threads whatever the schedule",
          "[dualrev]") {
  // Job indices are taken in the order threads reach a fork, and the staged map added the
  // contributions to a shared input in index order: with the left side held back, the right
  // side's nested jobs got the lower indices on 2 threads and the higher ones on 1, and the
  // terms below (1, 1e16, -1e16, 1 in some order) summed to 0 on 2 threads and to 1 on 1
  // (an audit finding, decision 183). The order is now the job graph's, which no schedule
  // changes.
  auto f = [](const std::vector<Dual>& xs) {
    const Dual& x = xs[0];
    auto side = [&](double c1, double c2, bool hold) {
      return [&x, c1, c2, hold] {
        if (hold) std::this_thread::sleep_for(std::chrono::milliseconds(20));
        // Dual results: each product is a node of its own job (a Lin would be carried out)
        auto [a, b] = parallel([&]() -> Dual { return x * c1; }, [&]() -> Dual { return x * c2; });
        return a + b;
      };
    };
    auto [l, r] = parallel(side(1.0, 1e16, true), side(-1e16, 1.0, false));
    return l + r;
  };
  std::vector<std::vector<double>> got;
  for (unsigned threads : {1u, 2u, 4u}) {
    for (int rep = 0; rep < 3; ++rep) {
      Tape t(TapeOptions{threads});
      got.push_back(gradient(t, f, {0.5}, Variant::StagedMap).gradient);
    }
  }
  for (const auto& g : got) CHECK(same_bits(g, got[0]));
}
