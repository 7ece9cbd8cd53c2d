// The gen split of an IR function (paper 003 section 12 applied to DESIGN 2.3's parallel gen).
#include "ad/dualrev/gen_split.h"

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

}  // namespace

std::optional<GenSplit> split_at_gen(const ir::Function& f) {
  std::size_t at = f.stmts.size();
  for (std::size_t k = 0; k < f.stmts.size(); ++k) {
    auto* g = f.stmts[k].value.as<ir::Gen>();
    if (g && f.stmts[k].vars.size() == 1 && !g->dom.is_stored() && !g->dom.vars.empty()) {
      at = k;
      break;
    }
  }
  if (at == f.stmts.size()) return std::nullopt;
  try {
    const ir::Stmt& s = f.stmts[at];
    const ir::Gen& gen = *s.value.as<ir::Gen>();
    GenSplit split;
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
    set_results(*bound, {gen.dom.bounds[0]});
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
    ir::Domain dom = gen.dom;
    dom.bounds[0] = len;
    ir::Expr body =
        ir::substitute(gen.body, gen.dom.vars[0], ir::dsl::operator+(lo, gen.dom.vars[0]));
    set_results(*chunk, {ir::Gen::make(dom, body)});
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

}  // namespace adlab::ad::dualrev
