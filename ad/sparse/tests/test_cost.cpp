// Cost follows stored entries (paper 004 section 7, digest 004 section 9.3 "asymptotics a toolkit
// can assert"): operation counts of the sparse gradients over sweeps of dimension at fixed nnz
// and of density at fixed dimension, for SMVM, SMMM and BATAx.
#include <catch2/catch.hpp>
#include <cmath>

#include "ad/sparse/tangent_engine.h"
#include "ad/sparse/tests/kernels.h"
#include "ad/strategy.h"
#include "checker/complexity/complexity.h"
#include "ir/tensor/random.h"
#include "ir/tensor/tensor_ops.h"

using namespace adlab;
using namespace adlab::ad;

namespace {

using sparse_kernels::kernel;

ir::Tensor matrix(std::int64_t n, std::int64_t nnz, std::uint64_t seed) {
  return ir::random_sparse(n, n, ir::Storage::Csr, ir::SparseFill::nnz(nnz),
                           ir::ValueDist::normal(0, 1), seed);
}

std::vector<ir::Tensor> inputs(const std::string& k, const ir::Tensor& a, std::uint64_t seed) {
  const std::int64_t n = a.shape[0];
  if (k == "smmm") return {a, ir::random_normal({n, 4}, 0, 1, seed)};
  if (k == "batax") return {a, ir::random_normal({n}, 0, 1, seed), ir::scalar(2)};
  return {a, ir::random_normal({n}, 0, 1, seed)};
}

// The derivative's operation count (primal and tangent work) for one kernel on one matrix.
std::int64_t cost(const std::string& k, const ir::Tensor& a) {
  ir::EvalOptions o;
  std::size_t wrt = 1;  // x or B
  return sparse::tangent_pass(*kernel(k), inputs(k, a, 7), {wrt}, o).total().total();
}

// sum_i nnz(row_i)^2: digest 004 section 9.3's bound for BATAx.
double row_square_sum(const ir::Tensor& a) {
  double s = 0;
  for (std::size_t i = 0; i + 1 < a.row_ptr.size(); ++i) {
    double r = static_cast<double>(a.row_ptr[i + 1] - a.row_ptr[i]);
    s += r * r;
  }
  return s;
}

}  // namespace

TEST_CASE(
    "digest 004 9.3: at fixed nnz the gradient cost of SMVM, SMMM, BATAx does not grow "
    "with n",
    "[sparse][cost]") {
  for (std::string k : {"smvm", "smmm", "batax"}) {
    INFO(k);
    std::vector<std::pair<double, double>> by_n;
    for (std::int64_t n : {512, 1024, 2048, 4096}) {
      auto a = matrix(n, 4096, static_cast<std::uint64_t>(n));
      by_n.emplace_back(static_cast<double>(n), static_cast<double>(cost(k, a)));
    }
    double slope = checker::loglog_slope(by_n);
    INFO("cost slope in n at nnz = 4096: " << slope);
    CHECK(slope < 0.25);  // a dense gradient has slope 2 here
  }
}

TEST_CASE(
    "digest 004 9.3: at fixed n the gradient cost of SMVM and SMMM is linear in nnz, "
    "BATAx follows sum_i nnz(row_i)^2",
    "[sparse][cost]") {
  const std::int64_t n = 1024;
  for (std::string k : {"smvm", "smmm"}) {
    INFO(k);
    std::vector<std::pair<double, double>> by_nnz;
    for (std::int64_t nnz : {1024, 2048, 4096, 8192, 16384}) {
      auto a = matrix(n, nnz, static_cast<std::uint64_t>(nnz));
      by_nnz.emplace_back(static_cast<double>(nnz), static_cast<double>(cost(k, a)));
    }
    double slope = checker::loglog_slope(by_nnz);
    INFO("cost slope in nnz at n = 1024: " << slope);
    CHECK(slope > 0.85);
    CHECK(slope < 1.15);
  }
  std::vector<std::pair<double, double>> batax;
  for (std::int64_t nnz : {1024, 4096, 16384, 65536}) {
    auto a = matrix(n, nnz, static_cast<std::uint64_t>(nnz));
    batax.emplace_back(row_square_sum(a) + static_cast<double>(nnz),
                       static_cast<double>(cost("batax", a)));
  }
  double slope = checker::loglog_slope(batax);
  INFO("BATAx cost slope in sum_i nnz(row_i)^2 + nnz: " << slope);
  CHECK(slope > 0.85);
  CHECK(slope < 1.15);
}
