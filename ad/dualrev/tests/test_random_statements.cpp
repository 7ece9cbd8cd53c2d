// Differential test of the C++ recording paths against an independent forward mode: seeded random
// programs of statements that reach every path of `record` (dual.h) — multi-term statements past
// the 8-term cap, terms of one node, constants, the implicit chain edge of `s += ...` (decision
// 132) with copies taken before it and self-accumulation, compound assignments, selects, and
// forks whose sides read the parent job's values (the general path's far targets). The variants
// resolve one shared recording, so only a reference that records nothing can catch a recording
// that stores a wrong graph: here a dense tangent vector per value, propagated by the chain rule.
#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <random>
#include <vector>

#include "ad/dualrev/api.h"

using namespace adlab;
using namespace adlab::ad::dualrev;

namespace {

constexpr int kInputs = 6;

// Forward mode with all kInputs tangents at once: the reference (no tape, no IDs).
struct Tan {
  double v = 0;
  std::array<double, kInputs> d{};
  Tan() = default;
  Tan(double c) : v(c) {}  // NOLINT(google-explicit-constructor): a constant, as Dual(double)
  Tan& operator+=(const Tan& b) { return *this = *this + b; }
  Tan& operator-=(const Tan& b) { return *this = *this - b; }
  Tan& operator*=(const Tan& b) { return *this = *this * b; }
  Tan& operator/=(const Tan& b) { return *this = *this / b; }

  // r = a * pa + b * pb on the tangents (the chain rule of a binary primitive).
  static Tan lin(double v, const Tan& a, double pa, const Tan& b, double pb) {
    Tan r(v);
    for (int i = 0; i < kInputs; ++i) r.d[i] = a.d[i] * pa + b.d[i] * pb;
    return r;
  }
  static Tan unary(double v, const Tan& a, double pa) { return lin(v, a, pa, Tan(), 0); }
  friend Tan operator+(const Tan& a, const Tan& b) { return lin(a.v + b.v, a, 1, b, 1); }
  friend Tan operator-(const Tan& a, const Tan& b) { return lin(a.v - b.v, a, 1, b, -1); }
  friend Tan operator*(const Tan& a, const Tan& b) { return lin(a.v * b.v, a, b.v, b, a.v); }
  friend Tan operator/(const Tan& a, const Tan& b) {
    return lin(a.v / b.v, a, 1 / b.v, b, -a.v / (b.v * b.v));
  }
  friend bool operator<(const Tan& a, const Tan& b) { return a.v < b.v; }
  friend Tan tanh(const Tan& a) {
    const double t = std::tanh(a.v);
    return unary(t, a, 1 - t * t);
  }
  friend Tan cos(const Tan& a) { return unary(std::cos(a.v), a, -std::sin(a.v)); }
  friend Tan exp(const Tan& a) { return unary(std::exp(a.v), a, std::exp(a.v)); }
  friend Tan sqrt(const Tan& a) { return unary(std::sqrt(a.v), a, 0.5 / std::sqrt(a.v)); }
};

double value_of(const Tan& t) {
  return t.v;
}
double value_of(const Dual& t) {
  return t.value();
}

// A random program over a pool of values (decisions depend on the seed only, never on values, so
// Tan and Dual run the same statements). Outputs: the last four values of the pool.
template <class S>
std::vector<S> random_statements(const std::vector<S>& x, int statements, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<S> v(x.begin(), x.end());
  auto pick = [&] { return std::uniform_int_distribution<std::size_t>(0, v.size() - 1)(rng); };
  for (int s = 0; s < statements; ++s) {
    const std::size_t a = pick(), b = pick(), c = pick(), d = pick(), k = pick();
    switch (rng() % 13) {
      case 0:  // three terms
        v.push_back(S(tanh(v[a]) * v[b] + v[c]));
        break;
      case 1:  // four terms, possibly of one node (a == c): merged into one edge
        v.push_back(S((tanh(v[a]) + v[b]) * (tanh(v[c]) - v[d])));
        break;
      case 2: {  // a burst of accumulations into one value: the implicit chain edge
        const int m = 1 + static_cast<int>(rng() % 6);
        for (int i = 0; i < m; ++i) {
          const std::size_t p = pick(), q = pick();  // sequenced: operand order is unspecified
          v[k] += 0.5 * tanh(v[p]) * tanh(v[q]);
        }
        break;
      }
      case 3:  // a copy taken before +=, then used: it must keep the old node
      {
        S t = v[k];
        v[k] += t * tanh(v[a]);
        v[k] -= 0.25 * v[b];
        v.push_back(S(t + 0.5 * v[k]));
        break;
      }
      case 4:  // self-accumulation, and += of itself
        v[k] += v[k] * 0.125;
        if (rng() % 2) v[k] += v[k];
        v[k] *= 0.5;
        break;
      case 5: {  // a constant Dual: its terms are skipped, its value is used
        S k75 = 0.75;
        v[k] += k75 * tanh(v[a]);
        v.push_back(S(k75 * v[b] + k75));
        break;
      }
      case 6: {  // a sum of twelve terms: past the 8-term cap of a statement
        std::size_t p[12];
        for (std::size_t& i : p) i = pick();
        S t = v[p[0]] + v[p[1]] + v[p[2]] + v[p[3]] + v[p[4]] + v[p[5]] + v[p[6]] + v[p[7]] +
              v[p[8]] + v[p[9]] + v[p[10]] + v[p[11]];
        v.push_back(S(0.1 * t));
        break;
      }
      case 7:  // x * x + x: three terms of one node
        v.push_back(S(tanh(v[a]) * tanh(v[a]) + v[a]));
        break;
      case 8:  // compound multiply and divide, possibly by itself
        v[k] *= tanh(v[a]);
        v[k] /= 1.5 + cos(v[b]);
        break;
      case 9:  // unary primitives in one statement
        v.push_back(S(exp(0.1 * tanh(v[a])) * tanh(v[b]) + sqrt(1.0 + v[c] * v[c])));
        break;
      case 10:  // a select on values
        v.push_back(v[a] < v[b] ? S(v[a] + v[b]) : S(v[a] - 2.0 * v[b]));
        break;
      case 11: {  // a fork: both sides read values recorded before it (other jobs after the join)
        auto [p, q] = parallel([&] { return S(tanh(v[a]) * v[b] + v[c]); },
                               [&] {
                                 S acc = v[d];
                                 for (int i = 0; i < 3; ++i) acc += 0.5 * tanh(v[a]) * v[k];
                                 return acc;
                               });
        v.push_back(p);
        v.push_back(S(q - v[k]));
        break;
      }
      default:  // an accumulation into a value of the forked sides (a term in another job)
        v.back() += 0.5 * v[a] * tanh(v[b]);
        break;
    }
  }
  return std::vector<S>(v.end() - 4, v.end());
}

std::vector<double> inputs(std::uint64_t seed) {
  std::mt19937_64 rng(seed * 7919 + 1);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> x(kInputs);
  for (double& xi : x) xi = u(rng);
  return x;
}

// The reference: outputs and their Jacobian by forward mode.
std::vector<Tan> reference(const std::vector<double>& x, int statements, std::uint64_t seed) {
  std::vector<Tan> xs;
  for (int i = 0; i < kInputs; ++i) {
    Tan t(x[static_cast<std::size_t>(i)]);
    t.d[static_cast<std::size_t>(i)] = 1;
    xs.push_back(t);
  }
  return random_statements(xs, statements, seed);
}

// |got - want| within a few ulps of the terms' scale (the two modes sum in different orders).
void check_close(double got, double want, double scale) {
  CHECK(std::isfinite(got));
  CHECK(std::abs(got - want) <= 1e-11 * (1 + scale));
}

double scale_of(const std::vector<Tan>& ys) {
  double m = 0;
  for (const Tan& y : ys)
    for (double di : y.d) m = std::max(m, std::abs(di));
  return m;
}

}  // namespace

TEST_CASE(
    "003 section 10.3 recording (decisions 116, 132, 133): random statements, the Jacobian of "
    "tape and staged-map against forward mode",
    "[dualrev]") {
  for (std::uint64_t seed = 1; seed <= 60; ++seed) {
    const int statements = 40 + static_cast<int>(seed % 5) * 20;
    const auto x = inputs(seed);
    const auto want = reference(x, statements, seed);
    const double scale = scale_of(want);
    INFO("seed " << seed << ", " << statements << " statements, scale " << scale);
    REQUIRE(std::isfinite(scale));
    auto f = [&](const std::vector<Dual>& xs) { return random_statements(xs, statements, seed); };
    for (unsigned threads : {1u, 2u}) {
      for (Variant v : {Variant::Tape, Variant::StagedMap}) {
        INFO(threads << " threads, variant " << variant_name(v));
        Tape tape(TapeOptions{threads});
        auto J = jacobian(tape, f, x, v);
        REQUIRE(J.size() == want.size());
        for (std::size_t o = 0; o < J.size(); ++o)
          for (std::size_t i = 0; i < static_cast<std::size_t>(kInputs); ++i) {
            INFO("d y" << o << " / d x" << i);
            check_close(J[o][i], want[o].d[i], scale);
          }
      }
    }
  }
}

TEST_CASE(
    "003 section 10.3 recording: random statements, gradient (one reverse pass) of tape, "
    "staged-map and naive against forward mode, values exact",
    "[dualrev]") {
  for (std::uint64_t seed = 100; seed < 140; ++seed) {
    const int statements = 12 + static_cast<int>(seed % 4) * 4;  // naive: exponential on sharing
    const auto x = inputs(seed);
    const auto want = reference(x, statements, seed);
    INFO("seed " << seed << ", " << statements << " statements");
    // The weighted sum of the outputs: one seed per output, as a VJP.
    const std::vector<double> w = {1.0, -0.5, 0.25, 2.0};
    auto f = [&](const std::vector<Dual>& xs) {
      auto ys = random_statements(xs, statements, seed);
      for (std::size_t o = 0; o < ys.size(); ++o)  // the primal values are the reference's exactly
        CHECK(value_of(ys[o]) == value_of(want[o]));
      return ys;
    };
    for (Variant v : {Variant::Tape, Variant::StagedMap, Variant::Naive}) {
      INFO("variant " << variant_name(v));
      Tape tape(TapeOptions{1, v != Variant::Naive});
      auto g = vjp(tape, f, x, w, v);
      REQUIRE(g.size() == static_cast<std::size_t>(kInputs));
      for (std::size_t i = 0; i < g.size(); ++i) {
        double ref = 0, scale = 0;
        for (std::size_t o = 0; o < w.size(); ++o) {
          ref += w[o] * want[o].d[i];
          scale = std::max(scale, std::abs(w[o] * want[o].d[i]));
        }
        INFO("d / d x" << i);
        check_close(g[i], ref, scale);
      }
    }
  }
}
