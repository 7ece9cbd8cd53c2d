// Memory and time of sparse gradients on the synthetic Table 1 matrices (paper 004 Table 1,
// section 7.4 RQ1): `adlab_sparse_table1_bench MATRIX KERNEL [--mtx FILE]` runs one kernel's
// derivative (SMVM, SMMM gradients w.r.t. the dense operand; the BATAx Jacobian w.r.t. x) on one
// matrix in this process, and prints its time, stored tangent entries and peak resident memory.
// With --mtx FILE the real SuiteSparse matrix is read instead (Matrix Market, symmetry expanded).
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <exception>
#include <string>

#include "ad/sparse/tangent_engine.h"
#include "ad/sparse/tests/kernels.h"
#include "ir/tensor/matrix_market.h"
#include "ir/tensor/random.h"
#include "ir/tensor/table1_matrices.h"
#include "ir/tensor/tensor_ops.h"

using namespace adlab;

namespace {

double peak_rss_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;  // KiB on Linux
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s MATRIX smvm|smmm|batax [--mtx FILE]\n", argv[0]);
    return 2;
  }
  try {
    const std::string name = argv[1], kernel = argv[2];
    auto t0 = std::chrono::steady_clock::now();
    ir::Tensor a = argc >= 5 && std::string(argv[3]) == "--mtx"
                       ? ir::read_matrix_market(argv[4])
                       : ir::synthetic_table1(ir::table1_matrix(name), 1);
    const std::int64_t n = a.shape[1];
    std::vector<ir::Tensor> in;
    if (kernel == "smmm")
      in = {a, ir::random_normal({n, 2}, 0, 1, 3)};
    else if (kernel == "batax")
      in = {a, ir::random_normal({n}, 0, 1, 2), ir::scalar(2)};
    else
      in = {a, ir::random_normal({n}, 0, 1, 2)};
    double load = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    t0 = std::chrono::steady_clock::now();
    ir::EvalOptions o;
    auto pass = ad::sparse::tangent_pass(*sparse_kernels::kernel(kernel), in, {1}, o);
    double grad = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf(
        "%-10s %-6s n=%lld nnz=%lld load=%.2fs derivative=%.2fs tangent_entries=%lld "
        "ops=%lld peak_rss=%.0fMiB dense_n2_f64=%.1fGB\n",
        name.c_str(), kernel.c_str(), static_cast<long long>(n), static_cast<long long>(a.nnz()),
        load, grad, static_cast<long long>(pass.tangent_entries()),
        static_cast<long long>(pass.total().total()), peak_rss_mib(),
        static_cast<double>(n) * static_cast<double>(n) * 8 / 1e9);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
