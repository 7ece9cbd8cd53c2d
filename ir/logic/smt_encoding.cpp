#include "ir/logic/smt_encoding.h"

#include <cmath>
#include <cstdlib>
#include <optional>

#include "ir/context.h"
#include "ir/logic/predicates.h"
#include "ir/substitute.h"
#include "ir/syntax/printer.h"

namespace adlab::ir::logic {

namespace {

SymValue with_def(const SymValue& v, const z3::expr& extra) {
  if (v.is_scalar()) return SymValue::scalar(v.value(), v.defined() && extra);
  if (v.tensor) {
    auto t = std::make_shared<SymTensor>(*v.tensor);
    t->defined = t->defined && extra;
    return SymValue{{}, t, {}};
  }
  SymValue r;
  for (const auto& f : v.fields) r.fields.push_back(with_def(f, extra));
  return r;
}

bool mentions(const z3::expr& e, const z3::expr& c) {
  if (z3::eq(e, c)) return true;
  if (!e.is_app()) return e.is_quantifier() && mentions(e.body(), c);
  for (unsigned k = 0; k < e.num_args(); ++k)
    if (mentions(e.arg(k), c)) return true;
  return false;
}

z3::expr real_to_int(const z3::expr& x) {
  return z3::expr(x.ctx(), Z3_mk_real2int(x.ctx(), x));
}

std::string where_str(Expr e) {
  SourcePos p = pos_of(e);
  return (p.valid() ? p.str() + ": " : std::string()) + "`" + expr_str(e) + "`";
}

}  // namespace

z3::expr defined_of(const SymValue& v) {
  if (v.is_scalar()) return v.defined();
  if (v.tensor) return v.tensor->defined;
  z3::expr d = v.fields.empty() ? throw Error("an empty value") : defined_of(v.fields[0]);
  for (std::size_t k = 1; k < v.fields.size(); ++k) d = d && defined_of(v.fields[k]);
  return d;
}

Encoder::Encoder(z3::context& z, Arith arith) : z_(z), arith_(arith) {
  if (arith_ == Arith::Ieee) z_.set_rounding_mode(z3::RNE);
}

z3::sort Encoder::scalar_sort() {
  return arith_ == Arith::Real ? z_.real_sort() : z_.fpa_sort(11, 53);
}

z3::expr Encoder::number(double v) {
  if (arith_ == Arith::Ieee) return z_.fpa_val(v);
  if (!std::isfinite(v)) throw Unencodable("the constant " + std::to_string(v) + " is not real");
  // Exact: v = m * 2^e with an integer mantissa.
  int e = 0;
  double m = std::frexp(v, &e);
  auto mant = static_cast<std::int64_t>(std::ldexp(m, 53));
  e -= 53;
  z3::expr r = z_.real_val(mant);
  z3::expr two = z_.real_val(2);
  z3::expr scale = z_.real_val(1);
  for (int k = 0; k < std::abs(e); ++k) scale = scale * two;
  r = e >= 0 ? r * scale : r / scale;
  return r.simplify();
}

z3::expr Encoder::fresh_int(const std::string& base) {
  return z_.int_const((base + "!" + std::to_string(fresh_++)).c_str());
}

void Encoder::bind(Expr var, SymValue v) {
  env_[var].push_back(std::move(v));
}

void Encoder::unbind(Expr var) {
  auto it = env_.find(var);
  if (it == env_.end() || it->second.empty()) throw InternalError("unbind of an unbound variable");
  it->second.pop_back();
  if (it->second.empty()) env_.erase(it);
}

const SymValue* Encoder::lookup(Expr var) const {
  auto it = env_.find(var);
  return it == env_.end() || it->second.empty() ? nullptr : &it->second.back();
}

z3::func_decl Encoder::primitive(const std::string& name, unsigned arity) {
  auto it = prims_.find(name);
  if (it != prims_.end()) return it->second;
  z3::sort_vector dom(z_);
  for (unsigned k = 0; k < arity; ++k) dom.push_back(scalar_sort());
  auto f = z_.function(name.c_str(), dom, scalar_sort());
  prims_.emplace(name, f);
  return f;
}

z3::sort sort_of_elem(z3::context& z, Encoder& enc, ElemType e) {
  return e == ElemType::I64    ? z.int_sort()
         : e == ElemType::Bool ? z.bool_sort()
                               : enc.scalar_sort();
}

SymValue Encoder::symbol(const std::string& name, const Type& type,
                         const std::vector<z3::expr>& args) {
  if (type.is_tuple() && type.dims.empty()) {
    SymValue r;
    for (std::size_t k = 0; k < type.fields.size(); ++k)
      r.fields.push_back(symbol(name + "." + std::to_string(k), type.fields[k], args));
    return r;
  }
  z3::sort elem = sort_of_elem(z_, *this, type.elem);
  if (type.dims.empty()) {
    if (args.empty()) return SymValue::scalar(z_.constant(name.c_str(), elem), z_.bool_val(true));
    z3::sort_vector dom(z_);
    z3::expr_vector xs(z_);
    for (const auto& a : args) {
      dom.push_back(a.get_sort());
      xs.push_back(a);
    }
    return SymValue::scalar(z_.function(name.c_str(), dom, elem)(xs), z_.bool_val(true));
  }
  if (type.is_tuple()) throw Unencodable("a tensor of tuples as a symbol (`" + name + "`)");
  auto t = std::make_shared<SymTensor>(SymTensor{{}, type, nullptr, nullptr, z_.bool_val(true)});
  for (const auto& d : type.dims) {
    t->dims.push_back(encode(d).value());
    assumptions.push_back(t->dims.back() >= 0);
  }
  z3::sort_vector dom(z_);
  for (const auto& a : args) dom.push_back(a.get_sort());
  for (std::size_t k = 0; k < type.dims.size(); ++k) dom.push_back(z_.int_sort());
  z3::func_decl f = z_.function(name.c_str(), dom, elem);
  bool sparse = type.storage != Storage::Dense;
  std::optional<z3::func_decl> nz;
  if (sparse) nz = z_.function(("nz_" + name).c_str(), dom, z_.bool_sort());
  auto apply = [args](const z3::func_decl& fn, const std::vector<z3::expr>& idx) {
    z3::expr_vector xs(fn.ctx());
    for (const auto& a : args) xs.push_back(a);
    for (const auto& i : idx) xs.push_back(i);
    return fn(xs);
  };
  z3::expr zero_elem = type.elem == ElemType::I64 ? z_.int_val(0) : zero();
  t->at = [this, f, nz, apply, zero_elem](const std::vector<z3::expr>& idx) {
    z3::expr v = apply(f, idx);
    if (nz) v = z3::ite(apply(*nz, idx), v, zero_elem);  // an absent entry is zero
    return SymValue::scalar(v, z_.bool_val(true));
  };
  if (nz) t->stored = [nz, apply](const std::vector<z3::expr>& idx) { return apply(*nz, idx); };
  return SymValue{{}, t, {}};
}

void Encoder::symbols_for_free_vars() {
  on_free_var = [this](Expr v) {
    auto it = symbols_.find(v);
    if (it != symbols_.end()) return it->second;
    // No sign is assumed: a free i64 may be a size, an index or data; callers state facts.
    SymValue s = symbol(var_name(v), v->type);
    symbols_.emplace(v, s);
    return s;
  };
}

z3::expr Encoder::same_value(const z3::expr& a, const z3::expr& b) {
  return a == b;  // SMT equality: for floating point it is identity of the datum
}

z3::expr Encoder::all_defined(const std::vector<SymValue>& vs) {
  z3::expr d = z_.bool_val(true);
  for (const auto& v : vs) d = d && defined_of(v);
  return d;
}

std::int64_t Encoder::concrete(const z3::expr& e, Expr where, const char* what) {
  z3::expr s = e.simplify();
  std::int64_t v = 0;
  if (!s.is_numeral() || !s.is_numeral_i64(v))
    throw SymbolicBound(std::string(what) + " bound of " + where_str(where) +
                        " is not a number: " + s.to_string());
  if (v > unroll_limit)
    throw SymbolicBound(std::string(what) + " of " + where_str(where) + " has " +
                        std::to_string(v) + " iterations, more than the unroll limit " +
                        std::to_string(unroll_limit));
  return v;
}

SymValue Encoder::zero_of(const Type& t) {
  if (t.is_tuple() && t.dims.empty()) {
    SymValue r;
    for (const auto& f : t.fields) r.fields.push_back(zero_of(f));
    return r;
  }
  z3::expr z = t.elem == ElemType::I64    ? z_.int_val(0)
               : t.elem == ElemType::Bool ? z_.bool_val(false)
                                          : zero();
  if (t.dims.empty()) return SymValue::scalar(z, z_.bool_val(true));
  auto tt = std::make_shared<SymTensor>(SymTensor{{}, t, nullptr, nullptr, z_.bool_val(true)});
  for (const auto& d : t.dims) tt->dims.push_back(encode(d).value());
  Type elem = t.element();
  tt->at = [this, elem](const std::vector<z3::expr>&) { return zero_of(elem); };
  return SymValue{{}, tt, {}};
}

SymValue Encoder::strong_zero(const z3::expr& pred, const SymValue& body, const Type& type) {
  if (body.is_scalar()) {
    // Over the reals [p] * e is the product of a 0/1 factor and e, so that sums of such terms
    // normalise as polynomials (Fubini and transposition identities become syntactic).
    if (arith_ == Arith::Real && body.value().is_real())
      return SymValue::scalar(z3::ite(pred, z_.real_val(1), z_.real_val(0)) * body.value(),
                              !pred || body.defined());
    return SymValue::scalar(z3::ite(pred, body.value(), zero_of(type.element()).value()),
                            !pred || body.defined());
  }
  if (body.tensor) {
    auto b = body.tensor;
    auto t = std::make_shared<SymTensor>(*b);
    Type elem = type.element();
    t->at = [this, b, pred, elem](const std::vector<z3::expr>& idx) {
      return strong_zero(pred, b->at(idx), elem);
    };
    if (b->stored)
      t->stored = [b, pred](const std::vector<z3::expr>& idx) { return pred && b->stored(idx); };
    t->defined = !pred || b->defined;
    return SymValue{{}, t, {}};
  }
  SymValue r;
  for (std::size_t k = 0; k < body.fields.size(); ++k)
    r.fields.push_back(strong_zero(pred, body.fields[k], type.fields.at(k)));
  return r;
}

SymValue Encoder::access(const SymValue& tv, const std::vector<SymValue>& idx, Expr where) {
  if (!tv.tensor) throw Unencodable("indexing a value that is not a tensor at " + where_str(where));
  auto t = tv.tensor;
  if (idx.size() > t->dims.size()) {  // a Gen of tensors: index the outer, then the element
    std::vector<SymValue> outer(idx.begin(),
                                idx.begin() + static_cast<std::ptrdiff_t>(t->dims.size()));
    std::vector<SymValue> inner(idx.begin() + static_cast<std::ptrdiff_t>(t->dims.size()),
                                idx.end());
    return access(access(tv, outer, where), inner, where);
  }
  z3::expr ok = t->defined;
  std::vector<z3::expr> at;
  for (std::size_t k = 0; k < idx.size(); ++k) {
    ok = ok && idx[k].defined() && idx[k].value() >= 0 && idx[k].value() < t->dims.at(k);
    at.push_back(idx[k].value());
  }
  if (idx.size() == t->dims.size()) return with_def(t->at(at), ok);
  // A prefix of the indices: the sub-tensor.
  auto sub = std::make_shared<SymTensor>(*t);
  sub->dims.assign(t->dims.begin() + static_cast<std::ptrdiff_t>(idx.size()), t->dims.end());
  sub->type = t->type.drop_dims(idx.size());
  sub->at = [t, at](const std::vector<z3::expr>& rest) {
    auto full = at;
    full.insert(full.end(), rest.begin(), rest.end());
    return t->at(full);
  };
  if (t->stored)
    sub->stored = [t, at](const std::vector<z3::expr>& rest) {
      auto full = at;
      full.insert(full.end(), rest.begin(), rest.end());
      return t->stored(full);
    };
  sub->defined = ok;
  return SymValue{{}, sub, {}};
}

void Encoder::for_each_point(const Domain& d,
                             const std::function<void(const z3::expr& guard)>& body, Expr where) {
  std::size_t count = 0;
  if (d.is_stored()) {
    SymValue src = encode(d.source);
    if (!src.tensor) throw Unencodable("stored-entry iteration over a non-tensor");
    auto t = src.tensor;
    std::vector<z3::expr> prefix;
    for (const auto& p : d.prefix) prefix.push_back(encode(p).value());
    std::vector<std::int64_t> dims;
    for (std::size_t k = prefix.size(); k < t->dims.size(); ++k)
      dims.push_back(concrete(t->dims[k], where, "the stored-entry iteration"));
    std::vector<std::int64_t> pt(dims.size(), 0);
    std::function<void(std::size_t)> rec = [&](std::size_t k) {
      if (k == dims.size()) {
        if (++count > static_cast<std::size_t>(unroll_limit))
          throw SymbolicBound("the iteration of " + where_str(where) + " is too large to unroll");
        std::vector<z3::expr> full = prefix;
        for (std::size_t j = 0; j < pt.size(); ++j) {
          full.push_back(z_.int_val(pt[j]));
          bind(d.vars[j], SymValue::scalar(z_.int_val(pt[j]), z_.bool_val(true)));
        }
        z3::expr guard = t->stored ? t->stored(full) : z_.bool_val(true);
        body(guard);
        for (std::size_t j = pt.size(); j-- > 0;) unbind(d.vars[j]);
        return;
      }
      for (pt[k] = 0; pt[k] < dims[k]; ++pt[k]) rec(k + 1);
    };
    rec(0);
    return;
  }
  std::function<void(std::size_t)> rec = [&](std::size_t k) {
    if (k == d.vars.size()) {
      if (++count > static_cast<std::size_t>(unroll_limit))
        throw SymbolicBound("the iteration of " + where_str(where) + " is too large to unroll");
      body(z_.bool_val(true));
      return;
    }
    std::int64_t n = concrete(encode(d.bounds[k]).value(), where, "the");
    for (std::int64_t i = 0; i < n; ++i) {
      bind(d.vars[k], SymValue::scalar(z_.int_val(i), z_.bool_val(true)));
      rec(k + 1);
      unbind(d.vars[k]);
    }
  };
  rec(0);
}

SymValue Encoder::sum_lemma(const Reduce& r, Expr self) {
  // paper 000 errata 10 (SE): Sum[i<n] [i = a && q] * e = [0 <= a < n && q{i:=a}] * e{i:=a}.
  if (r.dom.is_stored() || r.dom.vars.size() != 1) throw SymbolicBound("no lemma applies");
  auto* iv = r.body.as<Iverson>();
  if (!iv) throw SymbolicBound("no lemma applies");
  Expr i = r.dom.vars[0];
  std::vector<Expr> conj = conjuncts(iv->pred);
  for (std::size_t k = 0; k < conj.size(); ++k) {
    auto* eq = conj[k].as<Binary>();
    if (!eq || eq->op != BinaryOp::Eq) continue;
    Expr a;
    if (eq->a == i && !is_free_in(i, eq->b)) a = eq->b;
    if (eq->b == i && !is_free_in(i, eq->a)) a = eq->a;
    if (!a.defined()) continue;
    // a must not depend on i, also through symbols that depend on it implicitly.
    z3::expr probe = fresh_int("probe");
    bind(i, SymValue::scalar(probe, z_.bool_val(true)));
    SymValue ap = encode(a);
    unbind(i);
    if (mentions(ap.value(), probe) || mentions(ap.defined(), probe)) continue;
    SymValue av = encode(a), nv = encode(r.dom.bounds[0]);
    z3::expr guard = av.value() >= 0 && av.value() < nv.value();
    z3::expr def = av.defined() && nv.defined();
    // The body at i = a: i is bound (not substituted) so that symbols depending on it see it.
    bind(i, SymValue::scalar(av.value(), z_.bool_val(true)));
    for (std::size_t j = 0; j < conj.size(); ++j) {
      if (j == k) continue;
      SymValue q = encode(conj[j]);
      def = def && (!guard || q.defined());
      guard = guard && q.value();
    }
    SymValue e = encode(iv->body);
    unbind(i);
    // Every other point of the sum is a strong zero: there only the predicate is evaluated.
    z3::expr k0 = fresh_int("k");
    bind(i, SymValue::scalar(k0, z_.bool_val(true)));
    SymValue pk = encode(iv->pred);
    unbind(i);
    z3::expr in = k0 >= 0 && k0 < nv.value();
    def = def && z3::forall(k0, z3::implies(in, pk.defined()));
    lemmas_used.push_back("single-point sum (paper 000 errata 10, SE)");
    return SymValue::scalar(z3::ite(guard, e.value(), zero()), def && (!guard || e.defined()));
  }
  throw SymbolicBound("the bound of " + where_str(self) + " is symbolic and no lemma applies");
}

SymValue Encoder::reduce(const Reduce& r, Expr self) {
  try {
    if (r.op == ReduceOp::Sum) {
      z3::expr acc = zero(), def = z_.bool_val(true);
      for_each_point(
          r.dom,
          [&](const z3::expr& guard) {
            SymValue b = encode(r.body);
            acc = acc + z3::ite(guard, b.value(), zero());
            def = def && (!guard || b.defined());
          },
          self);
      return SymValue::scalar(acc.simplify(), def.simplify());
    }
    if (r.op == ReduceOp::Prod) {
      z3::expr acc = number(1), def = z_.bool_val(true);
      for_each_point(
          r.dom,
          [&](const z3::expr& guard) {
            SymValue b = encode(r.body);
            acc = acc * z3::ite(guard, b.value(), number(1));
            def = def && (!guard || b.defined());
          },
          self);
      return SymValue::scalar(acc, def);
    }
    // max/min: a running (any, best) pair; an empty max or min is an error (⊥).
    z3::expr any = z_.bool_val(false), best = zero(), def = z_.bool_val(true);
    for_each_point(
        r.dom,
        [&](const z3::expr& guard) {
          SymValue b = encode(r.body);
          z3::expr better = r.op == ReduceOp::Max ? b.value() > best : b.value() < best;
          best = z3::ite(guard && (!any || better), b.value(), best);
          any = any || guard;
          def = def && (!guard || b.defined());
        },
        self);
    return SymValue::scalar(best, def && any);
  } catch (const SymbolicBound&) {
    if (r.op != ReduceOp::Sum || !use_sum_lemmas) throw;
    return sum_lemma(r, self);
  }
}

z3::expr Encoder::binary_scalar(BinaryOp op, const z3::expr& a, const z3::expr& b) {
  bool fp = a.is_fpa();
  switch (op) {
    case BinaryOp::Add:
      return a + b;
    case BinaryOp::Sub:
      return a - b;
    case BinaryOp::Mul:
      return a * b;
    case BinaryOp::Div:
      return a / b;  // integers: Euclidean, which is floor division for the positive divisors
    case BinaryOp::Mod:
      return z3::mod(a, b);
    case BinaryOp::Lt:
      return a < b;
    case BinaryOp::Le:
      return a <= b;
    case BinaryOp::Gt:
      return a > b;
    case BinaryOp::Ge:
      return a >= b;
    case BinaryOp::Eq:
      return fp ? z3::fp_eq(a, b) : a == b;
    case BinaryOp::Ne:
      return fp ? !z3::fp_eq(a, b) : a != b;
    case BinaryOp::And:
      return a && b;
    case BinaryOp::Or:
      return a || b;
  }
  throw InternalError("binary_scalar");
}

SymValue Encoder::prim(const Prim& p, Expr self) {
  std::vector<SymValue> args;
  for (const auto& a : p.args) args.push_back(encode(a));
  z3::expr def = all_defined(args);
  const Type& at = p.args[0]->type;
  z3::expr x = args[0].value();
  bool ieee = arith_ == Arith::Ieee;
  auto uf = [&](const std::string& name) {
    z3::expr_vector xs(z_);
    for (const auto& a : args) xs.push_back(a.value());
    return primitive(name, static_cast<unsigned>(args.size()))(xs);
  };
  switch (p.op) {
    case PrimOp::ToF64:
    case PrimOp::ToF32: {
      z3::expr v = x;
      if (!is_float(at.elem)) {
        if (ieee) throw Unencodable("an i64 -> float conversion has no IEEE encoding here");
        v = z3::to_real(x);
      }
      if (p.op == PrimOp::ToF32) v = primitive("f32_round", 1)(v);
      return SymValue::scalar(v, def);
    }
    case PrimOp::ToI64: {
      if (!is_float(at.elem)) return SymValue::scalar(x, def);
      if (ieee) throw Unencodable("a float -> i64 conversion has no IEEE encoding here");
      z3::expr t = z3::ite(x >= 0, real_to_int(x), -real_to_int(-x));  // truncation, as in C++
      return SymValue::scalar(t, def);
    }
    case PrimOp::Abs:
      return SymValue::scalar(ieee ? z3::abs(x) : z3::ite(x < zero(), -x, x), def);
    case PrimOp::Min:
      return SymValue::scalar(z3::ite(args[1].value() < x, args[1].value(), x), def);
    case PrimOp::Max:
      return SymValue::scalar(z3::ite(x < args[1].value(), args[1].value(), x), def);
    case PrimOp::Floor:
      if (!ieee) return SymValue::scalar(z3::to_real(real_to_int(x)), def);
      return SymValue::scalar(uf("floor"), def);
    case PrimOp::Band:
    case PrimOp::Bxor: {
      z3::sort_vector dom(z_);
      dom.push_back(z_.int_sort());
      dom.push_back(z_.int_sort());
      auto f = z_.function(op_name(p.op), dom, z_.int_sort());
      return SymValue::scalar(f(x, args[1].value()), def);
    }
    default:
      (void)self;
      return SymValue::scalar(uf(op_name(p.op)), def);
  }
}

namespace {
// The domain of a node that iterates one, when it iterates a tensor's stored entries.
const Domain* stored_domain(Expr e) {
  const Domain* d = nullptr;
  if (auto* x = e.as<Exists>()) d = &x->dom;
  if (auto* x = e.as<Gen>()) d = &x->dom;
  if (auto* x = e.as<Reduce>()) d = &x->dom;
  if (auto* x = e.as<Scan>()) d = &x->dom;
  if (auto* x = e.as<Loop>()) d = &x->dom;
  if (auto* x = e.as<Scatter>()) d = &x->dom;
  return d && d->is_stored() ? d : nullptr;
}
}  // namespace

SymValue Encoder::encode(Expr e) {
  SymValue v = encode_node(e);
  // Iterating a tensor's stored entries evaluates the tensor, and a row's index must be defined
  // and in range: a failing source or row fails the node, which read as defined (a scatter over
  // a failing ?A, decision 234; `sum[(j) in A[k]] 0` at k = n, a reviewing helper).
  if (const Domain* d = stored_domain(e)) {
    SymValue src = encode(d->source);
    z3::expr def = defined_of(src);
    for (std::size_t k = 0; k < d->prefix.size(); ++k) {
      SymValue row = encode(d->prefix[k]);
      def = def && row.defined();
      if (src.tensor && k < src.tensor->dims.size())
        def = def && row.value() >= 0 && row.value() < src.tensor->dims[k];
    }
    v = with_def(v, def);
  }
  return v;
}

SymValue Encoder::materialised(const SymValue& v) {
  if (!materialise || !v.tensor || v.tensor->type.is_tuple()) return v;
  const SymTensor& t = *v.tensor;
  std::vector<std::int64_t> dims;
  std::int64_t total = 1;
  for (const auto& d : t.dims) {
    std::int64_t n = 0;
    z3::expr s = d.simplify();
    if (!s.is_numeral_i64(n) || n < 0) return v;
    dims.push_back(n);
    total *= n;
    if (total > unroll_limit) return v;
  }
  // Row-major table of every element, computed once.
  auto table = std::make_shared<std::vector<SymValue>>();
  std::vector<std::int64_t> pt(dims.size(), 0);
  for (std::int64_t k = 0; k < total; ++k) {
    std::vector<z3::expr> idx;
    std::int64_t rest = k;
    for (std::size_t d = dims.size(); d-- > 0;) {
      pt[d] = rest % dims[d];
      rest /= dims[d];
    }
    for (auto p : pt) idx.push_back(z_.int_val(p));
    table->push_back(t.at(idx));
  }
  // A tensor of tensors (or tuples) stays a function: a symbolic index would need a selection
  // chain per inner element (taking entry 0 made f(G[idx[0], 1]) equal f(G[1 - idx[0], 1])).
  for (const auto& e : *table)
    if (!e.is_scalar()) return v;
  auto m = std::make_shared<SymTensor>(t);
  Type elem = t.type.element();
  m->at = [this, table, dims, elem](const std::vector<z3::expr>& idx) {
    std::int64_t flat = 0;
    bool numeric = true;
    for (std::size_t d = 0; d < dims.size() && numeric; ++d) {
      std::int64_t i = 0;
      z3::expr s = idx[d].simplify();
      if (!s.is_numeral_i64(i) || i < 0 || i >= dims[d]) numeric = false;
      flat = flat * dims[d] + i;
    }
    if (numeric) return (*table)[static_cast<std::size_t>(flat)];
    // A symbolic index: a chain of selections over the table.
    SymValue r = zero_of(elem);
    for (std::size_t k = 0; k < table->size(); ++k) {
      z3::expr hit = z_.bool_val(true);
      std::size_t rest = k;
      for (std::size_t d = dims.size(); d-- > 0;) {
        hit = hit && idx[d] == z_.int_val(static_cast<std::int64_t>(rest % dims[d]));
        rest /= dims[d];
      }
      const SymValue& e = (*table)[k];
      r = SymValue::scalar(z3::ite(hit, e.value(), r.value()),
                           z3::ite(hit, e.defined(), r.defined()));
    }
    return r;
  };
  return SymValue{{}, m, {}};
}

SymValue Encoder::encode_node(Expr e) {
  const Type& type = e->type;
  switch (e->kind) {
    case NodeKind::Literal: {
      double v = e.as<Literal>()->value;
      z3::expr val = type.elem == ElemType::Bool  ? z_.bool_val(v != 0)
                     : type.elem == ElemType::I64 ? z_.int_val(static_cast<std::int64_t>(v))
                                                  : number(v);
      return SymValue::scalar(val, z_.bool_val(true));
    }
    case NodeKind::Var: {
      if (const SymValue* v = lookup(e)) return *v;
      if (on_free_var) return on_free_var(e);
      throw Unencodable("free variable `" + var_name(e) + "`");
    }
    case NodeKind::Unary: {
      auto* u = e.as<Unary>();
      SymValue a = encode(u->a);
      return SymValue::scalar(u->op == UnaryOp::Not ? !a.value() : -a.value(), a.defined());
    }
    case NodeKind::Binary: {
      auto* b = e.as<Binary>();
      SymValue x = encode(b->a), y = encode(b->b);
      if (b->op == BinaryOp::And)  // short-circuit, as the interpreter
        return SymValue::scalar(x.value() && y.value(), x.defined() && (!x.value() || y.defined()));
      if (b->op == BinaryOp::Or)
        return SymValue::scalar(x.value() || y.value(), x.defined() && (x.value() || y.defined()));
      z3::expr def = x.defined() && y.defined();
      bool integer = b->a->type.elem == ElemType::I64;
      if (integer && (b->op == BinaryOp::Div || b->op == BinaryOp::Mod))
        def = def && y.value() > 0;  // the interpreter rejects a non-positive divisor
      if (!integer && b->op == BinaryOp::Div && arith_ == Arith::Real)
        def = def && y.value() != zero();  // x / 0 has no real value
      return SymValue::scalar(binary_scalar(b->op, x.value(), y.value()), def);
    }
    case NodeKind::Prim:
      return prim(*e.as<Prim>(), e);
    case NodeKind::Select: {
      auto* s = e.as<Select>();
      SymValue c = encode(s->cond), a = encode(s->then_value), b = encode(s->else_value);
      if (!a.is_scalar()) throw Unencodable("select of non-scalar values at " + where_str(e));
      return SymValue::scalar(z3::ite(c.value(), a.value(), b.value()),
                              c.defined() && z3::ite(c.value(), a.defined(), b.defined()));
    }
    case NodeKind::Iverson: {
      auto* iv = e.as<Iverson>();
      SymValue p = encode(iv->pred);
      SymValue body = encode(iv->body);
      return with_def(strong_zero(p.value(), body, type), p.defined());
    }
    case NodeKind::Exists: {
      auto* ex = e.as<Exists>();
      try {
        z3::expr any = z_.bool_val(false), def = z_.bool_val(true);
        for_each_point(
            ex->dom,
            [&](const z3::expr& guard) {
              SymValue p = encode(ex->pred);
              any = any || (guard && p.value());
              def = def && (!guard || p.defined());
            },
            e);
        return SymValue::scalar(any, def);
      } catch (const SymbolicBound&) {
        if (ex->dom.is_stored()) throw;
        // exists over a symbolic rectangle: a quantifier over fresh integers.
        z3::expr_vector ks(z_);
        z3::expr in = z_.bool_val(true);
        for (std::size_t k = 0; k < ex->dom.vars.size(); ++k) {
          z3::expr n = encode(ex->dom.bounds[k]).value();
          z3::expr kv = fresh_int(var_name(ex->dom.vars[k]));
          ks.push_back(kv);
          in = in && kv >= 0 && kv < n;
          bind(ex->dom.vars[k], SymValue::scalar(kv, z_.bool_val(true)));
        }
        SymValue p = encode(ex->pred);
        for (std::size_t k = ex->dom.vars.size(); k-- > 0;) unbind(ex->dom.vars[k]);
        return SymValue::scalar(z3::exists(ks, in && p.value()),
                                z3::forall(ks, z3::implies(in, p.defined())));
      }
    }
    case NodeKind::Nz: {
      auto* nz = e.as<Nz>();
      SymValue t = encode(nz->tensor);
      std::vector<z3::expr> idx;
      z3::expr def = t.tensor ? t.tensor->defined : z_.bool_val(true);
      for (const auto& i : nz->indices) {
        SymValue iv = encode(i);
        idx.push_back(iv.value());
        def = def && iv.defined();
      }
      if (!t.tensor || !t.tensor->stored)
        throw Unencodable("nz of a dense tensor at " + where_str(e));
      return SymValue::scalar(t.tensor->stored(idx), def);
    }
    case NodeKind::Access: {
      auto* a = e.as<Access>();
      SymValue t = encode(a->tensor);
      std::vector<SymValue> idx;
      for (const auto& i : a->indices) idx.push_back(encode(i));
      return access(t, idx, e);
    }
    case NodeKind::Gen: {
      auto* g = e.as<Gen>();
      if (g->dom.is_stored()) throw Unencodable("gen over stored entries at " + where_str(e));
      auto t =
          std::make_shared<SymTensor>(SymTensor{{}, type, nullptr, nullptr, z_.bool_val(true)});
      for (const auto& b : g->dom.bounds) t->dims.push_back(encode(b).value());
      auto saved = env_;  // the closure sees the variables in scope here
      Domain dom = g->dom;
      Expr body = g->body;
      t->at = [this, saved, dom, body](const std::vector<z3::expr>& idx) {
        auto outer = std::move(env_);
        env_ = saved;
        for (std::size_t k = 0; k < dom.vars.size(); ++k)
          bind(dom.vars[k], SymValue::scalar(idx[k], z_.bool_val(true)));
        SymValue v;
        try {
          v = encode(body);
        } catch (...) {
          env_ = std::move(outer);
          throw;
        }
        env_ = std::move(outer);
        return v;
      };
      // Strict: the tensor is defined when every element is: a conjunction over the points of
      // a small concrete shape, otherwise a quantifier (unless true at a symbolic point).
      std::vector<std::int64_t> cdims;
      std::int64_t total = 1;
      for (const auto& d : t->dims) {
        std::int64_t n = 0;
        if (!d.simplify().is_numeral_i64(n) || n < 0 || (total *= n) > unroll_limit) {
          cdims.clear();
          total = -1;
          break;
        }
        cdims.push_back(n);
      }
      if (total >= 0) {
        z3::expr all = z_.bool_val(true);
        for (std::int64_t k = 0; k < total; ++k) {
          std::int64_t rest = k;
          std::vector<z3::expr> idx(cdims.size(), z_.int_val(0));
          for (std::size_t d = cdims.size(); d-- > 0;) {
            idx[d] = z_.int_val(rest % cdims[d]);
            rest /= cdims[d];
          }
          all = all && defined_of(t->at(idx));
        }
        t->defined = all.simplify();
      } else {
        std::vector<z3::expr> ks;
        z3::expr_vector kv(z_);
        z3::expr in = z_.bool_val(true);
        for (std::size_t k = 0; k < t->dims.size(); ++k) {
          ks.push_back(fresh_int(var_name(dom.vars[k])));
          kv.push_back(ks.back());
          in = in && ks.back() >= 0 && ks.back() < t->dims[k];
        }
        z3::expr d = defined_of(t->at(ks)).simplify();
        if (!d.is_true()) t->defined = z3::forall(kv, z3::implies(in, d));
      }
      return SymValue{{}, t, {}};
    }
    case NodeKind::Reduce:
      return reduce(*e.as<Reduce>(), e);
    case NodeKind::Scan: {
      auto* s = e.as<Scan>();
      std::vector<SymValue> prefix;
      z3::expr def = z_.bool_val(true);
      for_each_point(
          s->dom,
          [&](const z3::expr&) {
            SymValue b = encode(s->body);
            z3::expr v = b.value();
            if (!prefix.empty()) {
              const z3::expr& p = prefix.back().value();
              switch (s->op) {
                case ReduceOp::Sum:
                  v = p + v;
                  break;
                case ReduceOp::Prod:
                  v = p * v;
                  break;
                case ReduceOp::Max:
                  v = z3::ite(p < v, v, p);
                  break;
                case ReduceOp::Min:
                  v = z3::ite(v < p, v, p);
                  break;
              }
            }
            def = def && b.defined();
            prefix.push_back(SymValue::scalar(v, z_.bool_val(true)));
          },
          e);
      auto t = std::make_shared<SymTensor>(SymTensor{{}, type, nullptr, nullptr, def});
      t->dims.push_back(z_.int_val(static_cast<std::int64_t>(prefix.size())));
      Type elem = type.element();
      t->at = [this, prefix, elem](const std::vector<z3::expr>& idx) {
        SymValue r = zero_of(elem);
        for (std::size_t k = 0; k < prefix.size(); ++k)
          r = SymValue::scalar(z3::ite(idx[0] == z_.int_val(static_cast<std::int64_t>(k)),
                                       prefix[k].value(), r.value()),
                               z_.bool_val(true));
        return r;
      };
      return SymValue{{}, t, {}};
    }
    case NodeKind::Loop: {
      auto* l = e.as<Loop>();
      std::vector<SymValue> state;
      for (const auto& i : l->init) state.push_back(encode(i));
      // Strict, as the interpreter: the initial state and every step's state are evaluated, so
      // a failing one fails the loop even where a later step does not read it (a rule's loop
      // with a failing ?e0 read as defined; decision 232).
      z3::expr def = z_.bool_val(true);
      for (const auto& v : state) def = def && defined_of(v);
      for_each_point(
          l->dom,
          [&](const z3::expr& guard) {
            for (std::size_t k = 0; k < l->state.size(); ++k) bind(l->state[k], state[k]);
            SymValue next = encode(l->body);
            for (std::size_t k = l->state.size(); k-- > 0;) unbind(l->state[k]);
            def = def && (!guard || defined_of(next));
            if (l->state.size() == 1)
              state[0] = next;
            else
              state = next.fields;
          },
          e);
      if (state.size() == 1) return with_def(state[0], def);
      SymValue r;
      r.fields = state;
      return with_def(r, def);
    }
    case NodeKind::Scatter: {
      auto* s = e.as<Scatter>();
      struct Contribution {
        z3::expr guard;
        std::vector<z3::expr> at;
        z3::expr value;
      };
      std::vector<Contribution> cs;
      auto t =
          std::make_shared<SymTensor>(SymTensor{{}, type, nullptr, nullptr, z_.bool_val(true)});
      for (const auto& d : type.dims) t->dims.push_back(encode(d).value());
      z3::expr def = z_.bool_val(true);
      for_each_point(
          s->dom,
          [&](const z3::expr& guard) {
            std::vector<z3::expr> at;
            z3::expr ok = z_.bool_val(true);
            for (std::size_t k = 0; k < s->at.size(); ++k) {
              SymValue a = encode(s->at[k]);
              at.push_back(a.value());
              ok = ok && a.defined() && a.value() >= 0 && a.value() < t->dims[k];
            }
            SymValue v = encode(s->value);
            def = def && (!guard || (ok && v.defined()));
            cs.push_back(Contribution{guard, at, v.value()});
          },
          e);
      t->defined = def;
      t->at = [this, cs](const std::vector<z3::expr>& idx) {
        z3::expr acc = zero();
        for (const auto& c : cs) {
          z3::expr hit = c.guard;
          for (std::size_t k = 0; k < idx.size(); ++k) hit = hit && c.at[k] == idx[k];
          acc = acc + z3::ite(hit, c.value, zero());
        }
        return SymValue::scalar(acc, z_.bool_val(true));
      };
      if (type.storage == Storage::Coo)
        t->stored = [this, cs](const std::vector<z3::expr>& idx) {
          z3::expr any = z_.bool_val(false);
          for (const auto& c : cs) {
            z3::expr hit = c.guard;
            for (std::size_t k = 0; k < idx.size(); ++k) hit = hit && c.at[k] == idx[k];
            any = any || hit;
          }
          return any;
        };
      return SymValue{{}, t, {}};
    }
    case NodeKind::Let: {
      auto* l = e.as<Let>();
      SymValue v = materialised(encode(l->value));
      if (l->vars.size() == 1) {
        bind(l->vars[0], v);
      } else {
        if (v.fields.size() != l->vars.size())
          throw Unencodable("destructuring let of a non-tuple at " + where_str(e));
        for (std::size_t k = 0; k < l->vars.size(); ++k) bind(l->vars[k], v.fields[k]);
      }
      SymValue body = encode(l->body);
      for (std::size_t k = l->vars.size(); k-- > 0;) unbind(l->vars[k]);
      return with_def(body, defined_of(v));  // strict: the value is evaluated once, always
    }
    case NodeKind::Tuple: {
      SymValue r;
      for (const auto& x : e.as<Tuple>()->elems) r.fields.push_back(encode(x));
      return r;
    }
    case NodeKind::Proj: {
      auto* p = e.as<Proj>();
      SymValue t = encode(p->tuple);
      if (!t.fields.empty()) return t.fields.at(static_cast<std::size_t>(p->index));
      if (!t.tensor) throw Unencodable("projection of a non-tuple at " + where_str(e));
      auto src = t.tensor;
      auto r = std::make_shared<SymTensor>(*src);
      r->type = type;
      int k = p->index;
      r->at = [src, k](const std::vector<z3::expr>& idx) {
        return src->at(idx).fields.at(static_cast<std::size_t>(k));
      };
      return SymValue{{}, r, {}};
    }
    case NodeKind::Call: {
      auto* c = e.as<Call>();
      std::vector<SymValue> args;
      for (const auto& a : c->args) args.push_back(encode(a));
      // The callee sees only its parameters and the sizes their shapes bind.
      auto outer = std::move(env_);
      env_.clear();
      auto outer_free = on_free_var;
      on_free_var = nullptr;
      std::vector<SymValue> results;
      try {
        const Function& f = *c->callee;
        for (std::size_t k = 0; k < f.params.size(); ++k) {
          bind(f.params[k], args[k]);
          const auto& dims = f.params[k]->type.dims;
          if (args[k].tensor)
            for (std::size_t d = 0; d < dims.size(); ++d)
              if (dims[d].as<Var>() && !lookup(dims[d]))
                bind(dims[d], SymValue::scalar(args[k].tensor->dims[d], z_.bool_val(true)));
        }
        results = encode_function(f);
      } catch (...) {
        env_ = std::move(outer);
        on_free_var = outer_free;
        throw;
      }
      env_ = std::move(outer);
      on_free_var = outer_free;
      SymValue r;
      if (results.size() == 1)
        r = results[0];
      else
        r.fields = results;
      return with_def(r, all_defined(args));
    }
  }
  throw InternalError("encode: unknown node kind");
}

std::vector<SymValue> Encoder::encode_function(const Function& f) {
  std::vector<Expr> bound;
  z3::expr def = z_.bool_val(true);
  for (const auto& s : f.stmts) {
    SymValue v = materialised(encode(s.value));
    def = def && defined_of(v);
    if (s.vars.size() == 1) {
      bind(s.vars[0], v);
      bound.push_back(s.vars[0]);
    } else {
      for (std::size_t k = 0; k < s.vars.size(); ++k) {
        bind(s.vars[k], v.fields.at(k));
        bound.push_back(s.vars[k]);
      }
    }
  }
  std::vector<SymValue> out;
  for (const auto& r : f.results) out.push_back(with_def(encode(r), def));
  for (std::size_t k = bound.size(); k-- > 0;) unbind(bound[k]);
  return out;
}

z3::expr values_agree(Encoder& enc, const SymValue& a, const SymValue& b, bool refines) {
  z3::context& z = enc.ctx();
  if (a.is_scalar() && b.is_scalar()) {
    z3::expr same = enc.same_value(a.value(), b.value());
    if (refines) return z3::implies(a.defined(), b.defined() && same);
    return a.defined() == b.defined() && z3::implies(a.defined(), same);
  }
  if (a.tensor && b.tensor) {
    const auto& ta = *a.tensor;
    const auto& tb = *b.tensor;
    if (ta.dims.size() != tb.dims.size()) return z.bool_val(false);
    z3::expr dims_eq = z.bool_val(true), in = z.bool_val(true);
    std::vector<z3::expr> idx;
    for (std::size_t k = 0; k < ta.dims.size(); ++k) {
      dims_eq = dims_eq && ta.dims[k] == tb.dims[k];
      idx.push_back(enc.fresh_int("at"));
      in = in && idx.back() >= 0 && idx.back() < ta.dims[k];
    }
    enc.last_compare_index = idx;
    z3::expr elems = values_agree(enc, ta.at(idx), tb.at(idx), refines);
    z3::expr defs = refines ? z3::implies(ta.defined, tb.defined) : ta.defined == tb.defined;
    return dims_eq && defs && z3::implies(ta.defined && in, elems);
  }
  if (a.fields.size() == b.fields.size() && !a.fields.empty()) {
    z3::expr all = z.bool_val(true);
    for (std::size_t k = 0; k < a.fields.size(); ++k)
      all = all && values_agree(enc, a.fields[k], b.fields[k], refines);
    return all;
  }
  return z.bool_val(false);
}

}  // namespace adlab::ir::logic
