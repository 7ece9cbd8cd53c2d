// The emitter behind cpu::generate: C++ text for expressions, domains and functions.
#pragma once

#include <map>
#include <set>
#include <sstream>
#include <string>
#include <utility>
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
  std::string origin;        // the IR statement being emitted (for compiler errors)
  SourcePos function_start;  // of the function being emitted (Site::function_start)

  // ---- types ----
  static std::string ctype(const ir::Type& t);
  static std::string elem_type(ir::ElemType e) { return ir::is_float(e) ? "T" : "i64"; }

  // ---- expressions (codegen.cpp) ----
  Scalar scalar(Expr e);
  std::string index(Expr e) { return scalar(e).v; }
  std::string value(Expr e);        // any type: a C++ expression or a variable name (a Tensor)
  std::string value_any(Expr e);    // value(e), or a Fixed / fixed pointer where it is one
  std::string moved_value(Expr e);  // value(e), moved when it is a fresh tensor
  // Each operand bound to a `const` local (a reference when `by_reference`), in order; the
  // locals joined by ", " (the initialiser of a tuple, the arguments of a call).
  std::string operand_list(const std::vector<Expr>& operands, const std::string& hint,
                           bool by_reference);
  std::string bound_dim(Expr d, Expr at, bool exact);  // a dimension's value, checked
  std::string access_full(const ir::Access& a, Expr self, const std::string& t);
  std::string tensor_operand(Expr te, bool allow_fixed = false);
  void bind(const std::vector<Expr>& vars, const std::string& v, const ir::Type& t, bool mut);
  // bind() for a let: also records the shape of a let-bound gen (its bounds) for in_range.
  void bind_let(const std::vector<Expr>& vars, Expr value);

  // ---- provable index ranges (bounds checks the loop bounds make redundant) ----
  // Whether `idx` is in [0, dim k of `tensor`) for every point of the enclosing loops.
  bool in_range(Expr idx, Expr tensor, std::size_t k) const;
  bool invariant(Expr e) const;                   // uses only literals and the function's sizes
  std::map<const ir::ExprNode*, Expr> var_bound;  // domain variable v: 0 <= v < bound
  std::map<const ir::ExprNode*, std::vector<Expr>> known_dims;  // a tensor variable's dims
  std::set<const ir::ExprNode*> sizes_;                         // the current function's sizes
  // A dense tensor variable's entries and inner dimensions as locals (`x_p`, `x_s1`): reads
  // through them stay contiguous in vectorised loops (a member load made GCC gather).
  void hoist_view(const std::string& n, const ir::Type& t);
  std::map<std::string, std::string> view_ptr;
  std::map<std::string, std::string> let_source;  // let name -> the fresh tensor it names
  std::string name_of(Expr var);

  // ---- i64 overflow (codegen_int_ranges.cpp, decision 181) ----
  struct IntRange {
    std::int64_t lo, hi;
  };
  // Bounds on e's i64 value wherever it is evaluated (the whole i64 range when unknown).
  IntRange int_range(Expr e) const;
  // Whether the i64 + - * b provably fits in i64, so that it needs no check.
  bool fits_i64(const ir::Binary& b) const;

  // ---- tensors of literal shape (codegen_fixed.cpp, decisions 127-131) ----
  // A value held as `adlab_rt::Fixed<E, N>` (ptr: `name.v`) or as a pointer to N entries (a
  // parameter, a row of a dense tensor): its C++ element type, literal shape and entries.
  struct FixedRef {
    std::string elem;
    std::vector<std::int64_t> dims;
    std::string ptr;
    std::int64_t numel() const;
  };
  static constexpr std::int64_t kFixedCap = 64;  // entries; larger tensors keep a header
  // Whether t is dense, untupled, of literal dimensions >= 1 and at most kFixedCap entries.
  static bool fixed_shape(const ir::Type& t, std::vector<std::int64_t>& dims);
  static std::string fixed_ctype(const std::string& elem, const std::vector<std::int64_t>& dims);
  const FixedRef* fixed_of(const std::string& v) const;
  std::string declare_fixed(const std::string& hint, const std::string& elem,
                            const std::vector<std::int64_t>& dims);
  std::string as_tensor(const std::string& v);  // a Fixed or pointer copied into a Tensor
  // Whether 0 <= idx < n at every point of the enclosing loops (n a literal).
  bool below_literal(Expr idx, std::int64_t n) const;
  std::string fixed_gen(const ir::Gen& g, Expr self, const std::vector<std::int64_t>& dims);
  std::string fixed_select(const ir::Select& s, Expr self, const std::vector<std::int64_t>& dims);
  std::string fixed_row(const ir::Access& a, Expr self, const std::vector<std::int64_t>& dims);
  std::pair<std::string, bool> fixed_call_arg(Expr arg, const ir::Function& callee, std::size_t k);
  std::string fixed_call_check(const std::string& t, const ir::Function& callee, std::size_t k);
  std::string fixed_offset(const FixedRef& f, const std::vector<std::string>& keys) const;
  // Copies v (any representation) into dst, checked against dims unless it is a Fixed of them.
  void fixed_assign(const std::string& dst, const std::string& v, const std::string& elem,
                    const std::vector<std::int64_t>& dims, int site);
  std::map<std::string, FixedRef> fixed_;
  std::map<const ir::Function*, std::vector<std::vector<std::int64_t>>> fixed_params_;
  std::map<const ir::Function*, std::vector<std::int64_t>> fixed_result_;

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
  void simd_reduction(const std::string& marker, std::size_t body_from, const std::string& vars,
                      const std::string& cond);

  std::map<const ir::ExprNode*, std::string> names;  // in-scope C++ names of IR variables
  std::map<const ir::Function*, std::string> fn_names;
  // The entry's dense f64 results that are a gen, by node: written into adlab's buffer k.
  std::map<const ir::ExprNode*, int> result_gens;
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
