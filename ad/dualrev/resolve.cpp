// Tape::resolve: one reverse pass in the chosen stage, with the run-once instrumentation of the
// digest 003 section 8 harness (visits per node, edges processed, target <c source).
#include <algorithm>

#include "ad/dualrev/resolvers.h"
#include "ir/error.h"

namespace adlab::ad::dualrev {

namespace {

// Counts edges whose target is not <c their source (paper 003 section 12's compound-ID order):
// within a job the target must come earlier; across jobs the target's job must precede the
// source's in the job graph (forks: parent before both subtasks; joins: both subtasks' terminal
// jobs before the join job). Reachability is computed with bitsets, so only up to 4096 jobs.
std::int64_t order_violations(const Tape& t) {
  const std::size_t n = t.num_jobs();
  if (n > 4096) return 0;
  const std::size_t words = (n + 63) / 64;
  std::vector<std::uint64_t> before(n * words, 0);  // before[j]: the jobs strictly before j
  auto set_from = [&](std::size_t j, std::size_t p) {
    for (std::size_t w = 0; w < words; ++w) before[j * words + w] |= before[p * words + w];
    before[j * words + p / 64] |= std::uint64_t{1} << (p % 64);
  };
  auto start_of = [&](const Job* j) {
    while (j->history.is_fork()) j = j->history.prev;
    return j;
  };
  // Job IDs are a linear extension of the job order, so predecessors are complete in ID order.
  std::vector<const Job*> forked_by(n, nullptr);
  for (std::size_t k = 0; k < n; ++k) {
    const Job& j = t.job(static_cast<std::uint32_t>(k));
    if (j.history.is_fork()) {
      forked_by[job_index(start_of(j.history.left)->id)] = j.history.prev;
      forked_by[job_index(start_of(j.history.right)->id)] = j.history.prev;
    }
  }
  std::int64_t bad = 0;
  for (std::size_t k = 0; k < n; ++k) {
    const Job& j = t.job(static_cast<std::uint32_t>(k));
    if (j.history.is_fork()) {
      set_from(k, job_index(j.history.left->id));
      set_from(k, job_index(j.history.right->id));
      set_from(k, job_index(j.history.prev->id));
    } else if (forked_by[k]) {
      set_from(k, job_index(forked_by[k]->id));
    }
    for (std::size_t i = 0; i < j.nodes.size(); ++i)
      j.nodes.for_each_edge(i, [&](const Edge& e) {
        const std::uint32_t tk = e.target.job_index();
        bool ok = e.target.job == j.id ? e.target.seq < i
                                       : job_tag(e.target.job) == t.tag() && tk < n &&
                                             ((before[k * words + tk / 64] >> (tk % 64)) & 1);
        bad += !ok;
      });
  }
  return bad;
}

}  // namespace

ResolveStats Tape::resolve(Variant v, const ResolveOptions& o) {
  if (recording_) throw Error("dualrev: resolve while the tape is still recording");
  if (abandoned_) throw abandoned_recording();
  // Jobs are zeroed as they close; a second pass, or a recording abandoned by an exception (a
  // job never closed), zeroes them here.
  bool zeroed = adjoints_zeroed_;
  for (std::size_t k = 0; zeroed && k < live_jobs_; ++k)
    zeroed = jobs_[k]->adj.size() == jobs_[k]->nodes.size();
  if (!zeroed) detail::zero_adjoints(*this);
  adjoints_zeroed_ = false;
  ResolveStats s;
  detail::Visits visits;
  if (o.instrument) {
    visits.resize(live_jobs_);
    for (std::size_t k = 0; k < live_jobs_; ++k) visits[k].assign(jobs_[k]->nodes.size(), 0);
  }
  detail::Visits* vp = o.instrument ? &visits : nullptr;
  switch (v) {
    case Variant::Tape:
      detail::resolve_tape(*this, o, s, vp);
      break;
    case Variant::StagedMap:
      detail::resolve_staged_map(*this, o, s, vp);
      break;
    case Variant::Naive:
      detail::resolve_naive(*this, o, s, vp);
      break;
  }
  if (o.instrument) {
    for (const auto& job_visits : visits)
      for (auto c : job_visits) {
        s.nodes_visited += c > 0;
        s.nodes_revisited += c > 1;
      }
    s.order_violations = order_violations(*this);
  }
  return s;
}

}  // namespace adlab::ad::dualrev
