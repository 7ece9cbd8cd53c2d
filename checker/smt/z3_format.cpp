#include "checker/smt/z3_format.h"

#include <sstream>

namespace adlab::checker::smt {

std::string describe_expr(const z3::model& m, const z3::expr& e) {
  z3::expr v = m.eval(e, true).simplify();
  z3::context& z = e.ctx();
  if (v.is_fpa()) {
    if (m.eval(v.mk_is_nan(), true).is_true()) return "NaN";
    if (m.eval(v.mk_is_inf(), true).is_true())
      return m.eval(z3::expr(z, Z3_mk_fpa_is_positive(z, v)), true).is_true() ? "+inf" : "-inf";
    if (m.eval(v.mk_is_zero(), true).is_true())
      return m.eval(z3::expr(z, Z3_mk_fpa_is_negative(z, v)), true).is_true() ? "-0" : "+0";
    z3::expr r = m.eval(z3::expr(z, Z3_mk_fpa_to_real(z, v)), true).simplify();
    return r.is_numeral() ? r.get_decimal_string(17) : r.to_string();
  }
  if (v.is_numeral()) return Z3_get_numeral_string(z, v);  // exact: "1/2", "-1"
  return v.to_string();
}

std::string describe_model(const z3::model& m) {
  std::ostringstream os;
  for (unsigned k = 0; k < m.size(); ++k) {
    z3::func_decl d = m[k];
    std::string name = d.name().str();
    // Encoder-internal constants, except the index where two tensors differ ("at!k").
    if (name.find('!') != std::string::npos && name.rfind("at!", 0) != 0) continue;
    if (d.arity() == 0) {
      os << name << " = " << describe_expr(m, d()) << "; ";
      continue;
    }
    z3::func_interp f = m.get_func_interp(d);
    os << name << " = {";
    for (unsigned j = 0; j < f.num_entries(); ++j) {
      z3::func_entry en = f.entry(j);
      os << "(";
      for (unsigned a = 0; a < en.num_args(); ++a)
        os << (a ? ", " : "") << describe_expr(m, en.arg(a));
      os << ") -> " << describe_expr(m, en.value()) << ", ";
    }
    os << "else -> " << describe_expr(m, f.else_value()) << "}; ";
  }
  return os.str();
}

std::string describe_value(const z3::model& m, const ir::logic::SymValue& v) {
  if (v.is_scalar()) {
    if (!m.eval(v.defined(), true).is_true()) return "⊥ (undefined)";
    return describe_expr(m, v.value());
  }
  if (v.tensor) {
    if (!m.eval(v.tensor->defined, true).is_true()) return "⊥ (undefined)";
    std::string s = "tensor [";
    for (std::size_t k = 0; k < v.tensor->dims.size(); ++k)
      s += (k ? ", " : "") + describe_expr(m, v.tensor->dims[k]);
    return s + "]";
  }
  std::string s = "(";
  for (std::size_t k = 0; k < v.fields.size(); ++k)
    s += (k ? ", " : "") + describe_value(m, v.fields[k]);
  return s + ")";
}

}  // namespace adlab::checker::smt
