// Recording on the tape: jobs, the forward fork-join, seeds (paper 003 sections 9, 10.3, 12).
#include "ad/dualrev/tape.h"

#include "ad/dualrev/dual.h"

#include <algorithm>
#include <atomic>
#include <string>

#include "ir/error.h"

namespace adlab::ad::dualrev {

namespace detail {
void no_recording() {
  throw Error(
      "dualrev: an operation on a differentiated scalar while no tape records on this thread");
}
}  // namespace detail

namespace {
// The error for a scalar of another recording or tape (decision 146).
Error stale_scalar(NodeId id) {
  return Error("dualrev: a scalar that was not recorded by this recording (job " +
               std::to_string(job_index(id.job)) + " of recording tag " +
               std::to_string(job_tag(id.job) >> kJobIndexBits) + ", sequence " +
               std::to_string(id.seq) +
               "): it was kept from an earlier recording or taken from another tape");
}

// Doubles an array's capacity (at least `need`), keeping its first `used` entries.
template <class T>
void grow_array(std::unique_ptr<T[]>& a, std::size_t used, std::size_t& cap, std::size_t need) {
  std::size_t next = std::max<std::size_t>({1024, cap * 2, need});
  auto bigger = std::make_unique_for_overwrite<T[]>(next);
  std::copy(a.get(), a.get() + used, bigger.get());
  a = std::move(bigger);
  cap = next;
}
}  // namespace

void NodeStore::grow_ids() {
  // Sequence numbers with the top bit set name far targets (kFar).
  constexpr std::size_t kMaxIds = NodeStore::kFar - 16;
  if (n_ >= kMaxIds)
    throw Error("dualrev: a job recorded more than " + std::to_string(kMaxIds) +
                " operations (a sequence number has 31 bits)");
  grow_array(end_, n_, ncap_, std::min(kMaxIds, n_ + 1));
}

void NodeStore::grow_edges(std::size_t k) {
  constexpr std::size_t kMaxEdges = NodeStore::kChain - 16;  // the top bit of an end is kChain
  if (e_ + k > kMaxEdges)
    throw Error("dualrev: a job recorded more than " + std::to_string(kMaxEdges) +
                " contributions (edge offsets are 32 bits)");
  std::size_t cap = ecap_;
  grow_array(target_, e_, cap, e_ + k);
  grow_array(partial_, e_, ecap_, e_ + k);
}

std::uint32_t NodeStore::push_leaves(std::size_t n) {
  const auto first = static_cast<std::uint32_t>(n_);
  if (n == 0) return first;
  if (n_ + n > ncap_) {
    constexpr std::size_t kMaxIds = NodeStore::kFar - 16;
    if (n_ + n >= kMaxIds)
      throw Error("dualrev: a job recorded more than " + std::to_string(kMaxIds) +
                  " operations (a sequence number has 31 bits)");
    grow_array(end_, n_, ncap_, n_ + n);
  }
  std::fill(end_.get() + n_, end_.get() + n_ + n, static_cast<std::uint32_t>(e_));
  n_ += n;
  return first;
}

std::size_t NodeStore::edgeless_prefix() const {
  return static_cast<std::size_t>(
      std::partition_point(end_.get(), end_.get() + n_, [](std::uint32_t e) { return e == 0; }) -
      end_.get());
}

std::size_t NodeStore::num_edges() const {
  std::size_t chains = 0;
  for (std::size_t i = 0; i < n_; ++i) chains += has_chain(i);
  return e_ + chains;
}

std::uint32_t NodeStore::far_index(NodeId target) {
  // Jobs of one recording share a tag: another tag is a scalar kept from an earlier recording or
  // taken from another tape, whose index would name an unrelated node here (decision 146).
  if (job_tag(target.job) != job_tag(job_)) throw stale_scalar(target);
  // This job's ID past its last node: a scalar kept over exactly kJobTags recordings (the tag
  // wrapped); its sequence number would index past the job's adjoints (an audit finding).
  if (target.job == job_) throw stale_scalar(target);
  far_.push_back(target);
  return kFar | static_cast<std::uint32_t>(far_.size() - 1);
}

std::vector<Edge> NodeStore::edges_of(std::size_t i) const {
  std::vector<Edge> out;
  for_each_edge(i, [&](const Edge& e) { out.push_back(e); });
  return out;
}

const char* variant_name(Variant v) {
  switch (v) {
    case Variant::Tape:
      return "tape";
    case Variant::StagedMap:
      return "staged-map";
    case Variant::Naive:
      return "naive";
  }
  return "?";
}

Variant parse_variant(const std::string& s) {
  for (Variant v : {Variant::Tape, Variant::StagedMap, Variant::Naive})
    if (s == variant_name(v)) return v;
  throw Error("dualrev: unknown variant `" + s + "` (tape, staged-map, naive)");
}

ResolveStats& ResolveStats::operator+=(const ResolveStats& o) {
  nodes_resolved += o.nodes_resolved;
  edges_processed += o.edges_processed;
  map_ops += o.map_ops;
  adds += o.adds;
  muls += o.muls;
  nodes_visited += o.nodes_visited;
  nodes_revisited += o.nodes_revisited;
  order_violations += o.order_violations;
  jobs_off_thread += o.jobs_off_thread;
  return *this;
}

Tape::Tape(TapeOptions o) : options_(o) {
  if (o.threads == 0) throw Error("dualrev: a tape needs at least one thread");
  if (o.threads > 1) pool_ = std::make_unique<ThreadPool>(o.threads);
  thread_jobs_ = std::make_unique<ThreadJobs[]>(threads());
}

Tape::~Tape() {
  release_cursor();
}

void Tape::abandon() noexcept {
  release_cursor();
  recording_ = false;
  abandoned_ = true;
}

void Tape::release_cursor() noexcept {
  if (!recording_ || !tl_job) return;
  if (tl_job->tape == this) {
    tl_job = saved_cursor_;
    return;
  }
  // Another tape's recording, nested inside this one, is still open on this thread: splice this
  // tape out of the chain of saved cursors, so that the nested stop() restores what came before
  // this tape instead of a job of it, freed now (decision 149).
  for (Tape* t = tl_job->tape; t && t->recording_ && t->saved_cursor_;) {
    if (t->saved_cursor_->tape == this) {
      t->saved_cursor_ = saved_cursor_;
      return;
    }
    t = t->saved_cursor_->tape;
  }
}

std::uint32_t Tape::new_job_id() {
  std::lock_guard<SpinLock> lock(jobs_lock_);
  if (live_jobs_ >= kJobIndexMask)
    throw Error("dualrev: a recording made more than " + std::to_string(kJobIndexMask - 1) +
                " jobs (a job index has " + std::to_string(kJobIndexBits) + " bits)");
  jobs_.resize(live_jobs_ + 1, nullptr);
  return tag_ | static_cast<std::uint32_t>(live_jobs_++);
}

Job* Tape::bind_job(std::uint32_t id, std::uint32_t depth, History h) {
  Job* j = take_job(id, depth, h);
  std::lock_guard<SpinLock> lock(jobs_lock_);
  jobs_[job_index(id)] = j;
  return j;
}

Job* Tape::take_job(std::uint32_t id, std::uint32_t depth, History h) {
  const unsigned me = current_thread();
  ThreadJobs& mine = thread_jobs_[me];
  if (mine.used == mine.jobs.size()) mine.jobs.push_back(std::make_unique<Job>());
  Job* j = mine.jobs[mine.used++].get();
  j->tape = this;
  j->id = id;
  j->depth = depth;
  j->thread = me;
  j->factor_operands = options_.factor_operands;
  j->history = h;
  j->nodes.reset(id);  // keeps capacity: a second recording of the same size allocates nothing
  j->adj.clear();
  j->partial_ops = 0;
  return j;
}

void Tape::bind_if_unbound(std::uint32_t id, std::uint32_t depth) {
  bool unbound = false;
  {
    std::lock_guard<SpinLock> lock(jobs_lock_);
    unbound = jobs_[job_index(id)] == nullptr;
  }
  if (unbound) bind_job(id, depth, History{});
}

void Tape::start() {
  if (recording_) throw Error("dualrev: the tape is already recording");
  for (unsigned k = 0; k < threads(); ++k) thread_jobs_[k].used = 0;
  seeds_.clear();
  abandoned_ = false;
  saved_cursor_ = tl_job;
  // A fresh tag per recording, process-wide, so that tapes do not share one (decision 146).
  static std::atomic<std::uint32_t> next_tag{0};
  tag_ = (next_tag.fetch_add(1, std::memory_order_relaxed) % kJobTags) << kJobIndexBits;
  // The root job without the job table's lock: no other thread records before start returns
  // (decision 144).
  jobs_.assign(1, take_job(tag_, 0, History{}));
  live_jobs_ = 1;
  tl_job = jobs_[0];
  recording_ = true;
}

void Tape::stop() {
  if (!recording_) throw Error("dualrev: the tape is not recording");
  // Recordings on one thread nest: the innermost stops first (its cursor is this thread's).
  if (!tl_job || tl_job->tape != this)
    throw Error(
        "dualrev: stop() of a tape while another tape's recording, started after it on "
        "this thread, is still open: stop the inner one first");
  // Inside a fork side the fork is still running: its join would close a job of a stopped tape
  if (tl_job->depth != 0)
    throw Error("dualrev: stop() inside a side of a fork: stop the recording after the join");
  terminal_ = tl_job;
  close_job(*terminal_);
  tl_job = saved_cursor_;
  recording_ = false;
  adjoints_zeroed_ = true;
}

Error abandoned_recording() {
  return Error(
      "dualrev: the recording was abandoned (its scope ended while a recording of another tape, "
      "started inside it, was still open): record again");
}

NodeId Tape::new_leaf() {
  if (!recording_ || !tl_job || tl_job->tape != this)
    throw Error("dualrev: inputs are created while this tape records on this thread");
  return tl_job->push_leaf();
}

void close_job(Job& j) {
  j.adj.assign(j.nodes.size(), 0.0);
}

namespace {
// Runs `body` with this thread recording into `job`; returns the job it ended in (closed).
Job* run_in(Job* job, const std::function<void()>& body) {
  struct Restore {
    Job* saved;
    ~Restore() { tl_job = saved; }
  } restore{tl_job};
  tl_job = job;
  body();
  close_job(*tl_job);
  return tl_job;
}
}  // namespace

void Tape::fork(const std::function<void()>& f, const std::function<void()>& g) {
  Job* parent = tl_job;
  if (!recording_ || !parent || parent->tape != this)
    throw Error("dualrev: fork outside a recording of this tape");
  // Job IDs: both subtasks' first jobs now, the join job after both finished, so creation order
  // is a linear extension of the job order (the staged-map resolver relies on it). Each subtask's
  // job is bound by the thread that runs it (decision 123).
  close_job(*parent);
  const std::uint32_t depth = parent->depth + 1;
  const std::uint32_t a = new_job_id();
  const std::uint32_t b = new_job_id();
  Job* a_end = nullptr;
  Job* b_end = nullptr;
  std::function<void()> fa = [&] { a_end = run_in(bind_job(a, depth, History{}), f); };
  std::function<void()> fb = [&] { b_end = run_in(bind_job(b, depth, History{}), g); };
  try {
    if (pool_)
      pool_->fork_join(fa, fb);
    else {
      fa();
      fb();
    }
  } catch (...) {
    // The recording is abandoned; every ID handed out still names a job (check_id, num_nodes).
    bind_if_unbound(a, depth);
    bind_if_unbound(b, depth);
    throw;
  }
  // The parent task continues on this thread.
  tl_job = bind_job(new_job_id(), parent->depth, History{parent, a_end, b_end});
}

void Tape::check_id(NodeId id) const {
  if (job_tag(id.job) != tag_) throw stale_scalar(id);
  const Job* j = live_job(id.job);
  if (!j || id.seq >= j->nodes.size())
    throw Error("dualrev: a scalar that was not recorded on this tape (job " +
                std::to_string(job_index(id.job)) + ", sequence " + std::to_string(id.seq) + ")");
}

void Tape::seed(NodeId id, double cotangent) {
  if (recording_) throw Error("dualrev: seed while the tape is still recording (stop it first)");
  if (abandoned_) throw abandoned_recording();
  if (id.is_constant()) return;  // a constant output contributes nothing
  check_id(id);
  seeds_.emplace_back(id, cotangent);
}

double Tape::adjoint_slow(NodeId id) const {
  check_id(id);
  return 0.0;  // recorded, but no reverse pass has run since
}

std::int64_t Tape::num_nodes() const {
  std::int64_t n = 0;
  for (std::size_t k = 0; k < live_jobs_; ++k)
    n += static_cast<std::int64_t>(jobs_[k]->nodes.size());
  return n;
}

std::int64_t Tape::num_edges() const {
  std::int64_t n = 0;
  for (std::size_t k = 0; k < live_jobs_; ++k)
    n += static_cast<std::int64_t>(jobs_[k]->nodes.num_edges());  // constants are never recorded
  return n;
}

std::int64_t Tape::partial_ops() const {
  std::int64_t n = 0;
  for (std::size_t k = 0; k < live_jobs_; ++k) n += jobs_[k]->partial_ops;
  return n;
}

}  // namespace adlab::ad::dualrev
