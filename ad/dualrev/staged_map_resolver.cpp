// The staged resolver (paper 003 sections 6-8): calls to backpropagators are staged in a map keyed
// by ID and merged by adding their arguments (linear factoring); SResolve pops the highest ID.
#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <map>

#include "ad/dualrev/resolvers.h"

namespace adlab::ad::dualrev::detail {

namespace {

constexpr std::uint32_t kUnranked = std::numeric_limits<std::uint32_t>::max();

// A rank per job that the thread schedule does not change. Job indices do change with it (threads
// take them as they reach new_job_id), and the highest-first pass adds the contributions to a
// shared target in key order, so ranking by index made the sums' order, and their last bits,
// depend on the schedule (an audit finding; decision 183). The ranks number the job graph
// walked from the terminal job: a task's chain of jobs in order, and before each join job of the
// chain the left subtask, then the right one. A job comes after every job it can read (its
// task's earlier jobs, the fork point of its subtask, the subtasks a join joins), so the ranks
// are a linear extension of the job order, as highest-first needs. An abandoned fork's jobs hang
// under no join: unranked.
std::vector<std::uint32_t> schedule_free_ranks(const Tape& t, std::vector<std::uint32_t>& by_rank) {
  std::vector<std::uint32_t> rank(t.num_jobs(), kUnranked);
  by_rank.clear();
  if (!t.terminal()) return rank;
  // One frame per task being numbered (an explicit stack: fork nesting can be deep).
  struct Frame {
    std::vector<const Job*> chain;  // the task's jobs, start first
    std::size_t next = 0;           // the next job of `chain` to number
    int side = 0;                   // subtasks of chain[next] already pushed (0, 1 or 2)
  };
  auto frame_of = [](const Job* end) {
    Frame f;
    for (const Job* j = end; j; j = j->history.prev) f.chain.push_back(j);
    std::reverse(f.chain.begin(), f.chain.end());
    return f;
  };
  std::vector<Frame> stack;
  stack.push_back(frame_of(t.terminal()));
  while (!stack.empty()) {
    Frame& f = stack.back();
    if (f.next == f.chain.size()) {
      stack.pop_back();
      continue;
    }
    const Job* j = f.chain[f.next];
    if (j->history.is_fork() && f.side < 2) {  // the subtasks this join joins, left first
      const Job* sub = f.side++ == 0 ? j->history.left : j->history.right;
      stack.push_back(frame_of(sub));  // invalidates f
      continue;
    }
    rank[job_index(j->id)] = static_cast<std::uint32_t>(by_rank.size());
    by_rank.push_back(job_index(j->id));
    ++f.next;
    f.side = 0;
  }
  return rank;
}

}  // namespace

RankedKeys::RankedKeys(const Tape& t) : rank_(schedule_free_ranks(t, by_rank_)) {}

std::uint64_t RankedKeys::operator()(NodeId id) const {
  const std::uint32_t r = rank_[id.job_index()];
  if (r == kUnranked) throw abandoned_fork_scalar();
  return static_cast<std::uint64_t>(r) << 32 | id.seq;
}

double naive_calls(const Tape& t) {
  const RankedKeys key(t);
  std::map<std::uint64_t, double> paths;
  for (const auto& seed : t.seeds()) paths[key(seed.first)] += 1;  // one call per seed
  double calls = 0;
  while (!paths.empty()) {
    auto top = std::prev(paths.end());
    const double p = top->second;
    const std::uint64_t k = top->first;
    paths.erase(top);
    calls += p;
    t.job(key.job(k)).nodes.for_each_edge(RankedKeys::seq(k), [&](const Edge& e) {
      paths[key(e.target)] += p;
    });
  }
  return calls;
}

void resolve_staged_map(Tape& t, const ResolveOptions& o, ResolveStats& s, Visits* visits) {
  const RankedKeys key(t);
  // Stage 4's sparse collector and staging map are one ordered map here: the collector's entries
  // are the arguments accumulated at input IDs (paper 003 section 10.1).
  std::map<std::uint64_t, double> staged;
  for (const auto& [id, v] : t.seeds()) {
    auto [it, fresh] = staged.try_emplace(key(id), 0.0);
    it->second += v;  // SCall of the output backpropagator (Deinterleave)
    ++s.map_ops;
    if (o.count_ops && !fresh) ++s.adds;
  }
  while (!staged.empty()) {
    auto top = std::prev(staged.end());  // highest key: every stager of it is resolved already
    const std::uint32_t job = key.job(top->first);
    const std::uint32_t seq = RankedKeys::seq(top->first);
    const double a = top->second;
    staged.erase(top);
    ++s.map_ops;
    Job& j = t.job(job);
    j.adj[seq] = a;
    ++s.nodes_resolved;
    if (visits) ++(*visits)[job][seq];
    j.nodes.for_each_edge(seq, [&](const Edge& e) {
      auto [it, fresh] = staged.try_emplace(key(e.target), 0.0);
      // insert, or add to the staged argument; a zero adjoint contributes 0 whatever the
      // partial (an unused exp(1000 x) has partial inf: decision 236, as the tape's sweep)
      it->second += a == 0 ? 0.0 : a * e.partial;
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
