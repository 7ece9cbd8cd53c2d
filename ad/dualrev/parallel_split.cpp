// The parallel-loop split of an IR function (paper 003 section 12 applied to DESIGN 2.3's
// parallel gen and sum).
#include "ad/dualrev/parallel_split.h"

#include <memory>

#include "ir/builder.h"
#include "ir/context.h"
#include "ir/substitute.h"
#include "ir/typecheck.h"
#include "ir/visitor.h"

namespace adlab::ad::dualrev {

namespace {

std::shared_ptr<ir::Function> piece(const ir::Function& f, const std::string& suffix) {
  auto g = std::make_shared<ir::Function>();
  g->name = f.name + "__" + suffix;
  g->declared_sizes = f.declared_sizes;
  g->sizes = f.sizes;
  g->params = f.params;
  g->pos = f.pos;
  g->result_pos = f.result_pos;
  return g;
}

void set_results(ir::Function& g, std::vector<ir::Expr> results) {
  g.results = std::move(results);
  if (g.results.size() == 1) {
    g.result_type = g.results[0]->type;
  } else {
    std::vector<ir::Type> fields;
    for (auto r : g.results) fields.push_back(r->type);
    g.result_type = ir::Type::tuple(std::move(fields));
  }
}

// Whether a dimension divides: as a parameter's declared dimension it must then be exact,
// while the gen that made the value used floor division (DESIGN 2.3), so it cannot be passed on.
bool divides(ir::Expr d) {
  if (auto* b = d.as<ir::Binary>())
    if (b->op == ir::BinaryOp::Div || b->op == ir::BinaryOp::Mod) return true;
  for (auto c : ir::children(d))
    if (divides(c)) return true;
  return false;
}

bool passable(const ir::Type& t) {
  for (auto d : t.dims)
    if (divides(d)) return false;
  for (const auto& f : t.fields)
    if (!passable(f)) return false;
  return true;
}

// A statement whose loop can run in chunks: one variable bound to a gen, or to a floating scalar
// sum, over a rectangular (not stored-entry) domain.
bool parallel_loop(const ir::Stmt& s) {
  if (s.vars.size() != 1) return false;
  if (auto* g = s.value.as<ir::Gen>()) return !g->dom.is_stored() && !g->dom.vars.empty();
  if (auto* r = s.value.as<ir::Reduce>())
    return r->op == ir::ReduceOp::Sum && !r->dom.is_stored() && !r->dom.vars.empty() &&
           s.value->type.is_float_scalar();
  return false;
}

const ir::Domain& loop_domain(const ir::Expr& e) {
  if (auto* g = e.as<ir::Gen>()) return g->dom;
  return e.as<ir::Reduce>()->dom;
}

ir::Expr loop_body(const ir::Expr& e) {
  if (auto* g = e.as<ir::Gen>()) return g->body;
  return e.as<ir::Reduce>()->body;
}

}  // namespace

std::optional<ParallelSplit> split_at_parallel_loop(const ir::Function& f) {
  std::size_t at = f.stmts.size();
  for (std::size_t k = 0; k < f.stmts.size(); ++k)
    if (parallel_loop(f.stmts[k])) {
      at = k;
      break;
    }
  if (at == f.stmts.size()) return std::nullopt;
  try {
    const ir::Stmt& s = f.stmts[at];
    const ir::Domain& loop_dom = loop_domain(s.value);
    ParallelSplit split;
    split.is_sum = s.value.as<ir::Reduce>() != nullptr;
    std::vector<ir::Expr> pre_vars;
    for (std::size_t k = 0; k < at; ++k)
      pre_vars.insert(pre_vars.end(), f.stmts[k].vars.begin(), f.stmts[k].vars.end());
    split.pre_var_count = pre_vars.size();
    for (auto v : pre_vars)
      if (!passable(v->type)) return std::nullopt;
    if (!passable(s.vars[0]->type)) return std::nullopt;
    if (!pre_vars.empty()) {
      auto pre = piece(f, "pre");
      pre->stmts.assign(f.stmts.begin(), f.stmts.begin() + static_cast<std::ptrdiff_t>(at));
      set_results(*pre, pre_vars);
      ir::check_function(*pre);
      split.pre = pre;
    }
    auto bound = piece(f, "bound");
    bound->stmts = {};
    set_results(*bound, {loop_dom.bounds[0]});
    ir::check_function(*bound);
    split.bound = bound;

    auto& ctx = ir::Context::current();
    ir::Expr lo = ir::Var::make(ctx.fresh_name("lo"), ir::Type::scalar(ir::ElemType::I64));
    ir::Expr len = ir::Var::make(ctx.fresh_name("len"), ir::Type::scalar(ir::ElemType::I64));
    auto chunk = piece(f, "chunk");
    chunk->params.insert(chunk->params.end(), pre_vars.begin(), pre_vars.end());
    chunk->params.push_back(lo);
    chunk->params.push_back(len);
    chunk->sizes.push_back(len);  // a rank-0 i64 parameter used as a size (the result's dim)
    // The chunk's index runs over [0, len): the body and the later bounds of a triangular sum
    // (`sum[j < n, l < j]`) read it shifted by lo (the bounds kept the chunk-local j, found by a
    // fuzzing helper).
    const ir::Expr shifted = ir::dsl::operator+(lo, loop_dom.vars[0]);
    ir::Domain dom = loop_dom;
    dom.bounds[0] = len;
    for (std::size_t k = 1; k < dom.bounds.size(); ++k)
      dom.bounds[k] = ir::substitute(dom.bounds[k], loop_dom.vars[0], shifted);
    ir::Expr body = ir::substitute(loop_body(s.value), loop_dom.vars[0], shifted);
    set_results(*chunk, {split.is_sum ? ir::Reduce::make(ir::ReduceOp::Sum, dom, body)
                                      : ir::Gen::make(dom, body)});
    ir::check_function(*chunk);
    split.chunk = chunk;

    auto post = piece(f, "post");
    post->params.insert(post->params.end(), pre_vars.begin(), pre_vars.end());
    post->params.push_back(s.vars[0]);
    post->stmts.assign(f.stmts.begin() + static_cast<std::ptrdiff_t>(at) + 1, f.stmts.end());
    post->results = f.results;
    post->result_type = f.result_type;
    ir::check_function(*post);
    split.post = post;
    return split;
  } catch (const Error&) {
    return std::nullopt;  // a piece that does not type-check: run f whole
  }
}

std::vector<ParallelSplit> split_chain(const ir::Function& f, std::size_t limit) {
  std::vector<ParallelSplit> chain;
  const ir::Function* rest = &f;
  while (chain.size() < limit) {
    auto split = split_at_parallel_loop(*rest);
    if (!split) break;
    chain.push_back(std::move(*split));
    rest = chain.back().post.get();
  }
  return chain;
}

}  // namespace adlab::ad::dualrev
