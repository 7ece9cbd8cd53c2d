// paper 004's claim against dense AD (section 7, Fig. 12-13): at n = 4096 and density 2^-10 the
// sparse gradient's operation count is at least 100x below the same kernel written densely and
// differentiated by the best dense strategy present (scatter or dualrev).
#include <catch2/catch.hpp>
#include <limits>

#include "ad/sparse/tangent_engine.h"
#include "ad/strategy.h"
#include "ir/syntax/parser.h"
#include "ir/tensor/random.h"
#include "ir/tensor/tensor_ops.h"

using namespace adlab;
using namespace adlab::ad;

namespace {

const char* kKernels = R"(
func smvm(A: f64[n, m] @csr, x: f64[m]) -> f64 {
  return sum[(i, j) in A] A[i, j] * x[j]
}
func smvm_dense(A: f64[n, m], x: f64[m]) -> f64 {
  return sum[i < n, j < m] A[i, j] * x[j]
}
func smmm(A: f64[n, p] @csr, B: f64[p, m]) -> f64 {
  return sum[(i, k) in A] A[i, k] * sum[j < m] B[k, j]
}
func smmm_dense(A: f64[n, p], B: f64[p, m]) -> f64 {
  return sum[i < n, k < p] A[i, k] * sum[j < m] B[k, j]
}
func batax(A: f64[n, m] @csr, x: f64[m], beta: f64) -> f64[m] {
  let r = gen[i < n] sum[(k) in A[i]] A[i, k] * x[k]
  return scatter[(i2, j) in A] to f64[m] at (j) add beta * A[i2, j] * r[i2]
}
func batax_dense(A: f64[n, m], x: f64[m], beta: f64) -> f64[m] {
  let ax = gen[i < n] sum[k < m] A[i, k] * x[k]
  return gen[j < m] beta * sum[i < n] A[i, j] * ax[i]
}
)";

ir::FunctionPtr kernel(const std::string& name) {
  static ir::Module m = ir::parse_module(kKernels, "sparse_dense_comparison.adl");
  return m.entry(name);
}

// The cheapest operation count of a dense strategy for this request (strategies that decline it
// are skipped; at least one must run).
std::int64_t best_dense(const std::string& fn, Mode mode, const std::vector<ir::Tensor>& in,
                        const std::string& wrt) {
  std::int64_t best = std::numeric_limits<std::int64_t>::max();
  for (std::string s : {"scatter", "dualrev"}) {
    const Strategy* st = StrategyRegistry::instance().find(s);
    if (!st) continue;
    try {
      auto d = st->differentiate(kernel(fn), Request{{wrt}, mode, ""});
      backends::Options o;
      o.count_ops = true;
      auto exe = d.executable("interp", o);
      exe->run(in);
      best = std::min(best, exe->counts()->total());
      WARN(fn << " by " << s << ": " << exe->counts()->total() << " operations");
    } catch (const Unsupported& e) {
      WARN(fn << " by " << s << " declined: " << e.what());
    }
  }
  REQUIRE(best < std::numeric_limits<std::int64_t>::max());
  return best;
}

}  // namespace

TEST_CASE(
    "paper 004 section 7: at n = 4096, density 2^-10, sparse gradients cost >= 100x less "
    "than the best dense strategy (SMVM, SMMM, BATAx)",
    "[sparse][cost][slow]") {
  const std::int64_t n = 4096, nnz = n * n / 1024;
  ir::Tensor a = ir::random_sparse(n, n, ir::Storage::Csr, ir::SparseFill::nnz(nnz),
                                   ir::ValueDist::normal(0, 1), 11);
  ir::Tensor dense_a = ir::to_dense(a);
  ir::Tensor x = ir::random_normal({n}, 0, 1, 12);
  ir::Tensor b = ir::random_normal({n, 2}, 0, 1, 13);
  ir::EvalOptions o;

  auto smvm = sparse::tangent_pass(*kernel("smvm"), {a, x}, {1}, o).total().total();
  auto smvm_d = best_dense("smvm_dense", Mode::Gradient, {dense_a, x}, "x");
  WARN("SMVM: sparse " << smvm << ", dense " << smvm_d << ", ratio "
                       << static_cast<double>(smvm_d) / static_cast<double>(smvm));
  CHECK(smvm * 100 <= smvm_d);

  auto smmm = sparse::tangent_pass(*kernel("smmm"), {a, b}, {1}, o).total().total();
  auto smmm_d = best_dense("smmm_dense", Mode::Gradient, {dense_a, b}, "B");
  WARN("SMMM: sparse " << smmm << ", dense " << smmm_d << ", ratio "
                       << static_cast<double>(smmm_d) / static_cast<double>(smmm));
  CHECK(smmm * 100 <= smmm_d);

  // BATAx: the sparse side computes the whole Jacobian; the dense side is charged one vjp only
  // (a Jacobian needs n of them), so the comparison favours dense.
  auto batax =
      sparse::tangent_pass(*kernel("batax"), {a, x, ir::scalar(2)}, {1}, o).total().total();
  auto batax_d = best_dense("batax_dense", Mode::Vjp,
                            {dense_a, x, ir::scalar(2), ir::random_normal({n}, 0, 1, 14)}, "x");
  WARN("BATAx: sparse Jacobian " << batax << ", dense vjp " << batax_d << ", ratio "
                                 << static_cast<double>(batax_d) / static_cast<double>(batax));
  CHECK(batax * 100 <= batax_d);
}
