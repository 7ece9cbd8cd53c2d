// Several reverse passes in one sweep (vector mode, like ADOL-C's fov_reverse): lane k carries the
// cotangents of output k, so a Jacobian's rows share one walk over the tape (paper 003 section 7
// computes rotate_vec_by_quat's Jacobian row by row; the rows are the same passes, merged).
#include <algorithm>
#include <utility>

#include "ad/dualrev/resolvers.h"
#include "ad/dualrev/sweep.h"
#include "ir/error.h"

namespace adlab::ad::dualrev {

namespace {

// Most lanes one sweep carries (a node's lane adjoints stay in registers); more outputs are
// resolved in groups of this many.
constexpr std::size_t kMaxLanes = 8;

template <std::size_t... L>
void sweep_lanes_dispatch(std::size_t lanes, const NodeStore& ns, double* adj,
                          std::index_sequence<L...>) {
  ((lanes == L + 1 ? sweep_nodes<L + 1>(ns, adj, ns.edgeless_prefix()) : void()), ...);
}

}  // namespace

void Tape::jacobian_rows(std::span<const NodeId> outputs, std::span<const NodeId> inputs,
                         double* rows) {
  if (recording_) throw Error("dualrev: resolve while the tape is still recording");
  if (abandoned_) throw abandoned_recording();
  // Every ID must be this tape's (check_id throws); the test inline, the error out of line.
  auto check = [this](NodeId id) {
    if (!id.is_constant()) [[likely]] {
      const Job* j = live_job(id.job);
      if (!j || id.seq >= j->nodes.size()) [[unlikely]]
        check_id(id);
    }
  };
  for (NodeId y : outputs) check(y);
  for (NodeId x : inputs) check(x);
  const std::size_t n_in = inputs.size();
  if (live_jobs_ != 1) {
    // Forks and joins: the job graph's walk (tape_resolver.cpp), one pass per output.
    for (std::size_t k = 0; k < outputs.size(); ++k) {
      clear_seeds();
      seed(outputs[k], 1.0);
      resolve(Variant::Tape);
      for (std::size_t i = 0; i < n_in; ++i) rows[k * n_in + i] = adjoint(inputs[i]);
    }
    return;
  }
  const NodeStore& ns = jobs_[0]->nodes;
  for (std::size_t first = 0; first < outputs.size(); first += kMaxLanes) {
    const std::size_t lanes = std::min(kMaxLanes, outputs.size() - first);
    // Zeroes only what this recording uses; the buffer keeps its memory between calls.
    lane_adj_.assign(ns.size() * lanes, 0.0);
    for (std::size_t k = 0; k < lanes; ++k) {
      const NodeId y = outputs[first + k];
      if (!y.is_constant()) lane_adj_[std::size_t{y.seq} * lanes + k] += 1.0;
    }
    sweep_lanes_dispatch(lanes, ns, lane_adj_.data(), std::make_index_sequence<kMaxLanes>{});
    for (std::size_t k = 0; k < lanes; ++k)
      for (std::size_t i = 0; i < n_in; ++i)
        rows[(first + k) * n_in + i] =
            inputs[i].is_constant() ? 0.0 : lane_adj_[std::size_t{inputs[i].seq} * lanes + k];
  }
}

}  // namespace adlab::ad::dualrev
