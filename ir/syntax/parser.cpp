// Recursive-descent parser for `.adl` (SYNTAX.md): precedence climbing for operators, binders
// (gen, sum, max, min, scan, scatter, exists) that take the rest of the expression as body.
#include "ir/syntax/parser.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <map>
#include <numbers>
#include <sstream>

#include "ir/context.h"
#include "ir/substitute.h"
#include "ir/syntax/lexer.h"
#include "ir/syntax/printer.h"
#include "ir/typecheck.h"

namespace adlab::ir {

namespace {

const std::map<std::string, PrimOp>& prim_table() {
  static const std::map<std::string, PrimOp> t = {
      {"exp", PrimOp::Exp},     {"log", PrimOp::Log},     {"log1p", PrimOp::Log1p},
      {"expm1", PrimOp::Expm1}, {"sin", PrimOp::Sin},     {"cos", PrimOp::Cos},
      {"tan", PrimOp::Tan},     {"tanh", PrimOp::Tanh},   {"sigmoid", PrimOp::Sigmoid},
      {"sqrt", PrimOp::Sqrt},   {"abs", PrimOp::Abs},     {"lgamma", PrimOp::Lgamma},
      {"floor", PrimOp::Floor}, {"round", PrimOp::Round}, {"pow", PrimOp::Pow},
      {"min", PrimOp::Min},     {"max", PrimOp::Max},     {"band", PrimOp::Band},
      {"bxor", PrimOp::Bxor},   {"f64", PrimOp::ToF64},   {"f32", PrimOp::ToF32},
      {"i64", PrimOp::ToI64}};
  return t;
}

// An untyped number expression is f64 unless it uses `%`, which only integers have.
ElemType default_elem(Expr e) {
  if (auto* b = e.as<Binary>())
    return b->op == BinaryOp::Mod || default_elem(b->a) == ElemType::I64 ||
                   default_elem(b->b) == ElemType::I64
               ? ElemType::I64
               : ElemType::F64;
  if (auto* u = e.as<Unary>()) return default_elem(u->a);
  return ElemType::F64;
}

bool is_keyword(const std::string& s) {
  static const char* kws[] = {"func",   "let",    "return", "gen",     "sum",  "max",   "min",
                              "loop",   "next",   "scan",   "scatter", "to",   "at",    "add",
                              "select", "exists", "nz",     "in",      "true", "false", "pi",
                              "band",   "bxor",   "f64",    "f32",     "i64",  "bool"};
  for (auto* k : kws)
    if (s == k) return true;
  return false;
}

class Parser {
 public:
  Parser(std::vector<Token> toks, std::string file)
      : toks_(std::move(toks)), file_(std::move(file)) {}

  Module module() {
    Module m;
    m.file = file_;
    skip_newlines();
    while (peek().kind != Tok::End) {
      call_depth_ = 0;
      auto f = function();
      if (functions_.count(f->name))
        throw Error(f->pos, "function `" + f->name + "` is defined twice");
      functions_[f->name] = f;
      call_depths_[f->name] = call_depth_;
      m.functions.push_back(f);
      skip_newlines();
    }
    return m;
  }

  Expr standalone_expr(const std::vector<Expr>& scope) {
    scopes_.emplace_back();
    for (auto v : scope) scopes_.back()[var_name(v)] = v;
    Expr e = expr();
    skip_newlines();
    if (peek().kind != Tok::End) fail("end of expression");
    return e;
  }

  Type standalone_type(const std::vector<Expr>& scope) {
    scopes_.emplace_back();
    for (auto v : scope) scopes_.back()[var_name(v)] = v;
    Type t = type();
    skip_newlines();
    if (peek().kind != Tok::End) fail("end of type");
    return t;
  }

 private:
  // ---- tokens ----
  const Token& peek(std::size_t k = 0) const { return toks_[std::min(pos_ + k, toks_.size() - 1)]; }
  const Token& next() { return toks_[std::min(pos_++, toks_.size() - 1)]; }
  bool accept(std::string_view s) {
    if (peek().is(s)) {
      ++pos_;
      return true;
    }
    return false;
  }
  [[noreturn]] void fail(const std::string& expected) const {
    throw Error(peek().pos, "expected " + expected + ", found " + describe(peek()));
  }
  const Token& expect(std::string_view s) {
    if (!peek().is(s)) fail("`" + std::string(s) + "`");
    return next();
  }
  std::string expect_name(const char* what) {
    if (peek().kind != Tok::Ident || is_keyword(peek().text)) fail(what);
    return next().text;
  }
  void skip_newlines() {
    while (peek().kind == Tok::Newline || peek().is(";")) ++pos_;
  }
  void end_statement() {
    if (peek().kind == Tok::Newline || peek().is(";")) {
      skip_newlines();
      return;
    }
    if (peek().is("}")) return;
    fail("end of statement (newline or `;`)");
  }

  // Runs a node constructor, attaching the position to its type errors and to the node.
  template <class F>
  Expr build(const SourcePos& p, F&& make) {
    try {
      return at_pos(make(), p);
    } catch (const Error& e) {
      if (e.pos().valid()) throw;
      throw Error(p, e.message(), e.notes());
    }
  }

  // ---- scopes (no shadowing: a name is bound once in its scope) ----
  Expr lookup(const std::string& name) const {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      auto f = it->find(name);
      if (f != it->end()) return f->second;
    }
    return Expr();
  }
  Expr bind(const std::string& name, const Type& t, const SourcePos& p) {
    if (is_keyword(name)) throw Error(p, "`" + name + "` is a keyword");
    if (Expr old = lookup(name); old.defined()) {
      auto where = bound_at_.find(name);
      throw Error(
          p, "`" + name + "` is already bound in this scope (no shadowing)",
          {"bound at " + (where != bound_at_.end() ? where->second.str() : pos_of(old).str()),
           "a binder (gen, sum, ...) takes the rest of the expression as its body: "
           "parenthesise it to end it sooner"});
    }
    Expr v = Var::make(name, t);
    at_pos(v, p);
    scopes_.back()[name] = v;
    bound_at_[name] = p;
    return v;
  }

  // ---- types ----
  ElemType elem_type() {
    const Token& t = peek();
    static const std::pair<const char*, ElemType> elems[] = {{"f64", ElemType::F64},
                                                             {"f32", ElemType::F32},
                                                             {"i64", ElemType::I64},
                                                             {"bool", ElemType::Bool}};
    for (auto& [name, e] : elems) {
      if (t.is(name)) {
        next();
        return e;
      }
    }
    fail("a type (f64, f32, i64, bool or a tuple)");
  }

  Type type() {
    Nesting n(*this);
    deeper();  // tuple types nest too
    Type t;
    if (accept("(")) {
      std::vector<Type> fs;
      do fs.push_back(type());
      while (accept(","));
      expect(")");
      if (fs.size() < 2) fail("a tuple type of at least two fields");
      t = Type::tuple(fs);
    } else {
      t = Type::scalar(elem_type());
    }
    if (accept("[")) {
      do t.dims.push_back(dim());
      while (accept(","));
      expect("]");
    }
    if (accept("@")) {
      SourcePos p = peek().pos;
      std::string s = expect_name("a storage (dense, csr, coo)");
      if (s == "dense")
        t.storage = Storage::Dense;
      else if (s == "csr")
        t.storage = Storage::Csr;
      else if (s == "coo")
        t.storage = Storage::Coo;
      else
        throw Error(p, "unknown storage `@" + s + "` (expected @dense, @csr or @coo)");
      if (t.storage == Storage::Csr && t.dims.size() != 2)
        throw Error(p, "@csr needs a rank-2 tensor");
      if (t.storage != Storage::Dense && (t.dims.empty() || t.is_tuple()))
        throw Error(p, "sparse storage needs a tensor of numbers");
    }
    return t;
  }

  // A dimension: an integer expression of sizes. In a parameter list, an unknown name is a
  // size implied by the parameters (checked afterwards to appear alone somewhere).
  Expr dim() {
    implicit_sizes_ok_ = in_params_;
    Expr d = coerce_flexible(add_expr(), ElemType::I64);
    implicit_sizes_ok_ = false;
    if (!d->type.is_index()) throw Error(pos_of(d), "a dimension must be an i64 expression");
    return d;
  }

  // ---- functions ----
  FunctionPtr function() {
    auto f = std::make_shared<Function>();
    f->pos = expect("func").pos;
    SourcePos name_pos = peek().pos;
    f->name = expect_name("a function name");
    if (prim_table().count(f->name) || f->name == "select" || f->name == "nz")
      throw Error(name_pos,
                  "`" + f->name + "` is a built-in primitive; choose another function name");
    scopes_.assign(1, {});
    implied_sizes_.clear();
    if (accept("[")) {
      do {
        SourcePos p = peek().pos;
        f->declared_sizes.push_back(
            bind(expect_name("a size name"), Type::scalar(ElemType::I64), p));
      } while (accept(","));
      expect("]");
    }
    expect("(");
    in_params_ = true;
    std::vector<std::pair<std::string, SourcePos>> names;
    std::vector<Type> types;
    if (!peek().is(")")) {
      do {
        SourcePos p = peek().pos;
        names.emplace_back(expect_name("a parameter name"), p);
        expect(":");
        types.push_back(type());
      } while (accept(","));
    }
    expect(")");
    in_params_ = false;
    for (std::size_t k = 0; k < names.size(); ++k) {
      // A rank-0 i64 parameter named in a dimension (`k: i64, x: f64[k]`) is that size.
      auto implied = std::find_if(implied_sizes_.begin(), implied_sizes_.end(),
                                  [&](const auto& s) { return s.first == names[k].first; });
      if (implied != implied_sizes_.end() && types[k].is_index()) {
        scopes_.front().erase(names[k].first);
        bound_at_.erase(names[k].first);
        implied_sizes_.erase(implied);
      }
      f->params.push_back(bind(names[k].first, types[k], names[k].second));
    }
    // Sizes: declared, then those bound by a parameter dimension that is the name alone.
    f->sizes = f->declared_sizes;
    for (auto& [name, v] : implied_sizes_) {
      bool alone = false;
      for (auto& t : types)
        for (auto d : t.dims) alone = alone || d == v;
      if (!alone)
        throw Error(bound_at_[name],
                    "size `" + name + "` is not declared and no parameter dimension binds it",
                    {"declare it: func " + f->name + "[" + name + "](...)"});
      f->sizes.push_back(v);
    }
    expect("->");
    f->result_type = type();
    // Rank-0 i64 parameters used in a dimension are sizes too.
    for (auto p : f->params) {
      if (!p->type.is_index()) continue;
      std::function<bool(const Type&)> used = [&](const Type& t) {
        for (auto d : t.dims)
          if (is_free_in(p, d)) return true;
        for (const auto& fld : t.fields)
          if (used(fld)) return true;
        return false;
      };
      bool in_dims = used(f->result_type);
      for (auto q : f->params) in_dims = in_dims || used(q->type);
      if (in_dims) f->sizes.push_back(p);
    }
    expect("{");
    skip_newlines();
    scopes_.emplace_back();
    while (peek().is("let")) {
      f->stmts.push_back(let_stmt());
      end_statement();
    }
    SourcePos rp = expect("return").pos;
    f->result_pos = peek().pos;
    Expr r = expr();
    skip_newlines();
    expect("}");
    set_results(*f, r, rp);
    check_function(*f);
    return f;
  }

  void set_results(Function& f, Expr r, const SourcePos& p) {
    if (f.result_type.is_tuple() && f.result_type.dims.empty()) {
      if (auto* t = r.as<Tuple>()) {
        f.results = t->elems;
      } else {  // a tuple-valued expression: destructure it once
        std::vector<Expr> vars;
        for (std::size_t k = 0; k < f.result_type.fields.size(); ++k) {
          if (!r->type.is_tuple() || k >= r->type.fields.size()) break;
          vars.push_back(Var::make(Context::current().fresh_name("result"), r->type.fields[k]));
        }
        if (vars.size() != f.result_type.fields.size())
          throw Error(p, "`" + f.name + "` returns " + type_str(f.result_type) +
                             " but the value has type " + type_str(r->type));
        f.stmts.push_back(Stmt{vars, r});
        f.results = vars;
      }
    } else {
      f.results = {r};
    }
    for (std::size_t k = 0; k < f.results.size(); ++k) {
      const Type& want = f.results.size() == 1 ? f.result_type : f.result_type.fields[k];
      if (f.results[k]->flexible)
        f.results[k] = build(p, [&] {
          return coerce_flexible(f.results[k], want.is_tuple() ? ElemType::F64 : want.elem);
        });
    }
  }

  Stmt let_stmt() {
    expect("let");
    std::vector<std::pair<std::string, SourcePos>> names;
    bool destructure = accept("(");
    do {
      SourcePos p = peek().pos;
      names.emplace_back(expect_name("a name to bind"), p);
    } while (destructure && accept(","));
    if (destructure) expect(")");
    expect("=");
    SourcePos vp = peek().pos;
    Expr value = expr();
    if (value->flexible)
      value = build(vp, [&] { return coerce_flexible(value, default_elem(value)); });
    Stmt s;
    s.value = value;
    if (!destructure) {
      s.vars.push_back(bind(names[0].first, value->type, names[0].second));
    } else {
      if (!value->type.is_tuple() || !value->type.dims.empty() ||
          value->type.fields.size() != names.size())
        throw Error(names[0].second,
                    "let (" + std::to_string(names.size()) + " names) needs a tuple of " +
                        std::to_string(names.size()) + ", found " + type_str(value->type));
      for (std::size_t k = 0; k < names.size(); ++k)
        s.vars.push_back(bind(names[k].first, value->type.fields[k], names[k].second));
    }
    return s;
  }

  // { let a = e; ...; final }  (or, in a loop body, ...; next final)
  Expr block(bool loop_body) {
    SourcePos p = expect("{").pos;
    skip_newlines();
    scopes_.emplace_back();
    std::vector<Stmt> stmts;
    Nesting n(*this);
    while (peek().is("let")) {
      deeper();  // each let of a block nests the rest of it (a Let chain the checker recurses on)
      stmts.push_back(let_stmt());
      end_statement();
    }
    if (loop_body) expect("next");
    Expr e = expr();
    skip_newlines();
    expect("}");
    scopes_.pop_back();
    for (auto it = stmts.rbegin(); it != stmts.rend(); ++it) {
      Stmt& s = *it;
      e = build(pos_of(s.vars[0], p.source).valid() ? pos_of(s.vars[0], p.source) : p,
                [&] { return Let::make(s.vars, s.value, e); });
    }
    return e;
  }

  // ---- expressions ----
  // Nesting (parentheses, operands of prefix operators, and the links of an operator chain,
  // which build a tree as deep as the chain is long) is bounded: the parser, the type checker,
  // the interpreter and the printer recurse on the tree, and a program nested 10^4 deep
  // overflowed the stack. A Nesting restores the depth when its parsing function returns.
  static constexpr int kMaxNesting = 1000;
  struct Nesting {
    Parser& parser;
    int saved;
    explicit Nesting(Parser& p) : parser(p), saved(p.nesting_) {}
    ~Nesting() { parser.nesting_ = saved; }
    Nesting(const Nesting&) = delete;
    Nesting& operator=(const Nesting&) = delete;
  };
  // Inline, only the count: the recursive parsing functions call it at every level, and an
  // inlined message would grow each of their frames (under ASan, 1000 levels then overflowed).
  void deeper() {
    if (++nesting_ > kMaxNesting) [[unlikely]]
      too_deep();
  }
  [[noreturn, gnu::noinline, gnu::cold]] void too_deep() const {
    throw Error(peek().pos, "the expression is nested more than " + std::to_string(kMaxNesting) +
                                " deep (parentheses, prefix operators, brackets, tuple types, "
                                "the lets of a block or a chain of binary operators): split it "
                                "with top-level `let`s or helper functions");
  }

  Expr expr() {
    Nesting n(*this);
    deeper();
    return or_expr();
  }

  Expr or_expr() {
    Nesting n(*this);
    SourcePos p = peek().pos;  // a binary node sits at its left operand's start
    Expr a = and_expr();
    while (peek().is("||")) {
      deeper();
      next();
      Expr b = and_expr();
      a = build(p, [&] { return Binary::make(BinaryOp::Or, a, b); });
    }
    return a;
  }

  Expr and_expr() {
    Nesting n(*this);
    SourcePos p = peek().pos;
    Expr a = cmp_expr();
    while (peek().is("&&")) {
      deeper();
      next();
      Expr b = cmp_expr();
      a = build(p, [&] { return Binary::make(BinaryOp::And, a, b); });
    }
    return a;
  }

  // Comparisons chain: a <= b < c means a <= b && b < c.
  Expr cmp_expr() {
    static const std::pair<const char*, BinaryOp> ops[] = {
        {"<", BinaryOp::Lt},  {"<=", BinaryOp::Le}, {">", BinaryOp::Gt},
        {">=", BinaryOp::Ge}, {"==", BinaryOp::Eq}, {"!=", BinaryOp::Ne}};
    Nesting n(*this);
    SourcePos p = peek().pos;
    Expr left = add_expr();
    Expr result;
    for (;;) {
      const BinaryOp* op = nullptr;
      for (auto& [s, o] : ops)
        if (peek().is(s)) op = &o;
      if (!op) break;
      deeper();
      next();
      Expr right = add_expr();
      Expr c = build(p, [&] { return Binary::make(*op, left, right); });
      result =
          result.defined() ? build(p, [&] { return Binary::make(BinaryOp::And, result, c); }) : c;
      left = right;
    }
    return result.defined() ? result : left;
  }

  Expr add_expr() {
    Nesting n(*this);
    SourcePos p = peek().pos;
    Expr a = mul_expr();
    while (peek().is("+") || peek().is("-")) {
      deeper();
      bool plus = peek().is("+");
      next();
      Expr b = mul_expr();
      a = build(p, [&] { return Binary::make(plus ? BinaryOp::Add : BinaryOp::Sub, a, b); });
    }
    return a;
  }

  Expr mul_expr() {
    Nesting n(*this);
    SourcePos p = peek().pos;
    Expr a = prefix_expr();
    while (peek().is("*") || peek().is("/") || peek().is("%")) {
      deeper();
      BinaryOp op = peek().is("*") ? BinaryOp::Mul : peek().is("/") ? BinaryOp::Div : BinaryOp::Mod;
      next();
      Expr b = prefix_expr();
      a = build(p, [&] { return Binary::make(op, a, b); });
    }
    return a;
  }

  Expr prefix_expr() {
    Nesting n(*this);
    const Token& t = peek();
    SourcePos p = t.pos;
    if (t.is("-")) {
      deeper();
      next();
      if (peek().kind == Tok::Number && !(peek(1).is("[") || peek(1).is("."))) {
        double v = number(next());
        return build(p, [&] { return Literal::make_flexible(-v); });
      }
      Expr a = prefix_expr();
      return build(p, [&] { return Unary::make(UnaryOp::Neg, a); });
    }
    if (t.is("!")) {
      deeper();
      next();
      Expr a = prefix_expr();
      return build(p, [&] { return Unary::make(UnaryOp::Not, a); });
    }
    if (t.is("[")) {  // an Iverson bracket: `[` where an operand is expected
      deeper();       // `[p] * [q] * ... x` nests like prefix operators
      next();
      Expr pred = expr();
      expect("]");
      if (!peek().is("*"))
        throw Error(p, "a bracket [p] must multiply a factor: write [p] * e",
                    {"found " + describe(peek()) + " after the bracket"});
      next();
      Expr body = prefix_expr();
      return build(p, [&] { return Iverson::make(pred, body); });
    }
    if (t.is("gen") && peek(1).is("[")) return binder_gen();
    if ((t.is("sum") || t.is("max") || t.is("min")) && peek(1).is("[")) return binder_reduce();
    if (t.is("scan") && peek(1).is("[")) return binder_scan();
    if (t.is("scatter") && peek(1).is("[")) return binder_scatter();
    if (t.is("exists") && peek(1).is("[")) return binder_exists();
    return postfix_expr();
  }

  // [i < n, j < i] or [(i, j) in A] / [(j) in A[i]]; binds the index names in a new scope.
  Domain domain(bool allow_stored) {
    expect("[");
    Domain d;
    scopes_.emplace_back();
    if (peek().is("(")) {
      SourcePos p = next().pos;
      if (!allow_stored) throw Error(p, "this construct iterates i < n bounds, not stored entries");
      std::vector<std::pair<std::string, SourcePos>> names;
      do {
        SourcePos np = peek().pos;
        names.emplace_back(expect_name("an index name"), np);
      } while (accept(","));
      expect(")");
      expect("in");
      SourcePos sp = peek().pos;
      std::string src = expect_name("a sparse tensor name");
      d.source = lookup(src);
      if (!d.source.defined()) throw Error(sp, "unknown name `" + src + "`");
      if (accept("[")) {
        do d.prefix.push_back(coerce_flexible(expr(), ElemType::I64));
        while (accept(","));
        expect("]");
      }
      for (auto& [n, np] : names) d.vars.push_back(bind(n, Type::scalar(ElemType::I64), np));
    } else {
      do {
        SourcePos np = peek().pos;
        std::string n = expect_name("an index name");
        expect("<");
        Expr b = coerce_flexible(add_expr(), ElemType::I64);
        d.vars.push_back(bind(n, Type::scalar(ElemType::I64), np));
        d.bounds.push_back(b);
      } while (accept(","));
    }
    expect("]");
    return d;
  }

  Expr binder_gen() {
    SourcePos p = next().pos;
    Domain d = domain(false);
    Expr body = expr();
    scopes_.pop_back();
    return build(p, [&] { return Gen::make(d, body); });
  }

  Expr binder_reduce() {
    const Token& t = next();
    ReduceOp op = t.is("sum") ? ReduceOp::Sum : t.is("max") ? ReduceOp::Max : ReduceOp::Min;
    SourcePos p = t.pos;
    Domain d = domain(true);
    Expr body = expr();
    scopes_.pop_back();
    return build(p, [&] { return Reduce::make(op, d, body); });
  }

  Expr binder_scan() {
    SourcePos p = next().pos;
    Domain d = domain(false);
    expect("(");
    ReduceOp op;
    if (accept("+"))
      op = ReduceOp::Sum;
    else if (accept("*"))
      op = ReduceOp::Prod;
    else if (accept("max"))
      op = ReduceOp::Max;
    else if (accept("min"))
      op = ReduceOp::Min;
    else
      fail("a scan operator (+), (*), (max) or (min)");
    expect(")");
    Expr body = expr();
    scopes_.pop_back();
    return build(p, [&] { return Scan::make(op, d, body); });
  }

  Expr binder_scatter() {
    SourcePos p = next().pos;
    Domain d = domain(true);
    expect("to");
    Type t = type();
    expect("at");
    expect("(");
    std::vector<Expr> at;
    do at.push_back(expr());
    while (accept(","));
    expect(")");
    expect("add");
    Expr v = expr();
    scopes_.pop_back();
    return build(p, [&] { return Scatter::make(d, t, at, v); });
  }

  Expr binder_exists() {
    SourcePos p = next().pos;
    Domain d = domain(false);
    Expr pred = expr();
    scopes_.pop_back();
    return build(p, [&] { return Exists::make(d, pred); });
  }

  Expr postfix_expr() {
    SourcePos p = peek().pos;  // accesses and projections sit at the start of their operand
    Expr e = primary();
    for (;;) {
      if (peek().is("[")) {
        next();
        std::vector<Expr> idx;
        do idx.push_back(expr());
        while (accept(","));
        expect("]");
        e = build(p, [&] { return Access::make(e, idx); });
      } else if (peek().is(".")) {
        next();
        if (peek().kind != Tok::Number) fail("a field number after `.`");
        const Token& field = next();
        if (field.text.empty() || field.text.size() > 6 ||
            field.text.find_first_not_of("0123456789") != std::string::npos)
          throw Error(field.pos, "`" + field.text + "` is not a field number");
        int k = std::stoi(field.text);
        e = build(p, [&] { return Proj::make(e, k); });
      } else {
        return e;
      }
    }
  }

  double number(const Token& t) {
    errno = 0;
    char* end = nullptr;
    double v = std::strtod(t.text.c_str(), &end);
    if (end != t.text.c_str() + t.text.size())
      throw Error(t.pos, "`" + t.text + "` is not a number");
    if (std::isinf(v)) throw Error(t.pos, "number `" + t.text + "` is out of range");
    // A subnormal literal is kept; one that underflows to 0 would silently become another value.
    if (v == 0 && t.text.find_first_of("123456789") < t.text.find_first_of("eE"))
      throw Error(t.pos, "number `" + t.text + "` underflows to 0");
    if (t.text.find_first_not_of("0123456789") == std::string::npos) {
      // An integer literal must be the integer it spells: 9007199254740993 would read as 2^53.
      std::uint64_t n = 0;
      auto [ptr, ec] = std::from_chars(t.text.data(), t.text.data() + t.text.size(), n);
      if (ec != std::errc() || ptr != t.text.data() + t.text.size() ||
          n > (std::uint64_t{1} << 63) || static_cast<std::uint64_t>(v) != n)
        throw Error(t.pos, "integer literal `" + t.text + "` is not exactly a double (write `" +
                               t.text + ".0` for the nearest one)");
    }
    return v;
  }

  std::vector<Expr> call_args() {
    expect("(");
    std::vector<Expr> args;
    if (!peek().is(")")) {
      do args.push_back(expr());
      while (accept(","));
    }
    expect(")");
    return args;
  }

  Expr primary() {
    const Token& t = peek();
    SourcePos p = t.pos;
    if (t.kind == Tok::Number) {
      double v = number(next());
      return build(p, [&] { return Literal::make_flexible(v); });
    }
    if (t.is("(")) {
      next();
      Expr e = expr();
      if (accept(",")) {
        std::vector<Expr> es{e};
        do es.push_back(expr());
        while (accept(","));
        expect(")");
        return build(p, [&] { return Tuple::make(es); });
      }
      expect(")");
      return e;
    }
    if (t.is("{")) return block(false);
    if (t.kind != Tok::Ident) fail("an expression");
    const std::string name = t.text;
    if (name == "true" || name == "false") {
      next();
      return build(p, [&] { return Literal::make(name == "true" ? 1.0 : 0.0, ElemType::Bool); });
    }
    if (name == "pi") {
      next();
      return build(p, [&] { return Literal::make_flexible(std::numbers::pi); });
    }
    if (name == "select" && peek(1).is("(")) {
      next();
      auto args = call_args();
      if (args.size() != 3) throw Error(p, "select takes 3 arguments (cond, then, else)");
      return build(p, [&] { return Select::make(args[0], args[1], args[2]); });
    }
    if (name == "nz" && peek(1).is("(")) {
      next();
      auto args = call_args();
      if (args.empty()) throw Error(p, "nz takes a sparse tensor and its indices");
      std::vector<Expr> idx(args.begin() + 1, args.end());
      return build(p, [&] { return Nz::make(args[0], idx); });
    }
    if (name == "loop" && peek(1).is("[")) return loop_expr();
    if (auto it = prim_table().find(name); it != prim_table().end() && peek(1).is("(")) {
      next();
      auto args = call_args();
      PrimOp op = it->second;
      return build(p, [&] { return Prim::make(op, args); });
    }
    if (auto it = functions_.find(name); it != functions_.end() && peek(1).is("(")) {
      note_call(name, p);
      next();
      auto args = call_args();
      return build(p, [&] { return Call::make(it->second, args); });
    }
    if (is_keyword(name)) fail("an expression");
    next();
    Expr v = lookup(name);
    if (!v.defined()) {
      if (implicit_sizes_ok_) {  // a size implied by a parameter dimension
        v = Var::make(name, Type::scalar(ElemType::I64));
        at_pos(v, p);
        scopes_.front()[name] = v;
        bound_at_[name] = p;
        implied_sizes_.emplace_back(name, v);
        return v;
      }
      if (peek().is("("))
        throw Error(p, "unknown function `" + name + "` (functions must be defined before use)");
      throw Error(p, "unknown name `" + name + "`");
    }
    at_pos(v, p);
    return v;
  }

  Expr loop_expr() {
    SourcePos p = next().pos;
    Domain d = domain(false);
    // The initial values are outside the loop: they cannot see the index or the state.
    expect("(");
    std::vector<std::pair<std::string, SourcePos>> names;
    std::vector<Expr> inits;
    do {
      SourcePos np = peek().pos;
      names.emplace_back(expect_name("a loop state name"), np);
      expect("=");
      Expr init = expr();
      if (init->flexible) init = coerce_flexible(init, ElemType::F64);
      inits.push_back(init);
    } while (accept(","));
    expect(")");
    std::vector<Expr> state;
    for (std::size_t k = 0; k < names.size(); ++k)
      state.push_back(bind(names[k].first, inits[k]->type, names[k].second));
    Expr body = block(true);
    scopes_.pop_back();
    return build(p, [&] { return Loop::make(d, state, inits, body); });
  }

  std::vector<Token> toks_;
  std::size_t pos_ = 0;
  std::string file_;
  int nesting_ = 0;  // see kMaxNesting
  std::vector<std::map<std::string, Expr>> scopes_;
  // The interpreter and the strategies recurse once per call: a chain of 20,000 helpers
  // overflowed the stack (an audit finding). Out of line: primary() is on the recursion of
  // every nesting level, and the message's temporaries would grow its frame (under ASan,
  // 1000 levels then overflowed the stack).
  [[gnu::noinline]] void note_call(const std::string& callee, const SourcePos& at) {
    call_depth_ = std::max(call_depth_, call_depths_[callee] + 1);
    if (call_depth_ > kMaxCallDepth)
      throw Error(at, "calls nested more than " + std::to_string(kMaxCallDepth) +
                          " deep (a helper calling a helper ...): flatten the chain");
  }
  std::map<std::string, FunctionPtr> functions_;
  static constexpr int kMaxCallDepth = 500;
  std::map<std::string, int> call_depths_;     // the deepest chain of calls below each function
  int call_depth_ = 0;                         // ... below the function being parsed
  std::map<std::string, SourcePos> bound_at_;  // where each name in scope was bound
  bool in_params_ = false;
  bool implicit_sizes_ok_ = false;
  std::vector<std::pair<std::string, Expr>> implied_sizes_;
};

}  // namespace

Module parse_module(std::string_view source, const std::string& file) {
  Parser p(lex(source, file, Context::current().new_source_id()), file);
  return p.module();
}

Module parse_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error("cannot open program file `" + path + "`");
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_module(ss.str(), path);
}

Expr parse_expr(std::string_view source, const std::vector<Expr>& scope, const std::string& file) {
  Parser p(lex(source, file, Context::current().new_source_id()), file);
  return p.standalone_expr(scope);
}

Type parse_type(std::string_view source, const std::vector<Expr>& scope, const std::string& file) {
  Parser p(lex(source, file, Context::current().new_source_id()), file);
  return p.standalone_type(scope);
}

}  // namespace adlab::ir
