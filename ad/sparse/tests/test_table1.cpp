// paper 004 Table 1 (digest 004 section 7.4): the synthetic matrices have the table's dimensions
// and stored-entry counts, and the sparse gradients of SMVM, SMMM and BATAx on the largest run
// within 2 GiB (a dense gradient would need n^2 doubles: 117 GB at n = 121K).
#include <sys/resource.h>

#include <catch2/catch.hpp>
#include <chrono>

#include "ad/sparse/tangent_engine.h"
#include "ad/sparse/tests/kernels.h"
#include "ir/tensor/random.h"
#include "ir/tensor/table1_matrices.h"
#include "ir/tensor/tensor_ops.h"

using namespace adlab;

namespace {

using sparse_kernels::kernel;

double peak_rss_gib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / (1024.0 * 1024.0);  // ru_maxrss is in KiB on Linux
}

}  // namespace

TEST_CASE("paper 004 Table 1: synthetic matrices have the listed dimensions and entry counts",
          "[sparse][table1][slow]") {
  for (const auto& m : ir::table1_matrices()) {
    INFO(m.name);
    ir::Tensor lower = ir::synthetic_table1(m, 1, /*expand_symmetric=*/false);
    CHECK(lower.shape == std::vector<std::int64_t>{m.n, m.n});
    CHECK(lower.nnz() == m.nnz_listed);
    ir::validate(lower);
    if (m.symmetric) {
      ir::Tensor full = ir::synthetic_table1(m, 1);
      CHECK(full.nnz() == 2 * m.nnz_listed - m.n);  // the diagonal is stored once
      // symmetric: A(i, j) == A(j, i) on a sample of stored entries
      for (std::int64_t i = 0; i < m.n; i += m.n / 17)
        for (std::int64_t p = full.row_ptr[static_cast<std::size_t>(i)];
             p < full.row_ptr[static_cast<std::size_t>(i) + 1]; ++p) {
          std::int64_t j = full.col_idx[static_cast<std::size_t>(p)];
          CHECK(ir::read_entry(full, {j, i}) == full.values[static_cast<std::size_t>(p)]);
        }
    }
  }
  CHECK_THROWS_WITH(ir::table1_matrix("bcspwr10"), Catch::Contains("bcsprw10"));
}

TEST_CASE("paper 004 Table 1: sparse gradients on cop20k_A (121K x 121K) run within 2 GiB",
          "[sparse][table1][slow]") {
  const auto& m = ir::table1_matrix("cop20k_A");
  ir::Tensor a = ir::synthetic_table1(m, 1);
  ir::Tensor x = ir::random_normal({m.n}, 0, 1, 2);
  ir::Tensor b = ir::random_normal({m.n, 2}, 0, 1, 3);
  ir::EvalOptions o;
  for (std::string k : {"smvm", "smmm", "batax"}) {
    auto t0 = std::chrono::steady_clock::now();
    std::vector<ir::Tensor> in = k == "smmm"    ? std::vector<ir::Tensor>{a, b}
                                 : k == "batax" ? std::vector<ir::Tensor>{a, x, ir::scalar(2)}
                                                : std::vector<ir::Tensor>{a, x};
    auto pass = ad::sparse::tangent_pass(*kernel(k), in, {1}, o);
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    WARN(m.name << " " << k << ": " << s << " s, " << pass.tangent_entries()
                << " tangent entries, peak RSS " << peak_rss_gib() << " GiB");
    CHECK(pass.tangent_entries() > 0);
  }
  CHECK(peak_rss_gib() < 2.0);
}
