// The dual number of reverse mode (paper 003): a value and the compound ID of its node, D[R] =
// (R, ID) (section 12, footnote 38); every primitive records its partials on the current job, so
// the type is used from C++ like ADOL-C's adouble and runs IR programs through Interpreter<Dual>.
#pragma once

#include <cmath>
#include <type_traits>

#include "ad/dualrev/tape.h"
#include "ir/interp/scalar.h"

namespace adlab::ad::dualrev {

// Most contributions one statement node collects before its operands are recorded on their own
// (a `Lin` never grows past it, so its arrays stay small enough to live in registers).
inline constexpr int kMaxTerms = 8;

template <int N>
struct Lin;

// Recording is a few stores; GCC's -O2 inliner otherwise leaves the statement code out of line.
#define ADLAB_DUALREV_INLINE [[gnu::always_inline]] inline

class Dual {
 public:
  constexpr Dual() = default;
  // A constant: no node, so contributions to it are dropped when they are recorded.
  constexpr Dual(double v) : v_(v) {}  // NOLINT(google-explicit-constructor): reads like double
  constexpr Dual(double v, NodeId id) : v_(v), id_(id) {}
  // Records a statement's pending contributions as one node (implicit: `Dual y = a * b + c;`).
  template <int N>
  Dual(const Lin<N>& l);  // NOLINT(google-explicit-constructor)

  double value() const { return v_; }
  NodeId id() const { return id_; }
  bool is_constant() const { return id_.is_constant(); }
  // The value (ir::math::to_double's hook for non-builtin scalar types); drops the derivative.
  template <class U>
  U convert_to() const {
    return static_cast<U>(v_);
  }

  template <class E>
  Dual& operator+=(const E& b);
  template <class E>
  Dual& operator-=(const E& b);
  template <class E>
  Dual& operator*=(const E& b);
  template <class E>
  Dual& operator/=(const E& b);

 private:
  double v_ = 0;
  NodeId id_;
};

// Statement-level preaccumulation (decision 116): an arithmetic expression on Duals is a `Lin`,
// the value and the not yet recorded contributions (operand ID, partial at cotangent 1) of the
// node it will become, computed eagerly by the chain rule. Converting it to a Dual records ONE node
// with N parents: `s + x * y` is one node with three edges instead of two nodes. This is paper
// 003's algorithm unchanged (a node's backpropagator is the linear map sum_k partial_k * d_k,
// section 10.2's Contrib with several entries); it only merges nodes that nothing else refers to.
template <int N>
struct Lin {
  double v = 0;
  bool unit = true;  // every partial is a structural +-1 (a + b, a - b): merging them is free
  int ops = 0;       // floating operations spent computing the partials (cost model)
  NodeId id[N];
  double d[N] = {};

  constexpr Lin() = default;
  // A constant (no terms recorded), so that `c ? a + b : 0.0` has a type as it has for double.
  constexpr Lin(double c) : v(c) {}  // NOLINT(google-explicit-constructor)
  double value() const { return v; }
  template <class U>
  U convert_to() const {
    return static_cast<U>(v);
  }
};

namespace detail {
[[noreturn]] void no_recording();

template <class E>
struct ExprTerms {
  static constexpr int value = 0;
};
template <>
struct ExprTerms<Dual> {
  static constexpr int value = 1;
};
template <int N>
struct ExprTerms<Lin<N>> {
  static constexpr int value = N;
};
// How many contributions an expression carries: 1 for a Dual, N for a Lin<N>, 0 otherwise.
template <class E>
inline constexpr int terms = ExprTerms<std::remove_cvref_t<E>>::value;
}  // namespace detail

// A scalar of reverse mode: a Dual or a statement's pending Lin.
template <class E>
concept DualExpr = detail::terms<E> >
0;

namespace detail {

ADLAB_DUALREV_INLINE Lin<1> lin(const Dual& a) {
  Lin<1> r;
  r.v = a.value();
  r.id[0] = a.id();
  r.d[0] = 1;
  return r;
}
template <int N>
ADLAB_DUALREV_INLINE const Lin<N>& lin(const Lin<N>& a) {
  return a;
}

// paper 003 section 10.3: the op rule writes its Contrib [(d_k, id_k), ...] on the tape, here
// once per statement. Constants are skipped; with factor_operands, terms of one node are summed
// into one edge (linear factoring at record time, section 6: d(a) (p z) + d(a) (q z) =
// d(a) ((p + q) z)).
// The general case, rare and so out of line: terms of one node (summed into one edge when
// factor_operands) or targets in other jobs (only next to forks and joins; encoded as far).
template <int N>
[[gnu::noinline]] NodeId record_general(const Lin<N>& l, Job* j) {
  NodeStore& ns = j->nodes;
  ns.reserve_edges(N);
  std::uint32_t* targets = ns.edge_targets();
  double* partials = ns.edge_partials();
  const bool merge = j->factor_operands;
  std::size_t edges = 0;
  int ops = l.ops;
  for (int i = 0; i < N; ++i) {
    if (l.id[i].is_constant()) continue;
    bool seen = false;  // an earlier term of this node's target took this partial already
    for (int k = 0; k < i; ++k) seen |= merge && l.id[k] == l.id[i];
    if (seen) continue;
    double d = l.d[i];
    for (int k = i + 1; k < N; ++k)
      if (merge && l.id[k] == l.id[i]) {
        d += l.d[k];
        ops += !l.unit;
      }
    targets[edges] = ns.target(l.id[i]);
    partials[edges] = d;
    ++edges;
  }
  j->partial_ops += ops;
  return NodeId{j->id, ns.end_node(edges)};
}

template <int N>
ADLAB_DUALREV_INLINE NodeId record(const Lin<N>& l) {
  bool any = false;
#pragma GCC unroll 8
  for (int i = 0; i < N; ++i) any |= !l.id[i].is_constant();
  if (!any) return NodeId{};
  Job* j = tl_job;
  if (!j) [[unlikely]]
    no_recording();
  // Branch-free tests for the general path: a term in another job, or (with factor_operands)
  // terms of one node.
  const std::uint32_t job = j->id;
  // A sequence number past the job's end is a Dual kept over a wrapped tag (decision 146): the
  // general path rejects it instead of an edge past the job's adjoints.
  const std::size_t n = j->nodes.size();
  bool general = false;
#pragma GCC unroll 8
  for (int i = 0; i < N; ++i)
    general |= (!l.id[i].is_constant()) & ((l.id[i].job != job) | (l.id[i].seq >= n));
  // Terms of one node have equal sequence numbers; comparing those alone (one compare a pair)
  // also sends equal numbers in two jobs, or two constants, to the general path, which records
  // any statement (decision 145).
  if constexpr (N > 1) {
    bool shared = false;
#pragma GCC unroll 8
    for (int i = 1; i < N; ++i)
#pragma GCC unroll 8
      for (int k = 0; k < i; ++k) shared |= l.id[k].seq == l.id[i].seq;
    general |= shared & j->factor_operands;
  }
  if (general) [[unlikely]]
    return record_general(l, j);
  NodeStore& ns = j->nodes;
  // `s = s + ...` right after s was recorded: the edge to s (partial 1) is implicit (decision 132).
  // Only the first term, so that the edges keep their order (for_each_edge yields it first). A
  // 32-bit mask, not a bool: a spilled byte reloaded as a word stalls store forwarding.
  std::uint32_t chain = 0;
  if constexpr (N > 1) chain = ns.is_tail(l.id[0]) & (l.d[0] == 1.0) ? NodeStore::kChain : 0u;
  ns.reserve_edges(N);
  std::uint32_t* targets = ns.edge_targets();
  double* partials = ns.edge_partials();
  std::size_t edges = 0;
#pragma GCC unroll 8
  for (int i = 0; i < N; ++i) {
    if (l.id[i].is_constant() || (i == 0 && chain)) continue;
    targets[edges] = l.id[i].seq;  // all in this job
    partials[edges] = l.d[i];
    ++edges;
  }
  if (chain && edges == 0) [[unlikely]] {
    // The other terms were constants. A chained node always stores an edge, so the nodes before
    // the first stored edge are exactly the edgeless ones (NodeStore::edgeless_prefix).
    targets[0] = l.id[0].seq;
    partials[0] = 1.0;
    edges = 1;
    chain = 0;
  }
  if (l.ops != 0) j->partial_ops += l.ops;  // usually known to be 0 at compile time
  return NodeId{job, ns.end_node_masked(edges, chain)};
}

// The terms of a scaled by sa followed by b's scaled by sb; `Scaled`: the scales are values, so
// each product is a multiplication, free only on a Dual's own partial 1.
template <bool Scaled, class A, class B>
ADLAB_DUALREV_INLINE Lin<terms<A> + terms<B>> join(double v, const A& a, double sa, const B& b,
                                                   double sb, int ops) {
  constexpr int N = terms<A>, M = terms<B>;
  const auto& la = lin(a);
  const auto& lb = lin(b);
  Lin<N + M> r;
  r.v = v;
  r.unit = !Scaled && la.unit && lb.unit;
  r.ops = la.ops + lb.ops + ops;
  if constexpr (Scaled)
    r.ops +=
        (N > 1 || !std::is_same_v<A, Dual> ? N : 0) + (M > 1 || !std::is_same_v<B, Dual> ? M : 0);
#pragma GCC unroll 8
  for (int i = 0; i < N; ++i) {
    r.id[i] = la.id[i];
    r.d[i] = la.d[i] * sa;
  }
#pragma GCC unroll 8
  for (int i = 0; i < M; ++i) {
    r.id[N + i] = lb.id[i];
    r.d[N + i] = lb.d[i] * sb;
  }
  return r;
}

// One operand's terms scaled by its local partial da (a primitive of one argument).
template <bool Scaled, class A>
ADLAB_DUALREV_INLINE Lin<terms<A>> scale(double v, const A& a, double da, int ops) {
  constexpr int N = terms<A>;
  const auto& la = lin(a);
  Lin<N> r;
  r.v = v;
  r.unit = !Scaled && la.unit;
  r.ops = la.ops + ops + (Scaled && !std::is_same_v<A, Dual> ? N : 0);
#pragma GCC unroll 8
  for (int i = 0; i < N; ++i) {
    r.id[i] = la.id[i];
    r.d[i] = la.d[i] * da;
  }
  return r;
}

}  // namespace detail

template <int N>
ADLAB_DUALREV_INLINE Dual::Dual(const Lin<N>& l) : v_(l.v), id_(detail::record(l)) {}

// ---- arithmetic: partials at cotangent 1 (paper 003 section 10.2) ----
// An operation whose operands carry more than kMaxTerms contributions records the larger first.
#define ADLAB_DUALREV_CAP(op)                                        \
  if constexpr (detail::terms<A> + detail::terms < B >> kMaxTerms) { \
    if constexpr (detail::terms<A> >= detail::terms<B>)              \
      return Dual(a) op b;                                           \
    else                                                             \
      return a op Dual(b);                                           \
  } else

// d(a + b) = (1, 1)
template <DualExpr A, DualExpr B>
ADLAB_DUALREV_INLINE auto operator+(const A& a, const B& b) {
  ADLAB_DUALREV_CAP(+)
  return detail::join<false>(a.value() + b.value(), a, 1.0, b, 1.0, 0);
}
// d(a - b) = (1, -1)
template <DualExpr A, DualExpr B>
ADLAB_DUALREV_INLINE auto operator-(const A& a, const B& b) {
  ADLAB_DUALREV_CAP(-)
  return detail::join<false>(a.value() - b.value(), a, 1.0, b, -1.0, 0);
}
// d(a * b) = (b, a)
template <DualExpr A, DualExpr B>
ADLAB_DUALREV_INLINE auto operator*(const A& a, const B& b) {
  ADLAB_DUALREV_CAP(*)
  return detail::join<true>(a.value() * b.value(), a, b.value(), b, a.value(), 0);
}
// d(a / b) = (1 / b, -(a / b) / b)
template <DualExpr A, DualExpr B>
ADLAB_DUALREV_INLINE auto operator/(const A& a, const B& b) {
  ADLAB_DUALREV_CAP(/) {
    const double q = a.value() / b.value(), r = 1 / b.value();
    return detail::join<true>(q, a, r, b, -q * r, 2);
  }
}
#undef ADLAB_DUALREV_CAP

// With a constant c: d(a + c) = d(c + a) = d(a - c) = 1, d(c - a) = -1, d(a c) = c,
// d(a / c) = 1 / c, d(c / a) = -(c / a) / a.
template <DualExpr A>
ADLAB_DUALREV_INLINE auto operator+(const A& a, double c) {
  return detail::scale<false>(a.value() + c, a, 1.0, 0);
}
template <DualExpr B>
ADLAB_DUALREV_INLINE auto operator+(double c, const B& b) {
  return detail::scale<false>(c + b.value(), b, 1.0, 0);
}
template <DualExpr A>
ADLAB_DUALREV_INLINE auto operator-(const A& a, double c) {
  return detail::scale<false>(a.value() - c, a, 1.0, 0);
}
template <DualExpr B>
ADLAB_DUALREV_INLINE auto operator-(double c, const B& b) {
  return detail::scale<false>(c - b.value(), b, -1.0, 0);
}
template <DualExpr A>
ADLAB_DUALREV_INLINE auto operator*(const A& a, double c) {
  return detail::scale<true>(a.value() * c, a, c, 0);
}
template <DualExpr B>
ADLAB_DUALREV_INLINE auto operator*(double c, const B& b) {
  return detail::scale<true>(c * b.value(), b, c, 0);
}
template <DualExpr A>
ADLAB_DUALREV_INLINE auto operator/(const A& a, double c) {
  return detail::scale<true>(a.value() / c, a, 1 / c, 1);
}
template <DualExpr B>
ADLAB_DUALREV_INLINE auto operator/(double c, const B& b) {
  const double q = c / b.value();
  return detail::scale<true>(q, b, -q / b.value(), 1);
}
// d(-a) = -1
template <DualExpr A>
ADLAB_DUALREV_INLINE auto operator-(const A& a) {
  return detail::scale<false>(-a.value(), a, -1.0, 0);
}
template <DualExpr A>
A operator+(const A& a) {
  return a;
}

template <class E>
ADLAB_DUALREV_INLINE Dual& Dual::operator+=(const E& b) {
  return *this = *this + b;
}
template <class E>
ADLAB_DUALREV_INLINE Dual& Dual::operator-=(const E& b) {
  return *this = *this - b;
}
template <class E>
ADLAB_DUALREV_INLINE Dual& Dual::operator*=(const E& b) {
  return *this = *this * b;
}
template <class E>
ADLAB_DUALREV_INLINE Dual& Dual::operator/=(const E& b) {
  return *this = *this / b;
}

// ---- comparisons act on values (paper 003 section 11: D[sign t] = sign(fst D[t])) ----
#define ADLAB_DUALREV_COMPARE(op)            \
  template <DualExpr A, DualExpr B>          \
  bool operator op(const A& a, const B& b) { \
    return a.value() op b.value();           \
  }                                          \
  template <DualExpr A>                      \
  bool operator op(const A& a, double c) {   \
    return a.value() op c;                   \
  }                                          \
  template <DualExpr B>                      \
  bool operator op(double c, const B& b) {   \
    return c op b.value();                   \
  }
ADLAB_DUALREV_COMPARE(==)
ADLAB_DUALREV_COMPARE(!=)
ADLAB_DUALREV_COMPARE(<)
ADLAB_DUALREV_COMPARE(<=)
ADLAB_DUALREV_COMPARE(>)
ADLAB_DUALREV_COMPARE(>=)
#undef ADLAB_DUALREV_COMPARE

// ---- primitives (found by argument-dependent lookup, as ir::math calls them); on a Lin they
// extend the statement's node (the chain rule through the pending partials) ----
// d exp(x) = exp(x): the primal result is reused
template <DualExpr E>
ADLAB_DUALREV_INLINE auto exp(const E& x) {
  const double e = std::exp(x.value());
  return detail::scale<true>(e, x, e, 0);
}
// d log(x) = 1 / x
template <DualExpr E>
ADLAB_DUALREV_INLINE auto log(const E& x) {
  return detail::scale<true>(std::log(x.value()), x, 1 / x.value(), 1);
}
// d log1p(x) = 1 / (1 + x)
template <DualExpr E>
ADLAB_DUALREV_INLINE auto log1p(const E& x) {
  return detail::scale<true>(std::log1p(x.value()), x, 1 / (1 + x.value()), 2);
}
// d expm1(x) = exp(x), not expm1(x) + 1, which cancels to 0 below x = -37 (an audit helper;
// decision 224)
template <DualExpr E>
ADLAB_DUALREV_INLINE auto expm1(const E& x) {
  return detail::scale<true>(std::expm1(x.value()), x, std::exp(x.value()), 1);
}
// d sin(x) = cos(x)
template <DualExpr E>
ADLAB_DUALREV_INLINE auto sin(const E& x) {
  return detail::scale<true>(std::sin(x.value()), x, std::cos(x.value()), 1);
}
// d cos(x) = -sin(x)
template <DualExpr E>
ADLAB_DUALREV_INLINE auto cos(const E& x) {
  return detail::scale<true>(std::cos(x.value()), x, -std::sin(x.value()), 1);
}
// d tan(x) = 1 + tan(x)^2
template <DualExpr E>
ADLAB_DUALREV_INLINE auto tan(const E& x) {
  const double t = std::tan(x.value());
  return detail::scale<true>(t, x, 1 + t * t, 2);
}
// d tanh(x) = 1 - tanh(x)^2, or 4 sigmoid(2x) sigmoid(-2x) at saturation (decisions 221, 223)
template <DualExpr E>
ADLAB_DUALREV_INLINE auto tanh(const E& x) {
  const double t = std::tanh(x.value());
  return detail::scale<true>(t, x, ir::math::tanh_derivative(x.value(), t), 2);
}
// d sigmoid(x) = (1 - tanh(x/2)^2) / 4, or sigmoid(x) sigmoid(-x) at saturation (decisions 221,
// 223); s as ir::math::sigmoid computes it
template <DualExpr E>
ADLAB_DUALREV_INLINE auto sigmoid(const E& x) {
  const double s = ir::math::sigmoid(x.value());
  return detail::scale<true>(s, x, ir::math::sigmoid_derivative(x.value(), s), 2);
}
// d sqrt(x) = 1 / (2 sqrt(x))
template <DualExpr E>
ADLAB_DUALREV_INLINE auto sqrt(const E& x) {
  const double r = std::sqrt(x.value());
  return detail::scale<true>(r, x, 0.5 / r, 1);
}
// d |x| = sign(x) (0 at the kink, which the checker flags)
template <DualExpr E>
ADLAB_DUALREV_INLINE auto abs(const E& x) {
  const double v = x.value();
  return detail::scale<true>(std::fabs(v), x, v > 0 ? 1.0 : (v < 0 ? -1.0 : 0.0), 0);
}
template <DualExpr E>
ADLAB_DUALREV_INLINE auto fabs(const E& x) {
  return abs(x);
}
// d lgamma(x) = digamma(x)
inline Dual lgamma(const Dual& x) {
  return detail::scale<true>(std::lgamma(x.value()), x, ir::math::digamma(x.value()), 1);
}
// d pow(x, y) = (y x^(y-1), x^y log x); the second only when y is differentiated (log x needs
// x > 0; at x = 0 the limit 0 is used)
inline Dual pow(const Dual& x, const Dual& y) {
  const double p = std::pow(x.value(), y.value());
  // y = 0: x^0 is constant in x (the formula would give 0 * 0^-1 = NaN at x = 0)
  const double dx =
      x.is_constant() || y.value() == 0 ? 0.0 : y.value() * std::pow(x.value(), y.value() - 1);
  const double dy = y.is_constant() ? 0.0 : (x.value() == 0 ? 0.0 : p * std::log(x.value()));
  return detail::join<true>(p, x, dx, y, dy, 4);
}
// floor and round are locally constant: no node (their derivative is 0 away from the jumps)
inline Dual floor(const Dual& x) {
  return Dual(std::floor(x.value()));
}
inline Dual round(const Dual& x) {
  return Dual(std::round(x.value()));
}
// min and max pass the chosen operand on, as the interpreter's `y < x ? y : x` does
inline Dual fmin(const Dual& x, const Dual& y) {
  return y < x ? y : x;
}
inline Dual fmax(const Dual& x, const Dual& y) {
  return x < y ? y : x;
}

// A new input: a leaf node on the job this thread records into (paper 003 Interleave).
ADLAB_DUALREV_INLINE Dual make_input(double v) {
  Job* j = tl_job;
  if (!j) detail::no_recording();
  return Dual(v, j->push_leaf());
}

// n inputs with consecutive IDs: one bound check, and the gradient is one block of adjoints.
inline void make_inputs(const double* values, std::size_t n, Dual* out) {
  Job* j = tl_job;
  if (!j) detail::no_recording();
  const std::uint32_t first = j->nodes.push_leaves(n);
  for (std::size_t k = 0; k < n; ++k)
    out[k] = Dual(values[k], NodeId{j->id, first + static_cast<std::uint32_t>(k)});
}

}  // namespace adlab::ad::dualrev

#undef ADLAB_DUALREV_INLINE
