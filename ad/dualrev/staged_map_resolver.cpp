// The staged resolver (paper 003 sections 6-8): calls to backpropagators are staged in a map keyed
// by ID and merged by adding their arguments (linear factoring); SResolve pops the highest ID.
#include <cmath>
#include <iterator>
#include <map>

#include "ad/dualrev/resolvers.h"

namespace adlab::ad::dualrev::detail {

void resolve_staged_map(Tape& t, const ResolveOptions& o, ResolveStats& s, Visits* visits) {
  // Stage 4's sparse collector and staging map are one ordered map here: the collector's entries
  // are the arguments accumulated at input IDs (paper 003 section 10.1).
  std::map<std::uint64_t, double> staged;
  for (const auto& [id, v] : t.seeds()) {
    auto [it, fresh] = staged.try_emplace(id.key(), 0.0);
    it->second += v;  // SCall of the output backpropagator (Deinterleave)
    ++s.map_ops;
    if (o.count_ops && !fresh) ++s.adds;
  }
  while (!staged.empty()) {
    auto top = std::prev(staged.end());  // highest ID: every stager of it is resolved already
    NodeId id{static_cast<std::uint32_t>(top->first >> 32),
              static_cast<std::uint32_t>(top->first & 0xffffffffu)};
    const double a = top->second;
    staged.erase(top);
    ++s.map_ops;
    Job& j = t.job(id.job_index());
    j.adj[id.seq] = a;
    ++s.nodes_resolved;
    if (visits) ++(*visits)[id.job_index()][id.seq];
    j.nodes.for_each_edge(id.seq, [&](const Edge& e) {
      auto [it, fresh] = staged.try_emplace(e.target.key(), 0.0);
      it->second += a * e.partial;  // insert, or add to the staged argument
      ++s.map_ops;
      ++s.edges_processed;
      if (o.count_ops) {
        s.adds += !fresh;
        s.muls += std::fabs(e.partial) != 1.0;
      }
    });
  }
}

}  // namespace adlab::ad::dualrev::detail
