#include "ir/rewrite/rule.h"

#include <algorithm>
#include <functional>
#include <map>
#include <regex>
#include <set>

#include "ir/affine.h"
#include "ir/substitute.h"
#include "ir/syntax/parser.h"
#include "ir/visitor.h"

namespace adlab::ir::rewrite {

const char* sort_name(Sort s) {
  switch (s) {
    case Sort::Scalar:
      return "scalar expression";
    case Sort::Value:
      return "value";
    case Sort::IndexVar:
      return "index variable";
    case Sort::IndexExpr:
      return "index expression";
    case Sort::Pred:
      return "predicate";
    case Sort::Size:
      return "size";
    case Sort::LetVar:
      return "let-bound variable";
    case Sort::Tensor:
      return "tensor";
  }
  return "?";
}

bool is_pattern_var(Expr e) {
  auto* v = e.as<Var>();
  return v && !v->name.empty() && v->name[0] == '?';
}

namespace {

std::optional<Sort> sort_from_letter(const std::string& name) {
  switch (name.size() > 1 ? name[1] : ' ') {
    case 'e':
      return Sort::Scalar;
    case 't':
      return Sort::Value;
    case 'i':
    case 'j':
    case 'k':
    case 'g':
    case 's':
      return Sort::IndexVar;
    case 'a':
    case 'b':
      return Sort::IndexExpr;
    case 'p':
    case 'q':
    case 'r':
      return Sort::Pred;
    case 'n':
    case 'm':
      return Sort::Size;
    case 'x':
    case 'y':
    case 'z':
      return Sort::LetVar;
    default:
      return std::nullopt;
  }
}

Type type_of_sort(Sort s) {
  switch (s) {
    case Sort::IndexVar:
    case Sort::IndexExpr:
    case Sort::Size:
      return Type::scalar(ElemType::I64);
    case Sort::Pred:
      return Type::scalar(ElemType::Bool);
    default:
      return Type::scalar(ElemType::F64);
  }
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  int depth = 0;
  for (char c : s) {
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') --depth;
    if (c == sep && depth == 0) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  std::vector<std::string> trimmed;
  for (auto& x : out) {
    auto b = x.find_first_not_of(" \t\n");
    if (b == std::string::npos) continue;
    auto e = x.find_last_not_of(" \t\n");
    trimmed.push_back(x.substr(b, e - b + 1));
  }
  return trimmed;
}

// A let binder's pattern variable (?x ?y ?z) takes the type the left side binds it to: the
// letter's f64 was another variable than an i64 or f64[?n] binder, so `not_free(?x, ?e)` was
// never looked up by the prover and a rule without it was PROVED (an audit helper; decision 231).
void type_let_binders(Rule& r, std::vector<Expr>& all) {
  std::map<std::string, Expr> bound;  // name -> the binder's variable in the left side
  std::function<void(Expr)> walk = [&](Expr e) {
    std::vector<Expr> vars;
    if (const auto* l = e.as<Let>()) vars = l->vars;
    if (const auto* v = e.as<Var>(); v && is_pattern_var(e)) vars.push_back(e);
    for (const auto& v : vars) {
      auto [it, fresh] = bound.emplace(var_name(v), v);
      if (!fresh && it->second != v)
        throw Error("`" + var_name(v) + "` is bound with two types in the left side");
    }
    for (const auto& c : children(e)) walk(c);
  };
  walk(r.lhs);
  for (auto& pv : r.vars) {
    if (pv.sort != Sort::LetVar) continue;
    auto it = bound.find(var_name(pv.var));
    if (it == bound.end() || it->second == pv.var) continue;
    std::replace(all.begin(), all.end(), pv.var, it->second);
    pv.var = it->second;
  }
}

}  // namespace

const PatternVar* Rule::find_var(Expr v) const {
  for (const auto& p : vars)
    if (p.var == v) return &p;
  return nullptr;
}

bool Rule::not_free(Expr binder, Expr v) const {
  for (const auto& c : conditions)
    if (c.kind == CondKind::NotFree && c.args[0] == binder && c.args[1] == v) return true;
  return false;
}

bool Rule::partial(Expr v) const {
  for (const auto& c : conditions)
    if (c.kind == CondKind::Partial && c.args[0] == v) return true;
  return false;
}

Sort sort_of(Expr pattern_var, const Rule& r) {
  const PatternVar* p = r.find_var(pattern_var);
  if (!p)
    throw Error("rule `" + r.name() + "`: `" + var_name(pattern_var) +
                "` is not a pattern variable");
  return p->sort;
}

Rule make_rule(RuleSpec spec) {
  Rule r;
  r.spec = spec;
  const std::string where = "rule `" + spec.name + "`";
  try {
    // Declared tensors first (their types may use sizes), then every other name by its letter.
    std::map<std::string, Type> declared;
    std::vector<std::pair<std::string, std::string>> decls;
    for (const auto& d : split(spec.vars, ';')) {
      auto colon = d.find(':');
      if (colon == std::string::npos || d[0] != '?')
        throw Error("the declaration `" + d + "` is not `?name: type`");
      decls.emplace_back(d.substr(0, colon), d.substr(colon + 1));
    }
    std::set<std::string> names;
    static const std::regex name_re(R"(\?[A-Za-z_][A-Za-z0-9_]*)");
    // The patterns define the variables; conditions and assumptions may only name them.
    for (const std::string* text : {&spec.lhs, &spec.rhs, &spec.vars})
      for (auto it = std::sregex_iterator(text->begin(), text->end(), name_re);
           it != std::sregex_iterator(); ++it)
        names.insert(it->str());
    std::map<std::string, Sort> sorts;
    for (const auto& n : names) {
      bool is_declared =
          std::any_of(decls.begin(), decls.end(), [&](const auto& d) { return d.first == n; });
      if (is_declared) {
        sorts[n] = Sort::Tensor;
        continue;
      }
      auto s = sort_from_letter(n);
      if (!s)
        throw Error("pattern variable `" + n +
                    "` has no sort: name it by its sort (?e ?t ?i ?a ?p ?n ?x) or declare it in "
                    "vars");
      sorts[n] = *s;
    }
    std::vector<Expr> scope;  // every non-binder variable, for parsing the patterns
    std::vector<Expr> all;    // every variable, for conditions and assumptions
    for (const auto& [n, s] : sorts) {
      if (s == Sort::Tensor) continue;
      Expr v = Var::make(n, type_of_sort(s));
      r.vars.push_back({v, s});
      all.push_back(v);
      if (s != Sort::IndexVar && s != Sort::LetVar) scope.push_back(v);
    }
    for (const auto& [n, text] : decls) {
      Type t = parse_type(text, scope, where + " vars");
      Expr v = Var::make(n, t);
      r.vars.push_back({v, Sort::Tensor});
      scope.push_back(v);
      all.push_back(v);
    }
    r.lhs = parse_expr(spec.lhs, scope, where + " lhs");
    type_let_binders(r, all);
    r.rhs = parse_expr(spec.rhs, scope, where + " rhs");
    if (is_pattern_var(r.lhs))
      throw Error("the left side is a bare pattern variable (it matches everything)");
    if (!(r.lhs->type == r.rhs->type) && !(r.lhs->type.is_scalar() && r.rhs->type.is_scalar() &&
                                           r.lhs->type.elem == r.rhs->type.elem))
      throw Error("the sides have different types");
    auto var_of = [&](const std::string& text) {
      for (const auto& p : r.vars)
        if (var_name(p.var) == text) return p.var;
      throw Error("the side condition names `" + text + "`, which is not a pattern variable");
    };
    static const std::regex call_re(
        R"(^(not_free|fresh|scalar|same_type|in_range|partial|forces|never_fails)\s*\((.*)\)$)");
    for (const auto& c : split(spec.when, ';')) {
      std::smatch m;
      Condition cond{CondKind::Fact, {}, Expr(), c};
      if (std::regex_match(c, m, call_re)) {
        std::string f = m[1];
        auto args = split(m[2], ',');
        std::size_t want = f == "fresh" || f == "scalar" || f == "partial" || f == "never_fails" ? 1
                           : f == "forces"                                                       ? 3
                                           : 2;
        if (args.size() != want)
          throw Error("`" + f + "` takes " + std::to_string(want) + " argument(s): `" + c + "`");
        cond.kind = f == "not_free"    ? CondKind::NotFree
                    : f == "fresh"     ? CondKind::Fresh
                    : f == "scalar"    ? CondKind::IsScalar
                    : f == "same_type" ? CondKind::SameType
                    : f == "in_range"  ? CondKind::InRange
                    : f == "forces"    ? CondKind::Forces
                    : f == "partial"   ? CondKind::Partial
                                       : CondKind::NeverFails;
        for (const auto& a : args) cond.args.push_back(var_of(a));
      } else {
        cond.fact = parse_expr(c, all, where + " condition");
        if (!cond.fact->type.is_bool())
          throw Error("the side condition `" + c + "` is not a predicate");
      }
      r.conditions.push_back(cond);
    }
    for (const auto& a : split(spec.assume, ';')) {
      Expr e = parse_expr(a, all, where + " assumption");
      if (!e->type.is_bool()) throw Error("the assumption `" + a + "` is not a predicate");
      r.assumptions.push_back(e);
    }
    // The right side may only use what the left side binds (binders may be fresh).
    auto lhs_vars = free_vars(r.lhs);
    std::set<Expr> bound_left;
    std::vector<Expr> stack{r.lhs};
    std::set<const ExprNode*> seen;
    while (!stack.empty()) {
      Expr e = stack.back();
      stack.pop_back();
      if (!seen.insert(e.get()).second) continue;
      if (is_pattern_var(e)) bound_left.insert(e);
      for (const auto& c : children(e)) stack.push_back(c);
    }
    for (const auto& c : r.conditions)
      if (c.kind == CondKind::Forces) bound_left.insert(c.args[2]);  // solved by the engine
    for (const auto& v : free_vars(r.rhs))
      if (is_pattern_var(v) && !bound_left.count(v))
        throw Error("the right side uses `" + var_name(v) + "`, which the left side does not bind");
  } catch (const Error& e) {
    throw Error(e.pos(), where + ": " + e.message(), e.notes());
  }
  return r;
}

RuleTable make_table(std::string name, std::string description, std::vector<RuleSpec> specs,
                     bool errata) {
  RuleTable t{std::move(name), std::move(description), {}, errata};
  for (auto& s : specs) t.rules.push_back(make_rule(std::move(s)));
  return t;
}

}  // namespace adlab::ir::rewrite
