#include "checker/smt/counterexample_replay.h"

#include <cmath>
#include <limits>
#include <map>
#include <sstream>

#include "ir/affine.h"
#include "ir/builder.h"
#include "ir/context.h"
#include "ir/interp/interpreter.h"
#include "ir/mutator.h"
#include "ir/rewrite/pattern.h"
#include "ir/substitute.h"
#include "ir/syntax/printer.h"
#include "ir/visitor.h"

namespace adlab::checker::smt {

using ir::Expr;
using ir::rewrite::Sort;

namespace {

struct NoReplay : std::runtime_error {
  using std::runtime_error::runtime_error;
};

double to_double(const z3::expr& v) {
  z3::context& z = v.ctx();
  if (v.is_fpa()) {
    z3::model none(z);
    std::string s;
    z3::expr nan = v.mk_is_nan().simplify(), inf = v.mk_is_inf().simplify(),
             zero = v.mk_is_zero().simplify();
    z3::expr neg = z3::expr(z, Z3_mk_fpa_is_negative(z, v)).simplify();
    if (nan.is_true()) return std::numeric_limits<double>::quiet_NaN();
    if (inf.is_true())
      return neg.is_true() ? -std::numeric_limits<double>::infinity()
                           : std::numeric_limits<double>::infinity();
    if (zero.is_true()) return neg.is_true() ? -0.0 : 0.0;
    z3::expr r = z3::expr(z, Z3_mk_fpa_to_real(z, v)).simplify();
    return std::stod(Z3_get_numeral_decimal_string(z, r, 30));
  }
  if (v.is_numeral()) return std::stod(Z3_get_numeral_decimal_string(v.ctx(), v, 30));
  throw NoReplay("the value `" + v.to_string() + "` is not a number");
}

// A literal of the element type from a model value.
Expr literal(const z3::expr& v, ir::ElemType elem) {
  if (elem == ir::ElemType::Bool) {
    if (v.is_true()) return ir::Literal::make(1, elem);
    if (v.is_false()) return ir::Literal::make(0, elem);
    throw NoReplay("the value `" + v.to_string() + "` is not a boolean");
  }
  if (elem == ir::ElemType::I64) {
    std::int64_t i = 0;
    if (!v.is_numeral_i64(i)) throw NoReplay("the value `" + v.to_string() + "` is not an i64");
    return ir::dsl::ilit(i);
  }
  return ir::Literal::make(to_double(v), elem);
}

// A model term over de Bruijn variables (func_interp else-values) as IR over `args`.
Expr to_ir(const z3::expr& e, const std::vector<Expr>& args, ir::ElemType elem) {
  using namespace ir::dsl;
  if (e.is_var()) {
    unsigned k = Z3_get_index_value(e.ctx(), e);
    if (k >= args.size()) throw NoReplay("a model term uses an unknown argument");
    return args[args.size() - 1 - k];
  }
  if (e.is_numeral() || e.is_true() || e.is_false() || e.is_fpa())
    return literal(e.simplify(), e.is_bool()  ? ir::ElemType::Bool
                                 : e.is_int() ? ir::ElemType::I64
                                              : elem);
  if (!e.is_app()) throw NoReplay("a model term is not an application: " + e.to_string());
  auto arg = [&](unsigned k, ir::ElemType el) { return to_ir(e.arg(k), args, el); };
  auto num_elem = [&](unsigned k) { return e.arg(k).is_int() ? ir::ElemType::I64 : elem; };
  switch (e.decl().decl_kind()) {
    case Z3_OP_EQ:
      return eq(arg(0, num_elem(0)), arg(1, num_elem(1)));
    case Z3_OP_LE:
      return le(arg(0, num_elem(0)), arg(1, num_elem(1)));
    case Z3_OP_LT:
      return lt(arg(0, num_elem(0)), arg(1, num_elem(1)));
    case Z3_OP_GE:
      return ge(arg(0, num_elem(0)), arg(1, num_elem(1)));
    case Z3_OP_GT:
      return gt(arg(0, num_elem(0)), arg(1, num_elem(1)));
    case Z3_OP_NOT:
      return !arg(0, ir::ElemType::Bool);
    case Z3_OP_AND: {
      Expr r = arg(0, ir::ElemType::Bool);
      for (unsigned k = 1; k < e.num_args(); ++k) r = r && arg(k, ir::ElemType::Bool);
      return r;
    }
    case Z3_OP_OR: {
      Expr r = arg(0, ir::ElemType::Bool);
      for (unsigned k = 1; k < e.num_args(); ++k) r = r || arg(k, ir::ElemType::Bool);
      return r;
    }
    case Z3_OP_ITE:
      return select(arg(0, ir::ElemType::Bool), arg(1, elem), arg(2, elem));
    case Z3_OP_ADD: {
      Expr r = arg(0, num_elem(0));
      for (unsigned k = 1; k < e.num_args(); ++k) r = r + arg(k, num_elem(k));
      return r;
    }
    case Z3_OP_MUL: {
      Expr r = arg(0, num_elem(0));
      for (unsigned k = 1; k < e.num_args(); ++k) r = r * arg(k, num_elem(k));
      return r;
    }
    case Z3_OP_UMINUS:
      return -arg(0, num_elem(0));
    default:
      throw NoReplay("a model term uses `" + e.decl().name().str() + "`");
  }
}

// The interpretation of `decl` as IR over the argument variables `args`.
Expr function_to_ir(const z3::model& m, const z3::func_decl& decl, const std::vector<Expr>& args,
                    ir::ElemType elem) {
  if (decl.arity() == 0) return literal(m.eval(decl(), true).simplify(), elem);
  if (!m.has_interp(decl)) return ir::Literal::make(0, elem);  // any value is a witness
  z3::func_interp f = m.get_func_interp(decl);
  Expr r = to_ir(f.else_value(), args, elem);
  for (unsigned j = f.num_entries(); j-- > 0;) {
    z3::func_entry en = f.entry(j);
    Expr cond;
    for (unsigned a = 0; a < en.num_args(); ++a) {
      z3::expr av = en.arg(a);
      Expr c = ir::dsl::eq(args[a], literal(av.simplify(), av.is_int()    ? ir::ElemType::I64
                                                           : av.is_bool() ? ir::ElemType::Bool
                                                                          : elem));
      cond = cond.defined() ? ir::dsl::operator&&(cond, c) : c;
    }
    r = ir::dsl::select(cond, literal(en.value().simplify(), elem), r);
  }
  return r;
}

// Renames every let-bound variable apart, so that a use outside its scope (the outer value a
// counterexample may give it) is not shadowed: the interpreter's lets do not restore shadowed
// bindings because programs never shadow.
class RenameLets : public ir::Mutator {
 protected:
  using ir::Mutator::mutate_node;
  Expr mutate_node(const ir::Let& n, Expr self) override {
    if (n.vars.size() != 1) return ir::Mutator::mutate_node(n, self);
    Expr value = mutate(n.value);
    Expr fresh =
        ir::Var::make(ir::Context::current().fresh_name(ir::var_name(n.vars[0])), n.vars[0]->type);
    Expr body = mutate(ir::substitute(n.body, n.vars[0], fresh));
    return ir::Let::make({fresh}, value, body);
  }
};

std::string run(Expr e, std::vector<double>& value) {
  auto f = std::make_shared<ir::Function>();
  f->name = "replay";
  f->results = {e};
  f->result_type = e->type;
  try {
    ir::Interpreter<double> interp;
    auto out = interp.run_tensors(*f, {});
    value = out.at(0).values;
    if (value.empty() && !out.at(0).ints.empty())
      for (auto i : out.at(0).ints) value.push_back(static_cast<double>(i));
    std::ostringstream os;
    os.precision(17);
    for (std::size_t k = 0; k < value.size(); ++k) os << (k ? ", " : "") << value[k];
    return value.size() == 1 ? os.str() : "[" + os.str() + "]";
  } catch (const std::exception& ex) {
    std::string what = ex.what();
    return what.find("error: ") != std::string::npos ? what : "error: " + what;
  }
}

bool same_datum(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return a == b && std::signbit(a) == std::signbit(b);
}

}  // namespace

Replay replay_counterexample(const ir::rewrite::Rule& r, const z3::model& m,
                             const std::map<Expr, std::int64_t>& sizes,
                             const std::function<std::vector<Expr>(Expr)>& deps_of) {
  Replay out;
  z3::context& z = m.ctx();
  // A primitive is uninterpreted in the proof: the model's function is not the interpreter's.
  std::vector<Expr> stack{r.lhs, r.rhs};
  while (!stack.empty()) {
    Expr e = stack.back();
    stack.pop_back();
    if (auto* p = e.as<ir::Prim>()) {
      switch (p->op) {
        case ir::PrimOp::Abs:
        case ir::PrimOp::Min:
        case ir::PrimOp::Max:
        case ir::PrimOp::ToF64:
        case ir::PrimOp::ToI64:
        case ir::PrimOp::Floor:
          break;
        default:
          out.reason =
              std::string("`") + ir::op_name(p->op) +
              "` is uninterpreted in the proof; the interpreter's is a particular function";
          return out;
      }
    }
    for (const auto& c : ir::children(e)) stack.push_back(c);
  }
  try {
    ir::rewrite::Bindings b;
    std::vector<std::pair<Expr, Expr>> outer;  // binder witness var, its outer value
    // Binders first: each is a concrete variable; used outside its scope it has the model's
    // outer value.
    for (const auto& pv : r.vars) {
      if (pv.sort != Sort::IndexVar && pv.sort != Sort::LetVar) continue;
      std::string name = "w_" + ir::var_name(pv.var).substr(1);
      bool index = pv.sort == Sort::IndexVar;
      Expr w = ir::Var::make(name, ir::Type::scalar(index ? ir::ElemType::I64 : ir::ElemType::F64));
      b[pv.var] = w;
      std::string oname = ir::var_name(pv.var) + "@outer";
      z3::expr c = index ? z.int_const(oname.c_str()) : z.real_const(oname.c_str());
      z3::expr v = m.eval(c, true);
      if (!v.is_numeral()) {  // the IEEE sort
        z3::expr cf = z.constant(oname.c_str(), z.fpa_sort(11, 53));
        v = m.eval(cf, true);
      }
      outer.emplace_back(w, literal(v.simplify(), index ? ir::ElemType::I64 : ir::ElemType::F64));
    }
    for (const auto& pv : r.vars) {
      if (pv.sort == Sort::IndexVar || pv.sort == Sort::LetVar) continue;
      const std::string& name = ir::var_name(pv.var);
      if (pv.sort == Sort::Size) {
        auto it = sizes.find(pv.var);
        b[pv.var] = it != sizes.end()
                        ? ir::dsl::ilit(it->second)
                        : literal(m.eval(z.int_const(name.c_str()), true), ir::ElemType::I64);
        continue;
      }
      if (pv.sort == Sort::Tensor) {
        const ir::Type& t = pv.var->type;
        std::vector<Expr> idx;
        ir::Domain d;
        z3::sort_vector dom(z);
        std::vector<std::int64_t> dims;
        for (std::size_t k = 0; k < t.dims.size(); ++k) {
          idx.push_back(
              ir::Var::make("w_k" + std::to_string(k), ir::Type::scalar(ir::ElemType::I64)));
          d.vars.push_back(idx.back());
          ir::rewrite::Bindings copy = b;
          d.bounds.push_back(ir::rewrite::instantiate(r, t.dims[k], copy));
          auto a = ir::to_affine(d.bounds.back());
          if (!a || !a->is_constant()) throw NoReplay("a symbolic dimension of `" + name + "`");
          dims.push_back(a->constant);
          dom.push_back(z.int_sort());
        }
        auto decl = z.function(name.c_str(), dom, z.real_sort());
        if (!m.has_interp(decl)) decl = z.function(name.c_str(), dom, z.fpa_sort(11, 53));
        Expr values = function_to_ir(m, decl, idx, t.elem);
        if (t.storage == ir::Storage::Dense) {
          b[pv.var] = ir::Gen::make(d, values);
          continue;
        }
        // A sparse witness is built by a scatter, which stores every key it produces: usable
        // when the model stores every entry.
        auto nz = z.function(("nz_" + name).c_str(), dom, z.bool_sort());
        std::vector<std::int64_t> pt(dims.size(), 0);
        std::function<void(std::size_t)> all_stored = [&](std::size_t k) {
          if (k == dims.size()) {
            z3::expr_vector xs(z);
            for (auto v : pt) xs.push_back(z.int_val(v));
            if (!m.eval(nz(xs), true).is_true())
              throw NoReplay("the sparse tensor `" + name + "` has absent entries");
            return;
          }
          for (pt[k] = 0; pt[k] < dims[k]; ++pt[k]) all_stored(k + 1);
        };
        all_stored(0);
        ir::Type concrete = t;
        concrete.dims = d.bounds;
        b[pv.var] = ir::Scatter::make(d, concrete, idx, values);
        continue;
      }
      std::vector<Expr> deps = deps_of(pv.var);
      std::vector<Expr> args;
      z3::sort_vector dom(z);
      for (const auto& dv : deps) {
        args.push_back(b.at(dv));
        dom.push_back(args.back()->type.is_index() ? z.int_sort() : z.real_sort());
      }
      ir::ElemType elem = pv.sort == Sort::IndexExpr ? ir::ElemType::I64
                          : pv.sort == Sort::Pred    ? ir::ElemType::Bool
                                                     : ir::ElemType::F64;
      z3::sort range = elem == ir::ElemType::I64    ? z.int_sort()
                       : elem == ir::ElemType::Bool ? z.bool_sort()
                                                    : z.real_sort();
      auto decl = z.function(name.c_str(), dom, range);
      if (elem == ir::ElemType::F64 && !m.has_interp(decl)) {  // the IEEE query's sort
        z3::sort_vector fdom(z);
        for (const auto& a : args)
          fdom.push_back(a->type.is_index() ? z.int_sort() : z.fpa_sort(11, 53));
        decl = z.function(name.c_str(), fdom, z.fpa_sort(11, 53));
      }
      Expr value = function_to_ir(m, decl, args, elem);
      if (r.partial(pv.var)) {
        auto ddecl = z.function(("defined" + name).c_str(), dom, z.bool_sort());
        Expr defined = function_to_ir(m, ddecl, args, ir::ElemType::Bool);
        // Undefined: an out-of-range read, which the interpreter reports as an error.
        ir::Domain one;
        one.vars = {ir::Var::make("w_fail", ir::Type::scalar(ir::ElemType::I64))};
        one.bounds = {ir::dsl::ilit(1)};
        Expr fail = ir::dsl::at(ir::Gen::make(one, ir::Literal::make(0, elem)), {ir::dsl::ilit(1)});
        value = ir::dsl::select(defined, value, fail);
      }
      b[pv.var] = value;
    }
    ir::rewrite::Bindings bl = b, br = b;
    RenameLets rename;
    Expr left = rename.mutate(ir::rewrite::instantiate(r, r.lhs, bl));
    Expr right = rename.mutate(ir::rewrite::instantiate(r, r.rhs, br));
    for (auto it = outer.rbegin(); it != outer.rend(); ++it) {
      left = ir::Let::make({it->first}, it->second, left);
      right = ir::Let::make({it->first}, it->second, right);
    }
    std::vector<double> lv, rv;
    out.left = run(left, lv);
    out.right = run(right, rv);
    out.available = true;
    bool lerr = out.left.rfind("error", 0) == 0, rerr = out.right.rfind("error", 0) == 0;
    if (lerr != rerr) {
      out.confirmed = true;
    } else if (!lerr) {
      bool same = lv.size() == rv.size();
      for (std::size_t k = 0; same && k < lv.size(); ++k) same = same_datum(lv[k], rv[k]);
      out.confirmed = !same;
    }
  } catch (const NoReplay& e) {
    out.reason = e.what();
  } catch (const z3::exception& e) {
    out.reason = std::string("Z3: ") + e.msg();
  } catch (const adlab::Error& e) {
    out.reason = e.what();
  }
  return out;
}

}  // namespace adlab::checker::smt
