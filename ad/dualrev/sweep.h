// paper 003 section 10.3's backward loop over one job's nodes, shared by the scalar reverse pass
// (tape_resolver.cpp) and the vector sweep for Jacobian rows (lane_resolver.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "ad/dualrev/tape.h"

namespace adlab::ad::dualrev {

// A job whose edges all target its own nodes (a tape without forks).
struct NoFarEdges {
  void operator()(std::uint32_t, double) const {}
};

// Nodes size-1 down to lo of ns, L cotangent lanes per node (adj[i * L + k]). The implicit chain
// edge (decision 132) is carried in registers: the next node visited is its target. With L = 1,
// an edge to another job (kFar) goes to far_edge(target, contribution) instead.
// The lane loops are unrolled so that a[] and carry[] live in registers: on the stack, their
// loads could wait on stores to the heap's lane array 4 KiB apart (probably 4K aliasing: the
// rotate benchmark ran at 210 or 370 ns depending on the length of the environment).
template <std::size_t L, class FarEdge = NoFarEdges>
[[gnu::always_inline]] inline void sweep_nodes(const NodeStore& ns, double* adj, std::size_t lo,
                                               FarEdge&& far_edge = {}) {
  constexpr bool kHasFar = !std::is_same_v<std::remove_cvref_t<FarEdge>, NoFarEdges>;
  static_assert(L == 1 || !kHasFar, "far edges only in the scalar sweep");
  const std::uint32_t* ends = ns.ends();
  const std::uint32_t* targets = ns.targets();
  const double* partials = ns.partials();
  double carry[L] = {};
  bool chained = false;
  for (std::size_t i = ns.size(); i-- > lo;) {
    double a[L];
    double* own = adj + i * L;
#pragma GCC unroll 8
    for (std::size_t k = 0; k < L; ++k) a[k] = own[k];
    if (chained)
#pragma GCC unroll 8
      for (std::size_t k = 0; k < L; ++k) own[k] = a[k] += carry[k];
    const std::uint32_t raw = ends[i];
    const std::uint32_t begin = i ? ends[i - 1] & ~NodeStore::kChain : 0;
    const std::uint32_t end = raw & ~NodeStore::kChain;
    // A node no output reaches has adjoint 0 and contributes nothing: its partials may be
    // infinite (an unused exp(1000 x)), and 0 * inf gave every gradient through it NaN where
    // staged-map, naive and the other strategies give the value (an audit helper; decision 236).
    bool live = false;
#pragma GCC unroll 8
    for (std::size_t k = 0; k < L; ++k) live |= a[k] != 0;
    if (!live) [[unlikely]] {
      // its far edges (to another job) are still visited, with 0: far_edge checks that the
      // target's job may be reached, which must not depend on the data (a reviewing helper)
      if constexpr (kHasFar)
        for (std::uint32_t e = begin; e < end; ++e)
          if (targets[e] & NodeStore::kFar) far_edge(targets[e], 0.0);
    } else {
      for (std::uint32_t e = begin; e < end; ++e) {
        const std::uint32_t t = targets[e];
        const double p = partials[e];
        if constexpr (kHasFar) {
          if (t & NodeStore::kFar) [[unlikely]] {
            far_edge(t, a[0] * p);
            continue;
          }
        }
        double* to = adj + std::size_t{t} * L;
        if constexpr (L == 1) {
          to[0] += a[0] * p;
        } else {  // a row whose lane is 0 at this node, beside one that is not
#pragma GCC unroll 8
          for (std::size_t k = 0; k < L; ++k) to[k] += a[k] == 0 ? 0.0 : a[k] * p;
        }
      }
    }
    chained = (raw & NodeStore::kChain) != 0;
#pragma GCC unroll 8
    for (std::size_t k = 0; k < L; ++k) carry[k] = a[k];
  }
  if (chained)  // node lo's implicit edge (lo > 0: node 0 has no chain)
#pragma GCC unroll 8
    for (std::size_t k = 0; k < L; ++k) adj[(lo - 1) * L + k] += carry[k];
}

}  // namespace adlab::ad::dualrev
