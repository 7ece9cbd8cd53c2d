// The emitter behind cpu::generate: C++ text for expressions, domains and functions.
#pragma once

#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "backends/cpu/codegen.h"

namespace adlab::backends::cpu {

// A scalar's C++ expression and whether it is a strong zero (DESIGN 2.3), as a C++ bool
// expression ("false" when it cannot be one).
struct Scalar {
  std::string v;
  std::string z = "false";
};

class Emitter {
 public:
  Unit unit;

  void function(const ir::Function& f, bool entry);
  std::string fn_name(const ir::Function& f);

  // ---- output ----
  void line(const std::string& s);
  std::string finish();  // the unit's source
  std::string fresh(const std::string& hint);
  int site(Expr at, std::string text);
  std::string origin;  // the IR statement being emitted (for compiler errors)

  // ---- types ----
  static std::string ctype(const ir::Type& t);
  static std::string elem_type(ir::ElemType e) { return ir::is_float(e) ? "T" : "i64"; }

  // ---- expressions (codegen.cpp) ----
  Scalar scalar(Expr e);
  std::string index(Expr e) { return scalar(e).v; }
  std::string value(Expr e);  // any type: a C++ expression or a variable name
  std::string bound_dim(Expr d, Expr at, bool exact);  // a dimension's value, checked
  std::string access_full(const ir::Access& a, Expr self, const std::string& t);
  std::string tensor_operand(Expr te);
  void bind(const std::vector<Expr>& vars, const std::string& v, const ir::Type& t, bool mut);
  std::string name_of(Expr var);

  // ---- tensors and domains (codegen_tensors.cpp) ----
  std::string gen(const ir::Gen& g, Expr self);
  Scalar reduce(const ir::Reduce& r, Expr self);
  std::string scan(const ir::Scan& s, Expr self);
  std::string loop(const ir::Loop& l, Expr self);
  std::string scatter(const ir::Scatter& s, Expr self);
  std::string zero_value(const ir::Type& t, Expr at);
  std::string index_value(Expr tensor_expr, const std::string& v, const ir::Type& t, Expr self,
                          const std::vector<std::string>& keys, const std::vector<Expr>& idx);
  // Opens loops over a domain (binding its variables); close_domain closes them.
  // `guard`: a bracket around the body; its affine conjuncts narrow the loop bounds (the skipped
  // points are strong zeros; the body still tests the whole bracket).
  void open_domain(const ir::Domain& d, Expr owner, Expr guard = Expr());
  // [lo, hi) adjustments for var k from the conjuncts of guard that bound it.
  void narrow(const ir::Domain& d, std::size_t k, Expr guard, std::string& lo, std::string& hi);
  void close_domain(const ir::Domain& d);
  bool try_contraction(const ir::Gen& g, Expr self, std::string& out);

  std::map<const ir::ExprNode*, std::string> names;  // in-scope C++ names of IR variables
  std::map<const ir::Function*, std::string> fn_names;
  std::set<std::string> movable;  // fresh non-const tensors nothing else refers to
  bool contraction_off_ = false;  // emitting the loop fallback of a contraction
  int parallel_depth = 0;         // > 0 inside loops: only the outermost gen/sum runs in parallel
  std::uint32_t source = 0;

 private:
  std::ostringstream body_;
  int indent_ = 0;
  int counter_ = 0;
  int lines_ = 0;
};

std::string cpp_string(const std::string& s);
std::string float_literal(double v);

}  // namespace adlab::backends::cpu
