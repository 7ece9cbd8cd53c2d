// Shared helpers of the fwdvec tests: the dftilde suite's programs, inputs and runs.
#pragma once

#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <vector>

#include "ad/fwdvec/fwdvec_strategy.h"
#include "backends/backend.h"
#include "checker/complexity/complexity.h"
#include "ir/suite/inputs.h"
#include "ir/suite/manifest.h"
#include "ir/syntax/parser.h"

namespace adlab::test {

using namespace adlab::ad;

inline const std::string kSuite = std::string(ADLAB_SOURCE_DIR) + "/suites/papers/dftilde";

inline const Strategy& fwdvec() {
  static auto s = make_fwdvec_strategy();
  return *s;
}

inline ir::FunctionPtr load(const std::string& file, const std::string& func) {
  static std::map<std::string, ir::Module> cache;
  auto it = cache.find(file);
  if (it == cache.end()) it = cache.emplace(file, ir::parse_file(kSuite + "/" + file)).first;
  return it->second.entry(func);
}

inline const ir::SuiteEntry& entry(const std::string& name) {
  static ir::Suite suite = ir::load_manifest(kSuite + "/manifest.json");
  for (const auto& e : suite.entries)
    if (e.name == name) return e;
  throw Error("no entry " + name);
}

struct Run {
  std::vector<ir::Tensor> out;
  ir::OpCounts counts;
};

inline Run run(const ir::FunctionPtr& f, const std::vector<ir::Tensor>& in,
               const ir::SizeMap& sizes = {}) {
  backends::Options o;
  o.sizes = sizes;
  o.count_ops = true;
  auto exe = backends::BackendRegistry::instance().get("interp").compile(f, o);
  Run r;
  r.out = exe->run(in);
  if (exe->counts()) r.counts = *exe->counts();
  return r;
}

// Inputs of `f` at `sizes` from the manifest entry's generators (fixed seed).
inline std::vector<ir::Tensor> inputs(const ir::FunctionPtr& f, const std::string& name,
                                      const ir::SizeMap& sizes, std::uint64_t seed = 7) {
  const auto& e = entry(name);
  std::vector<ir::Tensor> in;
  for (std::size_t k = 0; k < f->params.size(); ++k) {
    const std::string& p = ir::var_name(f->params[k]);
    auto spec = e.inputs.contains(p) ? e.inputs[p] : ir::default_spec(*f, k);
    in.push_back(ir::generate_input(*f, k, spec, sizes, seed + k, e.dir));
  }
  return in;
}

inline ir::Tensor scalar(double v) {
  ir::Tensor t;
  t.values = {v};
  return t;
}

inline Derivative diff(const ir::FunctionPtr& f, Mode m, std::vector<std::string> wrt = {},
                       const std::string& variant = "", std::size_t width = 0) {
  Request r{std::move(wrt), m, variant, width};
  return fwdvec().differentiate(f, r);
}

inline void require_close(const ir::Tensor& a, const ir::Tensor& b, double tol = 1e-12) {
  REQUIRE(a.values.size() == b.values.size());
  for (std::size_t k = 0; k < a.values.size(); ++k)
    REQUIRE(a.values[k] == Approx(b.values[k]).epsilon(tol).margin(tol));
}

// Gradient of `func` against the suite's closed form `expected` (outputs after the primal).
// (default variant with all directions, width 2, and the naive variant).
inline void check_against_expected(const std::string& file, const std::string& func,
                                   const std::string& expected, const std::string& name,
                                   std::vector<std::string> wrt, const ir::SizeMap& sizes) {
  auto f = load(file, func);
  auto in = inputs(f, name, sizes);
  auto want = run(load(file, expected), in, sizes);
  for (auto [variant, width] :
       std::vector<std::pair<std::string, std::size_t>>{{"", 0}, {"", 2}, {"naive", 0}}) {
    INFO(func << " variant `" << variant << "` width " << width);
    auto g = run(diff(f, Mode::Gradient, wrt, variant, width).function, in, sizes);
    REQUIRE(g.out.size() == 1 + want.out.size());
    for (std::size_t k = 0; k < want.out.size(); ++k)
      require_close(g.out[1 + k], want.out[k], 1e-10);
  }
}

// Operation count (paper cost plus comparisons) of the gradient over a sweep of size `var`, and
// its log-log slope.
inline double gradient_slope(const std::string& file, const std::string& func,
                             const std::string& name, const std::vector<std::string>& wrt,
                             const std::string& variant, const std::vector<ir::SizeMap>& sweep,
                             const std::string& var = "n",
                             std::vector<std::int64_t>* costs = nullptr) {
  auto f = load(file, func);
  auto g = diff(f, Mode::Gradient, wrt, variant).function;
  std::vector<std::pair<double, double>> xy;
  for (const auto& s : sweep) {
    auto r = run(g, inputs(f, name, s), s);
    double n = static_cast<double>(s.at(var));
    xy.emplace_back(n, static_cast<double>(r.counts.total()));
    if (costs) costs->push_back(r.counts.total());
  }
  return checker::loglog_slope(xy);
}

inline std::vector<ir::SizeMap> sweep(const std::string& size, std::vector<std::int64_t> ns,
                                      const ir::SizeMap& fixed = {}) {
  std::vector<ir::SizeMap> out;
  for (auto n : ns) {
    ir::SizeMap m = fixed;
    m[size] = n;
    out.push_back(m);
  }
  return out;
}

}  // namespace adlab::test
