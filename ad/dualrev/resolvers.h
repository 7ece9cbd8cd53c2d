// The three reverse passes behind Tape::resolve, one per stage of paper 003 (internal header).
#pragma once

#include "ad/dualrev/tape.h"

namespace adlab::ad::dualrev::detail {

// Each starts from zeroed adjoint arrays (one per job, sized n_alpha) and the tape's seeds, and
// leaves the cotangents in Job::adj. `visits` (instrument only) counts visits per job and node.
using Visits = std::vector<std::vector<std::uint32_t>>;

// Which nodes have received a contribution: the cost model charges an adjoint that receives k
// contributions k - 1 additions (paper 000 (4.30): a sum of k terms costs k - 1), so the first
// contribution is a write, not an addition. The seeds are their nodes' first contributions.
class Received {
 public:
  explicit Received(const Tape& t) {
    for (std::size_t k = 0; k < t.num_jobs(); ++k)
      flags_.emplace_back(t.job(static_cast<std::uint32_t>(k)).nodes.size(), 0);
    for (const auto& [id, v] : t.seeds()) first(id);
  }
  // True when this is the node's first contribution.
  bool first(NodeId id) {
    auto& f = flags_[id.job_index()][id.seq];
    bool was = f != 0;
    f = 1;
    return !was;
  }

 private:
  std::vector<std::vector<std::uint8_t>> flags_;
};

// The key of a node in highest-first order, the same whatever the thread schedule: its job's
// rank in the job graph walked from the terminal job, then its sequence number (decision 183).
// A node of an abandoned fork's job has none: abandoned_fork_scalar().
class RankedKeys {
 public:
  explicit RankedKeys(const Tape& t);
  std::uint64_t operator()(NodeId id) const;
  std::uint32_t job(std::uint64_t key) const { return by_rank_[key >> 32]; }
  static std::uint32_t seq(std::uint64_t key) {
    return static_cast<std::uint32_t>(key & 0xffffffffu);
  }

 private:
  std::vector<std::uint32_t> by_rank_;
  std::vector<std::uint32_t> rank_;
};

// Sizes and zeroes every job's adjoint array (in parallel on the tape's pool).
void zero_adjoints(Tape& t);

// The error of a scalar made inside a fork whose recording was abandoned (a side threw), used
// after it: its job hangs under no join, so no walk from the terminal job reaches it.
Error abandoned_fork_scalar();

// Final stage (paper 003 sections 9, 10.1-10.3, 12): arrays, the job graph walked in reverse,
// independent subtasks resolved in parallel on the tape's pool.
void resolve_tape(Tape& t, const ResolveOptions& o, ResolveStats& s, Visits* visits);
// Stages 2-4 (paper 003 sections 6-8): a staging map ordered by ID, highest ID first.
void resolve_staged_map(Tape& t, const ResolveOptions& o, ResolveStats& s, Visits* visits);
// Stage 1 (paper 003 section 5): every backpropagator called once per use (exponential on sharing).
void resolve_naive(Tape& t, const ResolveOptions& o, ResolveStats& s, Visits* visits);

// The number of backpropagator calls stage 1 makes on this tape: for each node, the number of
// paths to it from the seeds, summed (one highest-first pass, as stages 2-4, over path counts
// instead of adjoints). Tells naive's budget from a fault of its resolver (decision 248).
double naive_calls(const Tape& t);

}  // namespace adlab::ad::dualrev::detail
