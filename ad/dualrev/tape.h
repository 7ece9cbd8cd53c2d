// The tape of dual-numbers reverse mode (paper 003 sections 9, 10.2-10.3 and 12): jobs of
// recorded nodes named by compound IDs, the fork-join job graph, and the thread's recording cursor.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <utility>
#include <vector>

#include "ad/dualrev/thread_pool.h"
#include "ir/error.h"

namespace adlab::ad::dualrev {

// The job of a constant: a scalar that is no node (paper 003 section 10's "sentinel" for `r`).
inline constexpr std::uint32_t kConstantJob = 0xffffffffu;

// A job ID is the recording's tag (top 8 bits) and the job's index in the recording (decision
// 146): a scalar kept from an earlier recording, or from another tape, carries another tag, so
// using it is an error instead of an edge to whatever node now has its index. Tags run through
// 0..254 process-wide, so only a scalar 255 recordings old can pass unnoticed.
inline constexpr unsigned kJobIndexBits = 24;
inline constexpr std::uint32_t kJobIndexMask = (1u << kJobIndexBits) - 1;
inline constexpr std::uint32_t kJobTags = 255;  // tag 255 with index 2^24 - 1 is kConstantJob
inline constexpr std::uint32_t job_index(std::uint32_t job) {
  return job & kJobIndexMask;
}
inline constexpr std::uint32_t job_tag(std::uint32_t job) {
  return job & ~kJobIndexMask;
}

// A compound ID (paper 003 section 12): a job and a sequence number within it.
struct NodeId {
  std::uint32_t job = kConstantJob;
  std::uint32_t seq = 0;
  bool is_constant() const { return job == kConstantJob; }
  std::uint32_t job_index() const { return dualrev::job_index(job); }
  // Lexicographic key; job IDs are allocated in a linear extension of the job order, so the key
  // order extends the compound-ID order <=c (the staged-map resolver pops the highest key).
  std::uint64_t key() const { return (std::uint64_t{job} << 32) | seq; }
  friend bool operator==(NodeId, NodeId) = default;
};

// One defunctionalised contribution (paper 003 section 10.2): cotangent * partial to target.
struct Edge {
  NodeId target;
  double partial = 0;
};

// The nodes of one job in compact arrays (paper 003 section 10.3's tape; decision 115). Node i's
// contributions are the edges [end[i - 1], end[i]) of two parallel arrays: the target, as its
// sequence number when it lies in this job or as kFar | an index into `far` otherwise (rare: only
// across forks and joins), and the partial. A node may have any number of edges (a statement's
// preaccumulated contributions, `Lin` in dual.h); an input leaf has none and costs 4 bytes.
// A node whose end offset carries kChain has one more edge, stored nowhere: target the node just
// before it, partial 1 (an accumulation `s += ...` whose s is the previous node; decision 132).
// Appends are bumps of indices; growth is out of line and keeps the old contents.
class NodeStore {
 public:
  static constexpr std::uint32_t kFar = 0x80000000u;
  static constexpr std::uint32_t kChain = 0x80000000u;  // in an end offset: the implicit edge

  std::size_t size() const { return n_; }  // IDs recorded: nodes and leaves
  std::size_t num_edges() const;           // implicit edges included (counted: O(size()))
  void reset(std::uint32_t job) {          // keeps the memory for the next recording
    job_ = job;
    n_ = 0;
    e_ = 0;
    far_.clear();
  }

  // A node without contributions: an input (paper 003 Interleave).
  [[gnu::always_inline]] std::uint32_t push_leaf() { return end_node(); }
  // n leaves with consecutive sequence numbers (the first is returned): one bound check.
  std::uint32_t push_leaves(std::size_t n);
  // Makes room for a node of up to k edges; then the node's edges are written at edge_targets()
  // and edge_partials() (target(id) encodes a target) and end_node(count) appends the node. The
  // write position stays in registers: a member incremented per edge was a store-to-load chain.
  [[gnu::always_inline]] void reserve_edges(std::size_t k) {
    if (e_ + k > ecap_) [[unlikely]]
      grow_edges(k);
  }
  std::uint32_t* edge_targets() { return target_.get() + e_; }
  double* edge_partials() { return partial_.get() + e_; }
  [[gnu::always_inline]] std::uint32_t target(NodeId t) {
    return t.job == job_ && t.seq < n_ ? t.seq : far_index(t);
  }
  // True when id is the last node of this job: a term of partial 1 to it can be a chain edge.
  [[gnu::always_inline]] bool is_tail(NodeId id) const {
    return id.job == job_ && std::size_t{id.seq} + 1 == n_;
  }
  [[gnu::always_inline]] std::uint32_t end_node(std::size_t edges = 0) {
    return end_node_masked(edges, 0);
  }
  // chain = kChain: the node has the implicit edge (target: the previous node, partial 1) before
  // its `edges` stored ones; 0: none.
  [[gnu::always_inline]] std::uint32_t end_node_masked(std::size_t edges, std::uint32_t chain) {
    if (n_ == ncap_) [[unlikely]]
      grow_ids();
    e_ += edges;
    end_[n_] = static_cast<std::uint32_t>(e_) | chain;
    return static_cast<std::uint32_t>(n_++);
  }

  // Reading: node i's stored edges are [first_edge(i), end_edge(i)); has_chain(i) adds the
  // implicit one, which for_each_edge yields first.
  std::uint32_t first_edge(std::size_t i) const { return i == 0 ? 0 : end_[i - 1] & ~kChain; }
  std::uint32_t end_edge(std::size_t i) const { return end_[i] & ~kChain; }
  bool has_chain(std::size_t i) const { return (end_[i] & kChain) != 0; }
  // How many nodes at the start have no edges at all (typically the inputs): a chained node
  // stores at least one edge, so these are the nodes whose end offset is 0. Binary search.
  std::size_t edgeless_prefix() const;
  Edge edge_at(std::uint32_t k) const {
    const std::uint32_t t = target_[k];
    return Edge{t & kFar ? far_[t & ~kFar] : NodeId{job_, t}, partial_[k]};
  }
  template <class F>
  void for_each_edge(std::size_t i, F&& f) const {
    if (has_chain(i)) f(Edge{NodeId{job_, static_cast<std::uint32_t>(i - 1)}, 1.0});
    for (std::uint32_t k = first_edge(i), e = end_edge(i); k < e; ++k) f(edge_at(k));
  }
  std::vector<Edge> edges_of(std::size_t i) const;  // for tests and reports

  // The raw arrays, for the tape resolver's inner loop (end offsets carry kChain).
  const std::uint32_t* ends() const { return end_.get(); }
  const std::uint32_t* targets() const { return target_.get(); }
  const double* partials() const { return partial_.get(); }
  const NodeId& far(std::uint32_t t) const { return far_[t & ~kFar]; }

 private:
  // Rare, so out of the hot path; throws for a target of another recording (decision 146).
  [[gnu::noinline]] std::uint32_t far_index(NodeId target);
  void grow_ids();
  void grow_edges(std::size_t k);

  std::uint32_t job_ = 0;
  std::unique_ptr<std::uint32_t[]> end_;
  std::unique_ptr<std::uint32_t[]> target_;
  std::unique_ptr<double[]> partial_;
  std::vector<NodeId> far_;
  std::size_t n_ = 0, ncap_ = 0, e_ = 0, ecap_ = 0;
};

class Tape;
class Job;

// What came before a job within its task (paper 003 section 12, BeforeJob): Start (prev null),
// or a fork of `prev` into two subtasks that ended in `left` and `right` and joined here.
struct History {
  Job* prev = nullptr;
  Job* left = nullptr;
  Job* right = nullptr;
  bool is_fork() const { return prev != nullptr; }
};

// A maximal sequential stretch of a task: one tape segment (paper 003 section 12).
// Aligned to 128 bytes: sibling jobs are written by different threads on every push (their
// sizes), and adjacent allocations would share a cache line pair.
class alignas(128) Job {
 public:
  Tape* tape = nullptr;
  std::uint32_t id = 0;
  std::uint32_t depth = 0;  // fork nesting depth of the job's task (the root task has 0)
  // The pool thread that recorded the job (ThreadPool::current_thread; all jobs of a task have
  // the same): the reverse pass resolves the job there, where its arrays are cached (decision 122).
  std::uint32_t thread = 0;
  bool factor_operands = true;  // TapeOptions::factor_operands
  History history;
  NodeStore nodes;               // sequence number = index (the ID monad's counter n_alpha)
  std::vector<double> adj;       // staged cotangents, sized n_alpha before a reverse pass (SAlloc)
  std::int64_t partial_ops = 0;  // floating operations spent computing partials (cost model)

  [[gnu::always_inline]] NodeId push_leaf() { return NodeId{id, nodes.push_leaf()}; }
};

// Ends recording into `j`: sizes and zeroes its staged cotangents (SAlloc) on the thread that
// recorded it, in parallel with the other jobs and into that thread's cache (decision 125).
void close_job(Job& j);
// The error of a seed or resolve after Tape::abandon().
Error abandoned_recording();

// The job this thread records into (the paper's reader context plus the ID state).
inline constinit thread_local Job* tl_job = nullptr;

struct TapeOptions {
  unsigned threads = 1;  // threads of the fork-join pool (forward and reverse); 1: no pool
  // Merge the two contributions of an operation whose operands are one node (x + x, x * x) into
  // one edge: linear factoring at record time. Off for stage 1 (naive), whose point is that each
  // use of a shared value is resolved on its own.
  bool factor_operands = true;
};

enum class Variant { Tape, StagedMap, Naive };
const char* variant_name(Variant v);
Variant parse_variant(const std::string& s);  // "tape", "staged-map", "naive"; throws adlab::Error

// The naive resolver gave up at ResolveOptions::call_limit: stage 1 is exponential in sharing,
// a limit of the variant, not a fault of the program (the IR engine reports it as Unsupported).
class CallLimitExceeded : public Error {
 public:
  using Error::Error;
};

struct ResolveOptions {
  bool instrument = false;              // count visits per node and check the job order
  bool count_ops = false;               // fill ResolveStats::adds and muls
  std::int64_t call_limit = 1LL << 34;  // naive: backpropagator calls before giving up
};

// What one reverse pass did (DESIGN 4.3 counts; the run-once invariant with `instrument`).
struct ResolveStats {
  std::int64_t nodes_resolved = 0;   // node visits (tape, staged-map) or backpropagator calls
  std::int64_t edges_processed = 0;  // contributions applied
  std::int64_t map_ops = 0;          // staged-map: map insertions, updates and extractions
  std::int64_t adds = 0, muls = 0;   // floating operations (a multiplication by +-1 is free)
  // instrument: nodes visited at least once, and nodes visited more than once.
  std::int64_t nodes_visited = 0, nodes_revisited = 0;
  std::int64_t order_violations = 0;  // instrument: edges whose target is not <c their source
  // instrument, tape variant: jobs resolved on another thread than the one that recorded them
  // (decision 122: the reverse pass resolves each job where its arrays are cached).
  std::int64_t jobs_off_thread = 0;
  ResolveStats& operator+=(const ResolveStats& o);
};

// A recording of one run and its reverse passes. Not thread-safe as a whole: one thread records
// (forks spread the recording over the pool), and reverse passes run after recording stopped.
class Tape {
 public:
  explicit Tape(TapeOptions o = {});
  ~Tape();
  Tape(const Tape&) = delete;
  Tape& operator=(const Tape&) = delete;

  // Clears the tape (keeping its memory), opens the root job and records this thread into it.
  void start();
  // Ends recording: the job this thread is in is the root task's terminal job.
  void stop();
  // Ends recording without a terminal job, and never throws (a Recording leaving its scope when
  // stop() cannot end it): seed and resolve are errors until the next start().
  void abandon() noexcept;
  bool recording() const { return recording_; }

  // A new leaf node (an input) in the job this thread records into.
  NodeId new_leaf();

  // Forward fork-join (paper 003 section 12, the (*') of Fig. 14): runs f and g as two subtasks
  // in fresh jobs, possibly in parallel, and continues this thread in a fresh join job.
  void fork(const std::function<void()>& f, const std::function<void()>& g);

  // Cotangents of outputs for the next reverse pass (Deinterleave); constants are ignored.
  void clear_seeds() { seeds_.clear(); }
  void seed(NodeId id, double cotangent);
  // One reverse pass from zero adjoints and the seeds (paper 003 SResolve; variant: the stage).
  ResolveStats resolve(Variant v = Variant::Tape, const ResolveOptions& o = {});
  // The Jacobian of outputs with respect to inputs, row-major (rows[k * inputs.size() + i] =
  // d outputs[k] / d inputs[i]): the tape variant's passes for all outputs in one sweep, up to 8
  // lanes at a time (vector mode; lane_resolver.cpp). Constants give zero rows and columns.
  // Seeds and adjoint() are not meaningful afterwards.
  void jacobian_rows(std::span<const NodeId> outputs, std::span<const NodeId> inputs, double* rows);
  // The accumulated cotangent of a node after resolve (for naive: leaves only); 0 for constants.
  double adjoint(NodeId id) const {
    if (id.is_constant()) return 0;
    const Job* j = live_job(id.job);
    if (!j || id.seq >= j->adj.size()) [[unlikely]]
      return adjoint_slow(id);
    return j->adj[id.seq];
  }
  // The job of this recording with ID `job`; null for a job of another recording or tape.
  const Job* live_job(std::uint32_t job) const {
    const std::uint32_t k = job_index(job);
    return job_tag(job) == tag_ && k < live_jobs_ ? jobs_[k] : nullptr;
  }

  std::size_t num_jobs() const { return live_jobs_; }
  std::int64_t num_nodes() const;
  std::int64_t num_edges() const;  // contributions recorded (non-constant targets)
  std::int64_t partial_ops() const;
  // The job with index k in this recording (job_index of a job ID; tests and resolvers).
  Job& job(std::uint32_t k) const { return *jobs_[k]; }
  std::uint32_t tag() const { return tag_; }  // this recording's tag, in place (job_tag)
  Job* terminal() const { return terminal_; }
  ThreadPool* pool() const { return pool_.get(); }
  const TapeOptions& options() const { return options_; }
  unsigned threads() const { return pool_ ? pool_->threads() : 1; }
  const std::vector<std::pair<NodeId, double>>& seeds() const { return seeds_; }

 private:
  // The Job objects of one pool thread, kept between recordings with their arrays (decision
  // 301): a thread records into memory it wrote last time, never into a line another core holds.
  // Only that thread takes from it while recording. Padded: two threads' counters, one line each.
  struct alignas(64) ThreadJobs {
    std::vector<std::unique_ptr<Job>> jobs;
    std::size_t used = 0;
  };

  // A job ID (tag_ | index), in creation order; the job is bound later by the thread that
  // records it.
  std::uint32_t new_job_id();
  // Binds `id` to one of this thread's Job objects, cleared (keeping its memory).
  Job* bind_job(std::uint32_t id, std::uint32_t depth, History h);
  // One of this thread's Job objects, cleared for `id` (bind_job then enters it in the table).
  Job* take_job(std::uint32_t id, std::uint32_t depth, History h);
  void bind_if_unbound(std::uint32_t id, std::uint32_t depth);  // after an abandoned fork
  // Gives this thread's cursor back to what came before this tape's recording (never throws).
  void release_cursor() noexcept;
  unsigned current_thread() const { return pool_ ? pool_->current_thread() : 0; }
  double adjoint_slow(NodeId id) const;
  void check_id(NodeId id) const;

  TapeOptions options_;
  std::unique_ptr<ThreadPool> pool_;
  std::unique_ptr<ThreadJobs[]> thread_jobs_;  // per pool thread index
  std::vector<Job*> jobs_;                     // by job ID: [0, live_jobs_) this recording's
  std::size_t live_jobs_ = 0;
  std::uint32_t tag_ = 0;  // this recording's, in place: job_tag of its job IDs
  SpinLock jobs_lock_;     // guards jobs_ and live_jobs_ while recording
  Job* terminal_ = nullptr;
  Job* saved_cursor_ = nullptr;  // the thread's cursor before start()
  bool recording_ = false;
  bool abandoned_ = false;
  bool adjoints_zeroed_ = false;  // since stop(): no reverse pass has written the adjoints
  std::vector<std::pair<NodeId, double>> seeds_;
  std::vector<double> lane_adj_;  // jacobian_rows: node i's lane k at i * lanes + k
};

// RAII recording: start() now, stop() at scope exit.
class Recording {
 public:
  explicit Recording(Tape& t) : tape_(t) { tape_.start(); }
  // A destructor must not throw (it may run while an exception unwinds): where stop() refuses,
  // the recording is abandoned and a later seed or resolve says so.
  ~Recording() {
    if (!tape_.recording()) return;
    try {
      tape_.stop();
    } catch (const Error&) {
      tape_.abandon();
    }
  }
  Recording(const Recording&) = delete;
  Recording& operator=(const Recording&) = delete;

 private:
  Tape& tape_;
};

}  // namespace adlab::ad::dualrev
