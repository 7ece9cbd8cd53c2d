// The IR as Z3 terms (DESIGN 4.1): index arithmetic as integers, predicates (with `exists`) as
// booleans, scalars as reals (or IEEE-754 doubles), primitives as uninterpreted functions,
// tensors as functions from indices, and ⊥ as an explicit definedness condition beside every
// value. One encoding serves the predicate service (ir/logic), rule proofs and translation
// validation (checker/smt).
#pragma once

#include <z3++.h>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/error.h"
#include "ir/expr.h"
#include "ir/function.h"

namespace adlab::ir::logic {

// How floating-point scalars are modelled: exact reals, or IEEE-754 binary64 with
// round-to-nearest-even.
enum class Arith { Real, Ieee };

struct SymTensor;

// An encoded value: a scalar (value and definedness), a tensor, or a tuple of values.
struct SymValue {
  std::vector<z3::expr> vd;  // scalar: {value, defined}; empty for tensors and tuples
  std::shared_ptr<const SymTensor> tensor;
  std::vector<SymValue> fields;

  bool is_scalar() const { return !vd.empty(); }
  const z3::expr& value() const { return vd.at(0); }
  const z3::expr& defined() const { return vd.at(1); }
  static SymValue scalar(z3::expr v, z3::expr def) { return SymValue{{v, def}, nullptr, {}}; }
};

// A tensor as a function from in-range indices to elements, with its dimensions, stored-entry
// predicate (sparse tensors) and whole-tensor definedness (strict: every element defined).
struct SymTensor {
  std::vector<z3::expr> dims;
  Type type;
  std::function<SymValue(const std::vector<z3::expr>&)> at;
  std::function<z3::expr(const std::vector<z3::expr>&)> stored;  // empty: dense
  z3::expr defined;
};

// Thrown when a construct has no encoding under the current options (a symbolic bound where
// only concrete bounds can be unrolled, an IEEE conversion, ...). Callers turn it into UNKNOWN
// or into a bounded check.
class Unencodable : public Error {
 public:
  using Error::Error;
};
// A `sum`/`max`/`loop`/... whose bound is not a number: the caller may retry at concrete sizes.
class SymbolicBound : public Unencodable {
 public:
  using Unencodable::Unencodable;
};

class Encoder {
 public:
  Encoder(z3::context& z, Arith arith);

  z3::context& ctx() { return z_; }
  Arith arith() const { return arith_; }
  z3::sort scalar_sort();
  z3::expr number(double v);  // a scalar constant of the scalar sort
  z3::expr zero() { return number(0); }
  z3::expr fresh_int(const std::string& base);

  // Variables: bound by the caller or by the encoded binders. An unbound variable goes to
  // `on_free_var` (pattern variables, parameters), else it is an error.
  void bind(Expr var, SymValue v);
  void unbind(Expr var);
  const SymValue* lookup(Expr var) const;
  std::function<SymValue(Expr var)> on_free_var;

  SymValue encode(Expr e);
  // Encodes a function's results given its parameters (bound by the caller or on_free_var).
  std::vector<SymValue> encode_function(const Function& f);

  // Single-point sum lemma (paper 000 errata 10, SE): with a symbolic bound, a sum whose body is
  // [i == a && q] * e (i not free in a) is encoded as [0 <= a < n && q{i:=a}] * e{i:=a}.
  bool use_sum_lemmas = true;
  // Tensors bound by lets and statements whose dimensions are numbers are evaluated once into a
  // table of elements (translation validation: chains of statements stay linear in size).
  bool materialise = false;
  // Largest number of terms an unrolled sum, max, exists, loop or scan may have.
  std::int64_t unroll_limit = 4096;
  // The fresh index at which values_agree last compared two tensors (for counterexamples).
  std::vector<z3::expr> last_compare_index;
  // Lemmas used so far (reported with a proof), e.g. "single-point sum".
  std::vector<std::string> lemmas_used;

  // A symbolic value of `type` named `name`: a constant for scalars, an uninterpreted function of
  // the indices (after `args`) for tensors, with a stored-entry predicate for sparse ones.
  // Dimensions are encoded in the current scope. Definedness: true.
  SymValue symbol(const std::string& name, const Type& type,
                  const std::vector<z3::expr>& args = {});
  // Facts the symbols carry (sizes are non-negative, absent sparse entries are zero): assumed by
  // every query built on this encoder.
  std::vector<z3::expr> assumptions;
  // The handler for free variables that makes each one a symbol named after it, created once per
  // variable (no sign is assumed for integers: a free i64 may be data).
  void symbols_for_free_vars();

  // Formulas: value equality in the model (IEEE: same datum, so NaN == NaN and -0 != +0).
  z3::expr same_value(const z3::expr& a, const z3::expr& b);

  // An uninterpreted primitive `name` over the scalar sort.
  z3::func_decl primitive(const std::string& name, unsigned arity);

 private:
  SymValue encode_node(Expr e);
  SymValue materialised(const SymValue& v);
  SymValue access(const SymValue& t, const std::vector<SymValue>& idx, Expr where);
  SymValue strong_zero(const z3::expr& pred, const SymValue& body, const Type& type);
  SymValue zero_of(const Type& t);
  std::int64_t concrete(const z3::expr& e, Expr where, const char* what);
  // Every point of a rectangular or stored-entry domain (concrete bounds), calling `body` with
  // the index variables bound; `guard` is the point's membership (stored entries) or true.
  void for_each_point(const Domain& d, const std::function<void(const z3::expr& guard)>& body,
                      Expr where);
  SymValue reduce(const Reduce& r, Expr self);
  SymValue sum_lemma(const Reduce& r, Expr self);
  z3::expr binary_scalar(BinaryOp op, const z3::expr& a, const z3::expr& b);
  SymValue prim(const Prim& p, Expr self);
  z3::expr all_defined(const std::vector<SymValue>& vs);

  z3::context& z_;
  Arith arith_;
  std::unordered_map<Expr, std::vector<SymValue>, ExprHash> env_;  // a stack per variable
  std::map<std::string, z3::func_decl> prims_;
  std::unordered_map<Expr, SymValue, ExprHash> symbols_;
  int fresh_ = 0;
};

// The definedness of a whole value (scalars: their flag; tensors: every element; tuples: all).
z3::expr defined_of(const SymValue& v);
// The formula "a and b are the same value" for values of the same type: definedness agrees
// (claim equiv) or only left-definedness implies right-definedness (refines), and where the left
// is defined the values agree. Tensors compare at fresh index constants in range (valid for all
// indices when the formula is proved).
z3::expr values_agree(Encoder& enc, const SymValue& a, const SymValue& b, bool refines);

}  // namespace adlab::ir::logic
