// The array resolver with the parallel reverse pass (paper 003 sections 9, 10.1-10.3 and 12,
// Fig. 15): the job graph is walked from the terminal job; "SResolve forks where the primal joined
// and joins where the primal forked".
#include <cmath>

#include "ad/dualrev/resolvers.h"
#include "ad/dualrev/sweep.h"
#include "ir/error.h"

namespace adlab::ad::dualrev::detail {

namespace {

// A contribution to a job of an enclosing task, held back until the dual join.
struct Far {
  NodeId target;
  double value;
};
using Outbox = std::vector<Far>;

// Determinism: a contribution whose target job lies in the task being resolved (or in a task
// nested in it) is added at once; only this thread can touch those jobs now. A contribution to a
// shallower job (an enclosing task, which sibling subtasks may also reach) goes into the subtask's
// outbox; at the dual join the left outbox is applied before the right one, in recorded order. So
// every adjoint receives its terms in one fixed order whatever the number of threads, and 1, 2
// and 4 threads give the same bits (the 1-thread run uses the same outboxes).
class TapeResolver {
 public:
  TapeResolver(Tape& t, Visits* visits)
      : tape_(t),
        visits_(visits),
        edges_done_(t.num_jobs(), 0),
        off_thread_(t.num_jobs(), 0),
        task_(t.num_jobs(), 0),
        parent_task_(t.num_jobs(), kNoTask),
        resolved_(t.num_jobs(), 0) {
    // The task tree (decision 148): a task is named by its first job; a join job continues its
    // parent's task, and the subtasks it joins are children of that task. Job indices are a
    // linear extension of the job order, so a join's subtasks are numbered before it.
    for (std::size_t k = 0; k < t.num_jobs(); ++k) {
      Job& j = t.job(static_cast<std::uint32_t>(k));
      adj_.push_back(j.adj.data());
      depth_.push_back(j.depth);
      if (!j.history.is_fork()) {
        task_[k] = static_cast<std::uint32_t>(k);
        continue;
      }
      const std::uint32_t parent = task_[job_index(j.history.prev->id)];
      task_[k] = parent;
      parent_task_[task_[job_index(j.history.left->id)]] = parent;
      parent_task_[task_[job_index(j.history.right->id)]] = parent;
    }
  }

  void run() {
    if (tape_.terminal()) resolve_task(tape_.terminal(), nullptr);
  }
  // A seed on a scalar of an abandoned fork's side: its task hangs under no join, so the walk
  // from the terminal job never reaches it (the gradient read 0; an audit finding).
  void check_reachable(NodeId id) const {
    for (std::uint32_t t = task_[id.job_index()]; depth_[t] > 0;) {
      t = parent_task_[t];
      if (t == kNoTask) throw abandoned_fork_scalar();
    }
  }
  std::int64_t edges_done() const {
    std::int64_t n = 0;
    for (auto e : edges_done_) n += e;
    return n;
  }
  std::int64_t jobs_off_thread() const {
    std::int64_t n = 0;
    for (auto e : off_thread_) n += e;
    return n;
  }

 private:
  // A contribution to another job is added at once only when that job lies in `task` (the task
  // being resolved at `depth`) or in a task nested in it: only this thread reaches those jobs
  // now. Anything else goes up through the outbox (decision 148; comparing depths alone let two
  // sibling subtasks add into a job of an earlier subtask at once, a race).
  void far(NodeId target, double v, std::uint32_t task, std::uint32_t depth, Outbox* out) {
    const std::uint32_t k = target.job_index();
    std::uint32_t t = task_[k];
    while (depth_[t] > depth) {
      t = parent_task_[t];
      if (t == kNoTask) [[unlikely]]
        throw abandoned_fork_scalar();
    }
    if (t != task) {
      out->push_back(Far{target, v});  // depth > 0 here, so an enclosing task gave an outbox
      return;
    }
    // The job order puts every target before its user, so it is still unresolved; a resolved
    // one was reached from the other side of a fork (paper 003's |*| keeps the sides apart).
    if (resolved_[k]) [[unlikely]]
      throw Error(
          "dualrev: a scalar made in one side of a fork was used in the other side; the sides "
          "must not exchange scalars (pass it out through the join)");
    adj_[k][target.seq] += v;
  }

  // resolveJob: sequence numbers descending, each node's contributions applied once.
  void resolve_job(Job& j, Outbox* out) {
    const NodeStore& ns = j.nodes;
    const std::uint32_t depth = j.depth;
    const std::uint32_t task = task_[job_index(j.id)];
    sweep_nodes<1>(ns, j.adj.data(), 0,
                   [&](std::uint32_t t, double v) { far(ns.far(t), v, task, depth, out); });
    resolved_[job_index(j.id)] = 1;
    if (visits_) {
      auto& v = (*visits_)[job_index(j.id)];
      for (std::size_t i = 0; i < ns.size(); ++i) ++v[i];
      edges_done_[job_index(j.id)] += static_cast<std::int64_t>(ns.num_edges());
      const ThreadPool* pool = tape_.pool();
      off_thread_[job_index(j.id)] = (pool ? pool->current_thread() : 0) != j.thread;
    }
  }

  // resolveTask: the task's jobs from its terminal job back to its start; at each primal join
  // the two subtasks are resolved in parallel (a dual fork), then merged (a dual join).
  void resolve_task(Job* j, Outbox* out) {
    for (;;) {
      resolve_job(*j, out);
      if (!j->history.is_fork()) return;
      Outbox left, right;
      Job* l = j->history.left;
      Job* r = j->history.right;
      if (ThreadPool* pool = tape_.pool())
        // Each subtask on the thread that recorded it (decision 122).
        pool->fork_join_on([&] { resolve_task(l, &left); }, l->thread,
                           [&] { resolve_task(r, &right); }, r->thread);
      else {
        resolve_task(l, &left);
        resolve_task(r, &right);
      }
      const std::uint32_t task = task_[job_index(j->id)];  // the join continues prev's task
      for (const Outbox* box : {&left, &right})
        for (const Far& f : *box) far(f.target, f.value, task, j->depth, out);
      j = j->history.prev;
    }
  }

  Tape& tape_;
  Visits* visits_;
  std::vector<double*> adj_;
  std::vector<std::uint32_t> depth_;
  std::vector<std::int64_t> edges_done_;  // per job, written only by the thread resolving it
  std::vector<std::int64_t> off_thread_;  // per job, likewise: resolved off its recording thread
  static constexpr std::uint32_t kNoTask = 0xffffffffu;
  std::vector<std::uint32_t> task_;         // per job: its task's first job
  std::vector<std::uint32_t> parent_task_;  // per task's first job: the enclosing task
  std::vector<char> resolved_;              // per job, written by the thread resolving it
};

// The sequential case (paper 003 section 10.3: "SResolve then just loops the array backwards").
void resolve_single_job(Job& j) {
  // Nodes below the edgeless prefix have no edges (the inputs, typically): nothing to visit.
  sweep_nodes<1>(j.nodes, j.adj.data(), j.nodes.edgeless_prefix());
}

// SAlloc: each job's staged cotangents, zeroed. With a pool the job graph is walked as the reverse
// pass walks it, subtasks in parallel: done serially it was the largest serial part of the
// particles benchmark (decision 118).
std::size_t zero_task(Tape& t, Job* j) {
  std::size_t jobs = 0;
  for (;;) {
    j->adj.assign(j->nodes.size(), 0.0);
    ++jobs;
    if (!j->history.is_fork()) return jobs;
    Job* l = j->history.left;
    Job* r = j->history.right;
    std::size_t left = 0, right = 0;
    t.pool()->fork_join_on([&] { left = zero_task(t, l); }, l->thread,
                           [&] { right = zero_task(t, r); }, r->thread);
    jobs += left + right;
    j = j->history.prev;
  }
}

}  // namespace

void zero_adjoints(Tape& t) {
  // Every job lies on the walk from the terminal job, unless a recording was abandoned mid-fork.
  if (t.pool() && t.num_jobs() > 1 && t.terminal() && zero_task(t, t.terminal()) == t.num_jobs())
    return;
  for (std::size_t k = 0; k < t.num_jobs(); ++k) {
    Job& j = t.job(static_cast<std::uint32_t>(k));
    j.adj.assign(j.nodes.size(), 0.0);
  }
}

Error abandoned_fork_scalar() {
  return Error(
      "dualrev: a scalar made inside a fork whose recording was abandoned (a side threw) was "
      "used after it: it has no place in the job graph");
}

void resolve_tape(Tape& t, const ResolveOptions& o, ResolveStats& s, Visits* visits) {
  if (t.num_jobs() == 1 && !visits) {
    for (const auto& [id, v] : t.seeds()) t.job(0).adj[id.seq] += v;
    resolve_single_job(t.job(0));  // no forks: no job graph to walk
  } else {
    TapeResolver r(t, visits);
    for (const auto& [id, v] : t.seeds()) r.check_reachable(id);
    for (const auto& [id, v] : t.seeds()) t.job(id.job_index()).adj[id.seq] += v;
    r.run();
    if (visits) {
      s.edges_processed += r.edges_done();
      s.jobs_off_thread += r.jobs_off_thread();
    }
  }
  s.nodes_resolved += t.num_nodes();
  if (o.count_ops) {
    // Every recorded contribution was applied once: count them from the tape.
    Received received(t);
    std::int64_t edges = 0;
    for (std::size_t k = 0; k < t.num_jobs(); ++k) {
      const NodeStore& ns = t.job(static_cast<std::uint32_t>(k)).nodes;
      for (std::size_t i = 0; i < ns.size(); ++i)
        ns.for_each_edge(i, [&](const Edge& edge) {
          ++edges;
          s.muls += std::fabs(edge.partial) != 1.0;
          s.adds += !received.first(edge.target);
        });
    }
    if (!visits) s.edges_processed += edges;
  }
}

}  // namespace adlab::ad::dualrev::detail
