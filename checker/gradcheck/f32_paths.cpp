// Where f32 arithmetic lies in a function (decision 206).
#include "checker/gradcheck/f32_paths.h"

#include <unordered_map>
#include <unordered_set>

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
        // the state carries every iteration: any f32 arithmetic in the loop counts for all it reads
        auto* l = e.as<ir::Loop>();
        Info init(params_);
        for (const auto& i : l->init) init.merge(of(i));
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
