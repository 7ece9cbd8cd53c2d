// What each expression of a function reads, and through which f32 arithmetic (decisions 206,
// 207): the f32 paths of the error model and the kinks that matter to a derivative.
#include "checker/gradcheck/dependence.h"

#include <unordered_map>

#include "checker/gradcheck/f32_paths.h"
#include "ir/visitor.h"

namespace adlab::checker {

namespace {

bool is_f32(const ir::Type& t) {
  for (const auto& field : t.fields)
    if (is_f32(field)) return true;
  return !t.is_tuple() && t.elem == ir::ElemType::F32;
}

// An operation whose result is f32 rounds in f32; reading or converting an f32 value does not.
bool rounds_in_f32(const ir::Expr& e) {
  switch (e->kind) {
    case ir::NodeKind::Unary:
    case ir::NodeKind::Binary:
    case ir::NodeKind::Prim:
    case ir::NodeKind::Reduce:
    case ir::NodeKind::Scan:
    case ir::NodeKind::Loop:
    case ir::NodeKind::Scatter:  // adds in f32
      return is_f32(e->type);
    default:
      return false;
  }
}

bool function_rounds_in_f32(const ir::Function& f);

// What an expression depends on: the parameters it reads, those read through f32 arithmetic,
// and whether it contains any.
struct Info {
  std::vector<bool> reads, through_f32;
  bool f32 = false;
  explicit Info(std::size_t params = 0) : reads(params, false), through_f32(params, false) {}
  void merge(const Info& o) {
    for (std::size_t p = 0; p < reads.size(); ++p) {
      reads[p] = reads[p] || o.reads[p];
      through_f32[p] = through_f32[p] || o.through_f32[p];
    }
    f32 = f32 || o.f32;
  }
  // f32 arithmetic here: everything read so far reaches the value through it
  void rounds() {
    for (std::size_t p = 0; p < reads.size(); ++p) through_f32[p] = through_f32[p] || reads[p];
    f32 = true;
  }
};

class Analysis {
 public:
  explicit Analysis(const ir::Function& f) : params_(f.params.size()) {
    for (std::size_t p = 0; p < f.params.size(); ++p) param_index_[f.params[p].get()] = p;
  }

  void bind(const std::vector<ir::Expr>& vars, const Info& value) {
    for (const auto& v : vars) bound_.insert_or_assign(v.get(), value);
  }

  // every node walked, with what it reads
  const std::unordered_map<const ir::ExprNode*, Info>& walked() const { return memo_; }

  Info of(const ir::Expr& e) {
    if (auto it = memo_.find(e.get()); it != memo_.end()) return it->second;
    Info r(params_);
    switch (e->kind) {
      case ir::NodeKind::Var:
        if (auto p = param_index_.find(e.get()); p != param_index_.end())
          r.reads[p->second] = true;
        else if (auto b = bound_.find(e.get()); b != bound_.end())
          r = b->second;
        break;  // an index variable reads nothing
      case ir::NodeKind::Let: {
        auto* l = e.as<ir::Let>();
        bind(l->vars, of(l->value));
        r = of(l->body);
        break;
      }
      case ir::NodeKind::Call: {
        auto* c = e.as<ir::Call>();
        for (const auto& a : c->args) r.merge(of(a));
        if (function_rounds_in_f32(*c->callee)) r.rounds();
        break;
      }
      case ir::NodeKind::Loop: {
        // the state carries every iteration: it reads all the loop reads, and any f32 arithmetic
        // in the loop counts for all of that
        auto* l = e.as<ir::Loop>();
        Info init(params_);
        for (const auto& i : l->init) init.merge(of(i));
        init.merge(anywhere_in(e));
        bind(l->state, init);
        for (const auto& c : ir::children(e)) r.merge(of(c));
        r.merge(init);
        if (r.f32 || rounds_in_f32(e)) r.rounds();
        break;
      }
      default:
        for (const auto& c : ir::children(e)) r.merge(of(c));
        if (rounds_in_f32(e)) r.rounds();
    }
    memo_.emplace(e.get(), r);
    return r;
  }

 private:
  // What a subtree reads anywhere in it (names bound so far), without memoising its nodes.
  Info anywhere_in(const ir::Expr& e) {
    Info r(params_);
    std::vector<ir::Expr> todo = {e};
    std::unordered_map<const ir::ExprNode*, bool> seen;
    while (!todo.empty()) {
      ir::Expr x = todo.back();
      todo.pop_back();
      if (!seen.emplace(x.get(), true).second) continue;
      if (auto p = param_index_.find(x.get()); p != param_index_.end()) r.reads[p->second] = true;
      if (auto b = bound_.find(x.get()); b != bound_.end()) r.merge(b->second);
      for (const auto& c : ir::children(x)) todo.push_back(c);
    }
    return r;
  }

  std::size_t params_;
  std::unordered_map<const ir::ExprNode*, std::size_t> param_index_;
  std::unordered_map<const ir::ExprNode*, Info> bound_, memo_;
};

bool function_rounds_in_f32(const ir::Function& f) {
  Analysis a(f);
  for (const auto& st : f.stmts) a.bind(st.vars, a.of(st.value));
  for (const auto& r : f.results)
    if (a.of(r).f32) return true;
  return false;
}

}  // namespace

std::unordered_set<const ir::ExprNode*> nodes_reading(const ir::Function& f,
                                                      const std::vector<std::size_t>& params) {
  Analysis a(f);
  for (const auto& st : f.stmts) a.bind(st.vars, a.of(st.value));
  for (const auto& r : f.results) a.of(r);
  std::unordered_set<const ir::ExprNode*> out;
  for (const auto& [node, info] : a.walked())
    for (std::size_t p : params)
      if (p < info.reads.size() && info.reads[p]) {
        out.insert(node);
        break;
      }
  // a callee's nodes run once per call, on whatever its arguments read: all of them count
  std::vector<const ir::Function*> callees;
  for (const auto& [node, info] : a.walked())
    if (node->kind == ir::NodeKind::Call)
      callees.push_back(static_cast<const ir::Call*>(node)->callee.get());
  std::unordered_set<const ir::Function*> done;
  while (!callees.empty()) {
    const ir::Function* g = callees.back();
    callees.pop_back();
    if (!done.insert(g).second) continue;
    std::vector<ir::Expr> todo;
    for (const auto& st : g->stmts) todo.push_back(st.value);
    for (const auto& r : g->results) todo.push_back(r);
    while (!todo.empty()) {
      ir::Expr x = todo.back();
      todo.pop_back();
      if (!out.insert(x.get()).second) continue;
      if (auto* c = x.as<ir::Call>()) callees.push_back(c->callee.get());
      for (const auto& c : ir::children(x)) todo.push_back(c);
    }
  }
  return out;
}

F32Paths f32_paths(const ir::Function& f) {
  Analysis a(f);
  for (const auto& st : f.stmts) a.bind(st.vars, a.of(st.value));
  F32Paths out;
  for (const auto& r : f.results) {
    const Info i = a.of(r);
    out.result.push_back(i.f32);
    out.through.push_back(i.through_f32);
  }
  return out;
}

}  // namespace adlab::checker
