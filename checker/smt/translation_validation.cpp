#include "checker/smt/translation_validation.h"

#include <chrono>
#include <sstream>

#include "checker/smt/z3_format.h"
#include "ir/logic/smt_encoding.h"
#include "ir/syntax/printer.h"

namespace adlab::checker::smt {

using ir::logic::SymValue;

namespace {

std::vector<std::int64_t> concrete_dims(const ir::logic::SymTensor& t) {
  std::vector<std::int64_t> dims;
  for (const auto& d : t.dims) {
    std::int64_t n = 0;
    if (!d.simplify().is_numeral_i64(n))
      throw ir::logic::Unencodable("a result dimension is not a number at these sizes");
    dims.push_back(n);
  }
  return dims;
}

// Every scalar entry of a value with concrete dimensions, in row-major order, each defined only
// where every value it sits in is: a statement's or a call's failure is the enclosing tensor's
// definedness, which entries of a tensor of tensors (or of tuples) dropped, so a failing `let`
// before a nested `gen` was PROVED equal to the same program without it (an audit helper;
// decision 230).
void flatten(const SymValue& v, const z3::expr& outer, std::vector<SymValue>& out) {
  if (v.is_scalar()) {
    out.push_back(SymValue::scalar(v.value(), (v.defined() && outer).simplify()));
    return;
  }
  if (!v.fields.empty()) {
    for (const auto& f : v.fields) flatten(f, outer, out);
    return;
  }
  const auto& t = *v.tensor;
  const z3::expr inner = outer && t.defined;
  const std::vector<std::int64_t> dims = concrete_dims(t);
  std::vector<std::int64_t> pt(dims.size(), 0);
  std::function<void(std::size_t)> rec = [&](std::size_t k) {
    if (k == dims.size()) {
      std::vector<z3::expr> idx;
      for (auto p : pt) idx.push_back(t.defined.ctx().int_val(p));
      flatten(t.at(idx), inner, out);
      return;
    }
    for (pt[k] = 0; pt[k] < dims[k]; ++pt[k]) rec(k + 1);
  };
  rec(0);
}

// Whether a whole result is defined, entries aside: what decides a result without entries
// (n = 0), whose failing statement was otherwise never compared (decision 230).
z3::expr defined_whole(const SymValue& v, z3::context& z) {
  if (v.is_scalar()) return v.defined();
  if (!v.fields.empty()) {
    z3::expr all = z.bool_val(true);
    for (const auto& f : v.fields) all = all && defined_whole(f, z);
    return all;
  }
  return v.tensor->defined;
}

// A result's type at these sizes: element type, storage, and each dimension's value (the type's
// own dimensions, sizes bound: a gen of gens is one f64[n, m], whose encoded value holds only the
// outer dimension; a reviewing helper). f64[6] and f64[2, 3], f64 and f64[1], or f64 and i64
// have equal flat entries but are different results (decision 230).
std::string concrete_type(const ir::Type& type, ir::logic::Encoder& enc) {
  if (type.is_tuple() && type.dims.empty()) {
    std::string out = "(";
    for (std::size_t k = 0; k < type.fields.size(); ++k)
      out += (k ? ", " : "") + concrete_type(type.fields[k], enc);
    return out + ")";
  }
  if (type.dims.empty()) return ir::type_str(type);
  std::string out = ir::type_str(type.element()) + "[";
  for (std::size_t k = 0; k < type.dims.size(); ++k) {
    std::int64_t n = 0;
    if (!enc.encode(type.dims[k]).value().simplify().is_numeral_i64(n))
      throw ir::logic::Unencodable("a result dimension is not a number at these sizes");
    out += (k ? ", " : "") + std::to_string(n);
  }
  out += "]";
  if (type.storage != ir::Storage::Dense) out += " (" + ir::type_str(type) + ")";
  return out;
}

void bind_sizes(ir::logic::Encoder& enc, const ir::Function& f,
                const std::map<std::string, std::int64_t>& sizes) {
  for (const auto& s : f.sizes) {
    auto it = sizes.find(ir::var_name(s));
    if (it == sizes.end())
      throw Error("translation validation: no value for size `" + ir::var_name(s) + "` of `" +
                  f.name + "`");
    enc.bind(s, SymValue::scalar(enc.ctx().int_val(it->second), enc.ctx().bool_val(true)));
  }
}

}  // namespace

Validation validate_equivalent(const ir::Function& f, const ir::Function& g,
                               const std::map<std::string, std::int64_t>& sizes,
                               const ValidationOptions& o) {
  auto t0 = std::chrono::steady_clock::now();
  Validation v;
  auto done = [&] {
    v.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return v;
  };
  if (f.params.size() != g.params.size())
    throw Error("translation validation: `" + f.name + "` and `" + g.name +
                "` have different numbers of parameters");
  z3::context z;
  ir::logic::Encoder enc(z, ir::logic::Arith::Real);
  enc.materialise = true;
  try {
    // The same symbolic input for the k-th parameter of both functions.
    bind_sizes(enc, f, sizes);
    std::vector<SymValue> inputs;
    for (std::size_t k = 0; k < f.params.size(); ++k) {
      inputs.push_back(enc.symbol("in" + std::to_string(k) + "_" + ir::var_name(f.params[k]),
                                  f.params[k]->type));
      enc.bind(f.params[k], inputs.back());
    }
    auto rf = enc.encode_function(f);
    std::vector<std::string> tf;  // f's result types, while f's sizes are bound
    for (const auto& r : f.results) tf.push_back(concrete_type(r->type, enc));
    ir::logic::Encoder& e2 = enc;  // g in a fresh scope of the same encoder (same symbols)
    for (std::size_t k = 0; k < f.params.size(); ++k) e2.unbind(f.params[k]);
    for (const auto& s : f.sizes) e2.unbind(s);
    bind_sizes(e2, g, sizes);
    for (std::size_t k = 0; k < g.params.size(); ++k) e2.bind(g.params[k], inputs[k]);
    auto rg = e2.encode_function(g);
    std::vector<std::string> tg;
    for (const auto& r : g.results) tg.push_back(concrete_type(r->type, e2));
    if (rf.size() != rg.size()) throw Error("translation validation: different result counts");
    for (std::size_t k = 0; k < tf.size() && k < tg.size(); ++k)
      if (tf[k] != tg[k]) {
        v.verdict = Verdict::Refuted;
        v.counterexample = "result " + std::to_string(k) + " is " + tf[k] + " and " + tg[k];
        return done();
      }
    std::vector<SymValue> a, b;
    for (const auto& r : rf) flatten(r, z.bool_val(true), a);
    for (const auto& r : rg) flatten(r, z.bool_val(true), b);
    // each whole result's definedness too, as one more boolean entry (true: defined)
    for (std::size_t k = 0; k < rf.size(); ++k) {
      a.push_back(SymValue::scalar(defined_whole(rf[k], z).simplify(), z.bool_val(true)));
      b.push_back(SymValue::scalar(defined_whole(rg[k], z).simplify(), z.bool_val(true)));
    }
    if (a.size() != b.size()) {
      v.verdict = Verdict::Refuted;
      v.counterexample = "the results have " + std::to_string(a.size()) + " and " +
                         std::to_string(b.size()) + " entries";
      return done();
    }
    v.entries = a.size() - rf.size();
    // Entries equal as polynomials (sum of monomials) need no solver.
    z3::params som(z);
    som.set("som", true);
    som.set("arith_lhs", true);
    z3::expr_vector open(z);
    std::vector<std::size_t> open_index;
    for (std::size_t k = 0; k < a.size(); ++k) {
      z3::expr same = a[k].value().is_bool()
                          ? (a[k].value() == b[k].value())
                          : ((a[k].value() - b[k].value()).simplify(som) == z.real_val(0));
      z3::expr defs = a[k].defined() == b[k].defined();
      z3::expr goal = (defs && z3::implies(a[k].defined(), same)).simplify();
      if (goal.is_true()) {
        ++v.syntactic;
        continue;
      }
      open.push_back(goal);
      open_index.push_back(k);
    }
    if (open.empty()) {
      v.verdict = Verdict::Proved;
      return done();
    }
    z3::solver s(z);
    z3::params p(z);
    p.set("timeout", o.timeout_ms);
    s.set(p);
    for (const auto& asn : enc.assumptions) s.add(asn);
    s.add(!z3::mk_and(open));
    switch (s.check()) {
      case z3::unsat:
        v.verdict = Verdict::Proved;
        break;
      case z3::sat: {
        v.verdict = Verdict::Refuted;
        z3::model m = s.get_model();
        std::ostringstream os;
        os << describe_model(m);
        for (std::size_t j = 0; j < open.size(); ++j)
          if (m.eval(open[static_cast<int>(j)], true).is_false()) {
            std::size_t k = open_index[j];
            if (k >= v.entries)
              os << "result " << k - v.entries << " is defined: ";
            else
              os << "result entry " << k << ": ";
            os << describe_value(m, a[k]) << " vs " << describe_value(m, b[k]);
            break;
          }
        v.counterexample = os.str();
        break;
      }
      default:
        v.verdict = Verdict::Unknown;
        v.detail = "Z3: " + s.reason_unknown();
    }
  } catch (const ir::logic::Unencodable& e) {
    v.verdict = Verdict::Unknown;
    v.detail = std::string("no encoding: ") + e.what();
  } catch (const z3::exception& e) {
    v.verdict = Verdict::Unknown;
    v.detail = std::string("Z3 error: ") + e.msg();
  }
  return done();
}

}  // namespace adlab::checker::smt
