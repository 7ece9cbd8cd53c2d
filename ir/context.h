// The interning table of IR nodes and the side table of source positions (DESIGN 2.4).
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/error.h"
#include "ir/expr.h"

namespace adlab::ir {

// The structural identity of a node: what make() hashes and compares before constructing it.
struct NodeKey {
  NodeKey(NodeKind k, Type t) : kind(k), type(std::move(t)) {}
  NodeKind kind{};
  Type type;
  std::vector<const ExprNode*> children;
  std::vector<std::int64_t> ints;
  double num = 0.0;
  std::string str;
  const void* ptr = nullptr;
  bool flexible = false;

  void add(Expr e) { children.push_back(e.get()); }
  void add(const std::vector<Expr>& es);
  void add(const Domain& d);
  bool operator==(const NodeKey& o) const;
  std::size_t hash() const;
};

// Owns every node. Thread-safe: interning and the position table are guarded by one mutex.
// Nodes live as long as their Context; adlab uses one process-wide Context unless a scope
// installs another (tests do, to count nodes).
class Context {
 public:
  Context() = default;
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  // The context make() interns into: the innermost ContextScope's, or the global one.
  static Context& current();

  // Returns the existing node with this key, or constructs one with `construct()`.
  Expr intern(NodeKey key, const std::function<std::unique_ptr<ExprNode>()>& construct);

  // Source positions are per occurrence, kept beside the node (not part of its identity).
  void add_position(Expr e, const SourcePos& pos);
  // Every position of `from` becomes one of `to` too (a node rebuilt from another).
  void add_positions_of(Expr from, Expr to);
  std::vector<SourcePos> positions(Expr e) const;
  // The first recorded position (of parse `source` when non-zero), or an invalid one; inside a
  // FunctionPositions scope, the occurrence in its function comes first (also in positions()).
  SourcePos position(Expr e, std::uint32_t source = 0) const;
  std::vector<SourcePos> positions(Expr e, std::uint32_t source) const;
  // The position recorded last: while parsing, the occurrence just read (a shared node, such as
  // the literal 2.5, has one position per occurrence in every parse).
  SourcePos latest_position(Expr e) const;
  // A fresh id for one parse of one text, so positions of shared nodes are told apart by parse.
  std::uint32_t new_source_id();

  // A variable name not used by any Var in this context, derived from `base` ("i" -> "i_1").
  std::string fresh_name(std::string_view base);

  std::size_t num_nodes() const;
  std::uint32_t num_vars() const;

 private:
  struct KeyHash {
    std::size_t operator()(const NodeKey& k) const { return k.hash(); }
  };
  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<ExprNode>> nodes_;
  std::unordered_map<NodeKey, const ExprNode*, KeyHash> table_;
  // A node's positions in the order recorded, and a set that keeps each once: a shared node
  // (the literal 1.0) has one per occurrence, so a scan per insertion was quadratic in them.
  struct PosKey {
    std::uint32_t source;
    std::int32_t line, col;
    std::string file;
    bool operator==(const PosKey&) const = default;
  };
  struct PosKeyHash {
    std::size_t operator()(const PosKey& k) const;
  };
  struct Occurrences {
    std::vector<SourcePos> list;
    std::unordered_set<PosKey, PosKeyHash> seen;
    // add_positions_of: how many of a node's (append-only) list were copied here already
    std::unordered_map<const ExprNode*, std::size_t> copied_from;
  };
  void add_position_locked(Occurrences& o, const SourcePos& pos);
  std::unordered_map<const ExprNode*, Occurrences> positions_;
  std::unordered_set<std::string> var_names_;
  std::uint32_t next_var_id_ = 0;
  std::uint64_t fresh_counter_ = 0;
  std::uint32_t next_source_ = 0;
};

// Installs a context as current for this thread while in scope.
class ContextScope {
 public:
  explicit ContextScope(Context& ctx);
  ~ContextScope();
  ContextScope(const ContextScope&) = delete;
  ContextScope& operator=(const ContextScope&) = delete;

 private:
  Context* previous_;
};

// While in scope, the positions of a node cite first its occurrence in the function that starts
// at `function_start` (the earliest at or after it in its parse): interned nodes are shared by
// every function that spells them alike, so `k[i]` in two functions of one file is one node and
// its first occurrence may lie in the other function (decision 218). Strategies and the
// interpreter open one for the function they work on.
class FunctionPositions {
 public:
  // `function_start` must outlive the scope (a Function's or a Site's own position).
  explicit FunctionPositions(const SourcePos& function_start);
  ~FunctionPositions();
  FunctionPositions(const FunctionPositions&) = delete;
  FunctionPositions& operator=(const FunctionPositions&) = delete;

 private:
  const SourcePos* previous_;
};

// Records `pos` for `e` in the current context and returns `e` (for builders in parsers).
Expr at_pos(Expr e, const SourcePos& pos);
SourcePos pos_of(Expr e, std::uint32_t source = 0);

}  // namespace adlab::ir
