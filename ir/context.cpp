// Hash-consing of IR nodes and the source-position side table (DESIGN 2.4).
#include "ir/context.h"

#include <algorithm>
#include <bit>
#include <cstring>

namespace adlab::ir {

namespace {
std::size_t mix(std::size_t h, std::size_t v) {
  return h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
}
thread_local Context* tls_current = nullptr;
// The start of the function whose occurrences are preferred (FunctionPositions); null: none.
// A pointer, not a copy: the interpreter opens a scope for every call it runs.
thread_local const SourcePos* tls_function_start = nullptr;

bool before(const SourcePos& a, const SourcePos& b) {
  return a.line < b.line || (a.line == b.line && a.col < b.col);
}
// The index in `list` of the occurrence to cite among those of parse `source` (any when 0):
// inside a FunctionPositions scope the earliest at or after the function's start in the
// function's own parse (in that function when it spells the node), else the same in another
// parse of the same file (each suite entry parses its file anew; a derived node may carry the
// first parse's positions only), else the earliest in that file, and none (list.size()) when
// the file has no occurrence: a node shared with another file's program must not cite that
// file (decision 245); outside a scope the first.
std::size_t cited(const std::vector<SourcePos>& list, std::uint32_t source) {
  const std::size_t none = list.size();
  std::size_t first = none, own_after = none, file_after = none, file_any = none;
  const SourcePos* start = tls_function_start;
  auto earliest = [&](std::size_t& slot, std::size_t k) {
    if (slot == none || before(list[k], list[slot])) slot = k;
  };
  for (std::size_t k = 0; k < list.size(); ++k) {
    const SourcePos& p = list[k];
    if (source != 0 && p.source != source) continue;
    if (first == none) first = k;
    if (!start || p.file != start->file) continue;
    earliest(file_any, k);
    if (before(p, *start)) continue;
    earliest(file_after, k);
    if (p.source == start->source) earliest(own_after, k);
  }
  if (!start) return first;
  return own_after != none ? own_after : file_after != none ? file_after : file_any;
}
}  // namespace

void NodeKey::add(const std::vector<Expr>& es) {
  ints.push_back(static_cast<std::int64_t>(es.size()));
  for (auto e : es) add(e);
}

void NodeKey::add(const Domain& d) {
  add(d.vars);
  add(d.bounds);
  add(d.source);
  add(d.prefix);
}

bool NodeKey::operator==(const NodeKey& o) const {
  return kind == o.kind && flexible == o.flexible && children == o.children && ints == o.ints &&
         std::bit_cast<std::uint64_t>(num) == std::bit_cast<std::uint64_t>(o.num) && str == o.str &&
         ptr == o.ptr && type == o.type;
}

std::size_t NodeKey::hash() const {
  std::size_t h = static_cast<std::size_t>(kind);
  h = mix(h, type.hash());
  for (auto* c : children) h = mix(h, std::hash<const void*>()(c));
  for (auto i : ints) h = mix(h, std::hash<std::int64_t>()(i));
  h = mix(h, std::hash<std::uint64_t>()(std::bit_cast<std::uint64_t>(num)));
  h = mix(h, std::hash<std::string>()(str));
  h = mix(h, std::hash<const void*>()(ptr));
  return mix(h, flexible);
}

Context& Context::current() {
  static Context global;
  return tls_current ? *tls_current : global;
}

Expr Context::intern(NodeKey key, const std::function<std::unique_ptr<ExprNode>()>& construct) {
  std::lock_guard lock(mutex_);
  auto it = table_.find(key);
  if (it != table_.end()) return Expr(it->second);
  std::unique_ptr<ExprNode> node = construct();
  node->hash = key.hash();
  node->flexible = key.flexible;
  if (node->kind == NodeKind::Var) {
    node->id = next_var_id_++;
    var_names_.insert(key.str);
  } else {
    node->id = static_cast<std::uint32_t>(nodes_.size());
  }
  const ExprNode* raw = node.get();
  nodes_.push_back(std::move(node));
  table_.emplace(std::move(key), raw);
  return Expr(raw);
}

std::size_t Context::PosKeyHash::operator()(const PosKey& k) const {
  std::size_t h = std::hash<std::string>()(k.file);
  for (std::uint64_t v : {std::uint64_t{k.source}, static_cast<std::uint64_t>(k.line),
                          static_cast<std::uint64_t>(k.col)})
    h = h * 1000003u ^ std::hash<std::uint64_t>()(v);
  return h;
}

void Context::add_position_locked(Occurrences& o, const SourcePos& pos) {
  if (o.seen.insert(PosKey{pos.source, pos.line, pos.col, pos.file}).second) o.list.push_back(pos);
}

void Context::add_position(Expr e, const SourcePos& pos) {
  if (!e.defined() || !pos.valid()) return;
  std::lock_guard lock(mutex_);
  add_position_locked(positions_[e.get()], pos);
}

void Context::add_positions_of(Expr from, Expr to) {
  if (!from.defined() || !to.defined() || from == to) return;
  std::lock_guard lock(mutex_);
  if (!positions_.count(from.get())) return;
  auto& dest = positions_[to.get()];  // a rehash keeps references to the map's elements
  const auto& list = positions_.at(from.get()).list;
  // only what was added since the last copy: a literal coerced at each of its n occurrences
  // would otherwise copy its whole list n times
  auto& done = dest.copied_from[from.get()];
  for (; done < list.size(); ++done) add_position_locked(dest, list[done]);
}

std::vector<SourcePos> Context::positions(Expr e) const {
  std::lock_guard lock(mutex_);
  auto it = positions_.find(e.get());
  return it == positions_.end() ? std::vector<SourcePos>{} : it->second.list;
}

SourcePos Context::position(Expr e, std::uint32_t source) const {
  std::lock_guard lock(mutex_);
  auto it = positions_.find(e.get());
  if (it == positions_.end()) return SourcePos{};
  const std::size_t k = cited(it->second.list, source);
  if (k < it->second.list.size()) return it->second.list[k];
  // none in the cited function's parse: its own start, not another program's occurrence
  return tls_function_start && source == 0 ? *tls_function_start : SourcePos{};
}

SourcePos Context::latest_position(Expr e) const {
  std::lock_guard lock(mutex_);
  auto it = positions_.find(e.get());
  return it == positions_.end() || it->second.list.empty() ? SourcePos{} : it->second.list.back();
}

std::vector<SourcePos> Context::positions(Expr e, std::uint32_t source) const {
  std::vector<SourcePos> out;
  for (auto& p : positions(e))
    if (source == 0 || p.source == source) out.push_back(p);
  // the occurrence position() cites first (decision 218)
  if (std::size_t k = cited(out, 0); k > 0 && k < out.size())
    std::rotate(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(k),
                out.begin() + static_cast<std::ptrdiff_t>(k) + 1);
  return out;
}

std::uint32_t Context::new_source_id() {
  std::lock_guard lock(mutex_);
  return ++next_source_;
}

std::string Context::fresh_name(std::string_view base) {
  std::lock_guard lock(mutex_);
  std::string stem(base);
  // Strip an earlier freshening suffix so names do not grow: i_3 -> i.
  auto us = stem.rfind('_');
  if (us != std::string::npos && us + 1 < stem.size() &&
      stem.find_first_not_of("0123456789", us + 1) == std::string::npos)
    stem = stem.substr(0, us);
  for (;;) {
    std::string name = stem + "_" + std::to_string(++fresh_counter_);
    if (!var_names_.count(name)) {
      var_names_.insert(name);
      return name;
    }
  }
}

std::size_t Context::num_nodes() const {
  std::lock_guard lock(mutex_);
  return nodes_.size();
}

std::uint32_t Context::num_vars() const {
  std::lock_guard lock(mutex_);
  return next_var_id_;
}

FunctionPositions::FunctionPositions(const SourcePos& function_start)
    : previous_(tls_function_start) {
  tls_function_start = &function_start;
}
FunctionPositions::~FunctionPositions() {
  tls_function_start = previous_;
}

ContextScope::ContextScope(Context& ctx) : previous_(tls_current) {
  tls_current = &ctx;
}
ContextScope::~ContextScope() {
  tls_current = previous_;
}

Expr at_pos(Expr e, const SourcePos& pos) {
  Context::current().add_position(e, pos);
  return e;
}

SourcePos pos_of(Expr e, std::uint32_t source) {
  return Context::current().position(e, source);
}

}  // namespace adlab::ir
