// The rewrite engine: applies rule tables to a fixed point and records what it did.
//
// Traversal order: bottom-up. A node's children are normalised first (left to right, as
// `children()` lists them), then the rules of the tables are tried at the node in table order and
// rule order; the first whose pattern matches and whose side conditions hold is applied, and the
// result is normalised again. Side conditions are decided with the facts of the context: the
// bounds of enclosing binders (0 <= i < n) and enclosing brackets ([p] * e gives p to e).
// Every application counts one step; past the step limit the engine stops with an error naming
// the last rules applied instead of looping.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "ir/error.h"
#include "ir/function.h"
#include "ir/logic/predicates.h"
#include "ir/rewrite/pattern.h"
#include "ir/rewrite/rule.h"

namespace adlab::ir::rewrite {

struct TraceStep {
  std::string rule;
  std::string cite;
  SourcePos pos;  // of the rewritten occurrence (or of the nearest enclosing one with a position)
  std::string before, after;
};

struct EngineOptions {
  std::size_t max_steps = 10000;
  bool record_trace = true;
};

class Engine {
 public:
  Engine(std::vector<const RuleTable*> tables, EngineOptions options = {});

  // `facts`: what holds where e is (e.g. 0 <= n for the sizes of its function).
  Expr rewrite(Expr e, std::vector<Expr> facts = {});
  // Rewrites every statement and result, knowing that sizes are non-negative; the function keeps
  // its name and signature.
  FunctionPtr rewrite(const Function& f);
  // One step at the root of e, its children untouched: the first rule (table order, rule order)
  // whose pattern matches e and whose side conditions hold, applied and traced; nullopt when
  // none does. For a caller that walks the structure itself and rewrites local terms.
  std::optional<Expr> step(Expr e, const std::vector<Expr>& facts = {}, SourcePos near = {});

  const std::vector<TraceStep>& trace() const { return trace_; }
  std::size_t steps() const { return steps_; }
  logic::PredicateService& logic() { return logic_; }

 private:
  friend class Normaliser;
  // The first rule that applies at `e`, applied (nullopt when none does).
  std::optional<Expr> apply_rules(Expr e, const std::vector<Expr>& facts, const SourcePos& near);
  bool conditions_hold(const Rule& r, Bindings& b, const std::vector<Expr>& facts);
  std::vector<const RuleTable*> tables_;
  EngineOptions options_;
  logic::PredicateService logic_;
  std::vector<TraceStep> trace_;
  std::size_t steps_ = 0;
};

// "file:line:col: rule-name (cite): before  ->  after", one line per step.
std::string format_trace(const std::vector<TraceStep>& trace);

}  // namespace adlab::ir::rewrite
