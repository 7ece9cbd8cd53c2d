// Prints IR as `.adl` text. Binders (gen, sum, ...) extend to the end of their expression, so
// they are parenthesised wherever something follows them; same-precedence right operands are
// parenthesised so the tree reads back unchanged.
#include "ir/syntax/printer.h"

#include <charconv>
#include <cmath>
#include <sstream>

#include "ir/visitor.h"

namespace adlab::ir {

namespace {

// Binding strength, loosest first (SYNTAX.md "Precedence").
enum Prec : int {
  kBinder = 0,
  kOr = 1,
  kAnd = 2,
  kCmp = 3,
  kAdd = 4,
  kMul = 5,
  kPrefix = 6,
  kAtom = 7
};

int binary_prec(BinaryOp op) {
  switch (op) {
    case BinaryOp::Or:
      return kOr;
    case BinaryOp::And:
      return kAnd;
    case BinaryOp::Add:
    case BinaryOp::Sub:
      return kAdd;
    case BinaryOp::Mul:
    case BinaryOp::Div:
    case BinaryOp::Mod:
      return kMul;
    default:
      return kCmp;
  }
}

int prec_of(Expr e) {
  switch (e->kind) {
    case NodeKind::Binary:
      return binary_prec(e.as<Binary>()->op);
    case NodeKind::Unary:
      return kPrefix;
    case NodeKind::Literal:
      return e.as<Literal>()->value < 0 ? kPrefix : kAtom;
    case NodeKind::Iverson:
      return kPrefix;
    case NodeKind::Gen:
    case NodeKind::Reduce:
    case NodeKind::Scan:
    case NodeKind::Exists:
    case NodeKind::Scatter:
      return kBinder;
    default:
      return kAtom;  // names, calls, accesses, tuples, blocks, loops, select
  }
}

class Printer : public StrictVisitor<void> {
 public:
  Printer(std::ostream& os, int indent) : os_(os), indent_(indent) {}

  // Prints e so that it binds at least as tightly as `min_prec`.
  void print(Expr e, int min_prec) {
    if (prec_of(e) < min_prec) {
      os_ << "(";
      visit(e);
      os_ << ")";
    } else {
      visit(e);
    }
  }
  void print(Expr e) { print(e, kBinder); }

  void print_list(const std::vector<Expr>& es) {
    for (std::size_t k = 0; k < es.size(); ++k) {
      if (k) os_ << ", ";
      print(es[k]);
    }
  }

  void print_domain(const Domain& d) {
    os_ << "[";
    if (d.is_stored()) {
      os_ << "(";
      print_list(d.vars);
      os_ << ") in ";
      print(d.source, kAtom);
      if (!d.prefix.empty()) {
        os_ << "[";
        print_list(d.prefix);
        os_ << "]";
      }
    } else {
      for (std::size_t k = 0; k < d.vars.size(); ++k) {
        if (k) os_ << ", ";
        os_ << var_name(d.vars[k]) << " < ";
        print(d.bounds[k], kAdd);
      }
    }
    os_ << "]";
  }

  void newline() { os_ << "\n" << std::string(static_cast<std::size_t>(indent_) * 2, ' '); }

  // Prints the statements of a let chain, one per line, and returns its final body.
  Expr print_lets(Expr e) {
    while (auto* l = e.as<Let>()) {
      newline();
      print_let(l->vars, l->value);
      e = l->body;
    }
    return e;
  }

  void print_let(const std::vector<Expr>& vars, Expr value) {
    os_ << "let ";
    if (vars.size() == 1) {
      os_ << var_name(vars[0]);
    } else {
      os_ << "(";
      for (std::size_t k = 0; k < vars.size(); ++k) os_ << (k ? ", " : "") << var_name(vars[k]);
      os_ << ")";
    }
    os_ << " = ";
    print(value);
  }

 protected:
  void visit_node(const Literal& n, Expr) override {
    if (n.type.elem == ElemType::Bool)
      os_ << (n.value != 0 ? "true" : "false");
    else
      os_ << number_str(n.value);
  }
  void visit_node(const Var& n, Expr) override { os_ << n.name; }
  void visit_node(const Unary& n, Expr) override {
    os_ << op_name(n.op);
    // "- -x" and "-(-2)": keep a space or parens so the text reads back as written. A space, not
    // parens, before a prefix operator: parens count twice in the parser's nesting limit, so
    // 600 minus signs printed as -(-(...)) did not read back (an audit finding).
    if (n.op == UnaryOp::Neg && n.a.as<Unary>()) {
      os_ << " ";
      print(n.a, kPrefix);
    } else if (n.op == UnaryOp::Neg && n.a.as<Literal>() && n.a.as<Literal>()->value < 0) {
      os_ << "(";
      visit(n.a);
      os_ << ")";
    } else {
      print(n.a, kPrefix);
    }
  }
  void visit_node(const Binary& n, Expr) override {
    int p = binary_prec(n.op);
    print(n.a, p == kCmp ? kCmp + 1 : p);
    os_ << " " << op_name(n.op) << " ";
    print(n.b, p + 1);
  }
  void visit_node(const Prim& n, Expr) override {
    os_ << op_name(n.op) << "(";
    print_list(n.args);
    os_ << ")";
  }
  void visit_node(const Select& n, Expr) override {
    os_ << "select(";
    print_list({n.cond, n.then_value, n.else_value});
    os_ << ")";
  }
  void visit_node(const Iverson& n, Expr) override {
    os_ << "[";
    print(n.pred);
    os_ << "] * ";
    print(n.body, kPrefix);
  }
  void visit_node(const Exists& n, Expr) override {
    os_ << "exists";
    print_domain(n.dom);
    os_ << " ";
    print(n.pred);
  }
  void visit_node(const Nz& n, Expr) override {
    os_ << "nz(";
    print(n.tensor);
    if (!n.indices.empty()) os_ << ", ";
    print_list(n.indices);
    os_ << ")";
  }
  void visit_node(const Access& n, Expr) override {
    print(n.tensor, kAtom);
    os_ << "[";
    print_list(n.indices);
    os_ << "]";
  }
  void visit_node(const Gen& n, Expr) override {
    os_ << "gen";
    print_domain(n.dom);
    os_ << " ";
    print(n.body);
  }
  void visit_node(const Reduce& n, Expr) override {
    os_ << (n.op == ReduceOp::Sum ? "sum" : op_name(n.op));
    print_domain(n.dom);
    os_ << " ";
    print(n.body);
  }
  void visit_node(const Scan& n, Expr) override {
    os_ << "scan";
    print_domain(n.dom);
    os_ << " (" << op_name(n.op) << ") ";
    print(n.body);
  }
  void visit_node(const Loop& n, Expr) override {
    os_ << "loop";
    print_domain(n.dom);
    os_ << " (";
    for (std::size_t k = 0; k < n.state.size(); ++k) {
      if (k) os_ << ", ";
      os_ << var_name(n.state[k]) << " = ";
      print(n.init[k]);
    }
    os_ << ") {";
    ++indent_;
    Expr last = print_lets(n.body);
    newline();
    os_ << "next ";
    print(last);
    --indent_;
    newline();
    os_ << "}";
  }
  void visit_node(const Scatter& n, Expr) override {
    os_ << "scatter";
    print_domain(n.dom);
    os_ << " to " << type_str(n.type) << " at (";
    print_list(n.at);
    os_ << ") add ";
    print(n.value);
  }
  void visit_node(const Let&, Expr self) override {
    os_ << "{";
    ++indent_;
    Expr last = print_lets(self);
    newline();
    print(last);
    --indent_;
    newline();
    os_ << "}";
  }
  void visit_node(const Tuple& n, Expr) override {
    os_ << "(";
    print_list(n.elems);
    os_ << ")";
  }
  void visit_node(const Proj& n, Expr) override {
    print(n.tuple, kAtom);
    os_ << "." << n.index;
  }
  void visit_node(const Call& n, Expr) override {
    os_ << n.callee->name << "(";
    print_list(n.args);
    os_ << ")";
  }

 private:
  std::ostream& os_;
  int indent_;
};

}  // namespace

std::string number_str(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  if (v == 0 && std::signbit(v)) return "-0.0";  // 1 / -0.0 is -inf: the sign must survive
  if (v == std::floor(v) && std::fabs(v) < 1e15) {
    std::ostringstream os;
    os << static_cast<long long>(v);
    return os.str();
  }
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, r.ptr);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

std::string type_str(const Type& t) {
  std::string s;
  if (t.is_tuple()) {
    s = "(";
    for (std::size_t k = 0; k < t.fields.size(); ++k) s += (k ? ", " : "") + type_str(t.fields[k]);
    s += ")";
  } else {
    s = elem_name(t.elem);
  }
  if (!t.dims.empty()) {
    s += "[";
    for (std::size_t k = 0; k < t.dims.size(); ++k) s += (k ? ", " : "") + expr_str(t.dims[k]);
    s += "]";
  }
  if (t.storage != Storage::Dense) s += std::string(" @") + storage_name(t.storage);
  return s;
}

std::string expr_str(Expr e) {
  if (!e.defined()) return "<null>";
  std::ostringstream os;
  Printer p(os, 0);
  p.print(e);
  return os.str();
}

void print_function(std::ostream& os, const Function& f) {
  os << "func " << f.name;
  if (!f.declared_sizes.empty()) {
    os << "[";
    for (std::size_t k = 0; k < f.declared_sizes.size(); ++k)
      os << (k ? ", " : "") << var_name(f.declared_sizes[k]);
    os << "]";
  }
  os << "(";
  for (std::size_t k = 0; k < f.params.size(); ++k)
    os << (k ? ", " : "") << var_name(f.params[k]) << ": " << type_str(f.params[k]->type);
  os << ") -> " << type_str(f.result_type) << " {";
  Printer p(os, 1);
  for (const auto& s : f.stmts) {
    p.newline();
    p.print_let(s.vars, s.value);
  }
  p.newline();
  os << "return ";
  if (f.results.size() == 1) {
    p.print(f.results[0]);
  } else {
    os << "(";
    p.print_list(f.results);
    os << ")";
  }
  os << "\n}\n";
}

std::string function_str(const Function& f) {
  std::ostringstream os;
  print_function(os, f);
  return os.str();
}

void print_module(std::ostream& os, const Module& m) {
  for (std::size_t k = 0; k < m.functions.size(); ++k) {
    if (k) os << "\n";
    print_function(os, *m.functions[k]);
  }
}

std::string module_str(const Module& m) {
  std::ostringstream os;
  print_module(os, m);
  return os.str();
}

}  // namespace adlab::ir
