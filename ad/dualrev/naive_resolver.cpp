// The naive resolver (paper 003 section 5, stage 1): each backpropagator calls the backpropagators
// of its operands directly, so a value used k times is resolved k times (2^n on a doubling chain).
#include <cmath>
#include <iomanip>
#include <optional>
#include <sstream>
#include <string>

#include "ad/dualrev/resolvers.h"
#include "ir/error.h"

namespace adlab::ad::dualrev::detail {

namespace {
// The budget is a declared limit of stage 1 only where the tape's paths exceed it; more calls
// than paths is a fault of this resolver, which must not read as a decline (decision 248).
[[noreturn]] void over_budget(const Tape& t, std::int64_t limit) {
  const double paths = naive_calls(t);
  std::ostringstream need;
  need << std::setprecision(paths < 1e15 ? 16 : 3) << paths;
  if (paths <= static_cast<double>(limit))
    throw Error("dualrev/naive: more than " + std::to_string(limit) +
                " backpropagator calls on a tape whose seeds reach its nodes by " + need.str() +
                " paths: a fault of the naive resolver, not its budget");
  throw CallLimitExceeded("dualrev/naive: more than " + std::to_string(limit) +
                          " backpropagator calls (its tape has " + need.str() +
                          " paths from the seeds, one call each;"
                          " stage 1 is exponential in sharing; use tape)");
}
}  // namespace

void resolve_naive(Tape& t, const ResolveOptions& o, ResolveStats& s, Visits* visits) {
  // An explicit stack of pending calls (id, argument): recursion would overflow on long chains.
  std::vector<std::pair<NodeId, double>> calls(t.seeds().rbegin(), t.seeds().rend());
  // a node of an abandoned fork's job is an error, as in the staged stages (decision 173);
  // stage 1 needs no order, so it only checks
  const RankedKeys ranked(t);
  std::optional<Received> received;
  if (o.count_ops) received.emplace(t);
  while (!calls.empty()) {
    const NodeId id = calls.back().first;
    const double d = calls.back().second;
    calls.pop_back();
    if (++s.nodes_resolved > o.call_limit) over_budget(t, o.call_limit);
    (void)ranked(id);
    Job& j = t.job(id.job_index());
    if (visits) ++(*visits)[id.job_index()][id.seq];
    bool leaf = true;
    j.nodes.for_each_edge(id.seq, [&](const Edge& e) {
      leaf = false;
      // d_i (d_i op (z)); a zero argument stays 0 whatever the partial (decision 236)
      calls.emplace_back(e.target, d == 0 ? 0.0 : d * e.partial);
      ++s.edges_processed;
      if (received) {
        s.muls += std::fabs(e.partial) != 1.0;
        // Every call on a node called before is the addition linear factoring makes of it
        // (stage 2), so naive counts every repeated call, not only those reaching an input: a
        // chain of unit partials resolved once per use (a prefix sum, n^2 / 2 calls) counted
        // as linear and passed the cheap-gradient bound (an audit helper; decision 232).
        s.adds += !received->first(e.target);
      }
    });
    if (leaf) j.adj[id.seq] += d;  // an input backpropagator: one-hot into the collector
  }
}

}  // namespace adlab::ad::dualrev::detail
