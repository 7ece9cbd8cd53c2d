#include "checker/smt/translation_validation.h"

#include <chrono>
#include <sstream>

#include "checker/smt/z3_format.h"
#include "ir/logic/smt_encoding.h"

namespace adlab::checker::smt {

using ir::logic::SymValue;

namespace {

// Every scalar entry of a value with concrete dimensions, in row-major order.
void flatten(const SymValue& v, std::vector<SymValue>& out) {
  if (v.is_scalar()) {
    out.push_back(v);
    return;
  }
  if (!v.fields.empty()) {
    for (const auto& f : v.fields) flatten(f, out);
    return;
  }
  const auto& t = *v.tensor;
  std::vector<std::int64_t> dims;
  for (const auto& d : t.dims) {
    std::int64_t n = 0;
    if (!d.simplify().is_numeral_i64(n))
      throw ir::logic::Unencodable("a result dimension is not a number at these sizes");
    dims.push_back(n);
  }
  std::vector<std::int64_t> pt(dims.size(), 0);
  std::function<void(std::size_t)> rec = [&](std::size_t k) {
    if (k == dims.size()) {
      std::vector<z3::expr> idx;
      for (auto p : pt) idx.push_back(t.defined.ctx().int_val(p));
      SymValue e = t.at(idx);
      if (e.is_scalar()) e = SymValue::scalar(e.value(), e.defined() && t.defined);
      flatten(e, out);
      return;
    }
    for (pt[k] = 0; pt[k] < dims[k]; ++pt[k]) rec(k + 1);
  };
  rec(0);
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
    ir::logic::Encoder& e2 = enc;  // g in a fresh scope of the same encoder (same symbols)
    for (std::size_t k = 0; k < f.params.size(); ++k) e2.unbind(f.params[k]);
    for (const auto& s : f.sizes) e2.unbind(s);
    bind_sizes(e2, g, sizes);
    for (std::size_t k = 0; k < g.params.size(); ++k) e2.bind(g.params[k], inputs[k]);
    auto rg = e2.encode_function(g);
    if (rf.size() != rg.size()) throw Error("translation validation: different result counts");
    std::vector<SymValue> a, b;
    for (const auto& r : rf) flatten(r, a);
    for (const auto& r : rg) flatten(r, b);
    if (a.size() != b.size()) {
      v.verdict = Verdict::Refuted;
      v.counterexample = "the results have " + std::to_string(a.size()) + " and " +
                         std::to_string(b.size()) + " entries";
      return done();
    }
    v.entries = a.size();
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
            os << "result entry " << k << ": " << describe_value(m, a[k]) << " vs "
               << describe_value(m, b[k]);
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
