// digest 004 section 9.2 beyond the rule proofs: the storage round trips (Fig. 10's CSR, dense
// row-major and COO specifications give the logical tensor) and the VVD optimisation golden as
// an operation count (the derivative w.r.t. a dense V1 is one pass over V2's stored entries).
#include <catch2/catch.hpp>

#include "ad/sparse/tangent_engine.h"
#include "ir/interp/interpreter.h"
#include "ir/syntax/parser.h"
#include "ir/tensor/eigen_sparse.h"
#include "ir/tensor/random.h"
#include "ir/tensor/table1_matrices.h"
#include "ir/tensor/tensor_ops.h"

using namespace adlab;

namespace {

const char* kPrograms = R"(
func logical(A: f64[n, m] @csr) -> f64[n, m] {
  return gen[i < n, j < m] A[i, j]
}
func row_major[r, c](M: f64[k]) -> f64[r, c] {
  return gen[i < r, j < c] M[i * c + j]
}
func coo_vector(v: f64[n] @coo) -> f64[n] {
  return gen[i < n] v[i]
}
func smmm_sparse(A: f64[n, p] @csr, B: f64[p, m] @csr) -> f64 {
  return sum[(i, k) in A] A[i, k] * sum[(j) in B[k]] B[k, j]
}
func vvd(v1: f64[n], v2: f64[n] @coo) -> f64 {
  return sum[(i) in v2] v1[i] * v2[i]
}
)";

ir::FunctionPtr program(const std::string& name) {
  static ir::Module m = ir::parse_module(kPrograms, "sparse_storage_goldens.adl");
  return m.entry(name);
}

}  // namespace

TEST_CASE("digest 004 9.2 storage round trips: CSR pos/idx/val, dense row-major, COO", "[sparse]") {
  ir::Interpreter<double> interp;
  ir::Tensor a = ir::make_csr(3, 3, {0, 2, 3, 5}, {0, 2, 1, 0, 2}, {1, 2, 3, 4, 5});
  CHECK(interp.run_tensors(*program("logical"), {a})[0].values ==
        std::vector<double>{1, 0, 2, 0, 3, 0, 4, 0, 5});
  ir::EvalOptions sized;
  sized.sizes = {{"r", 2}, {"c", 3}};
  ir::Interpreter<double> with_sizes(sized);
  CHECK(with_sizes.run_tensors(*program("row_major"), {ir::dense_f64({6}, {1, 2, 3, 4, 5, 6})})[0]
            .values == std::vector<double>{1, 2, 3, 4, 5, 6});
  CHECK(interp.run_tensors(*program("coo_vector"), {ir::make_coo({4}, {1, 3}, {5, 7})})[0].values ==
        std::vector<double>{0, 5, 0, 7});
  // COO with a duplicate key is an error, not a silently merged entry (DESIGN 2.3).
  CHECK_THROWS(interp.run_tensors(*program("coo_vector"), {ir::make_coo({4}, {1, 1}, {5, 7})}));
}

TEST_CASE("digest 004 9.2 VVD golden: the derivative w.r.t. dense V1 is one pass over V2",
          "[sparse]") {
  // sum(<_, i> in (0:V2_len)) {V2_row(i) -> V2_val(i)}: nnz(V2) scalings, no merges, whatever n.
  for (std::int64_t n : {8, 1000, 100000}) {
    ir::Tensor v2 = ir::make_coo({n}, {1, 3, 5}, {5, 7, -2});
    ir::Tensor v1 = ir::dense_f64({n}, std::vector<double>(static_cast<std::size_t>(n), 1.5));
    auto pass = ad::sparse::tangent_pass(*program("vvd"), {v1, v2}, {0}, ir::EvalOptions{});
    CHECK(pass.tangent_counts.muls == 3);
    CHECK(pass.tangent_counts.adds == 0);
    CHECK(pass.tangent_entries() == 3);
  }
}

TEST_CASE(
    "digest 004 9.1 test 6 through Eigen: the gradient w.r.t. a CSR B is a CSR matrix "
    "that converts to Eigen and equals A^T 1 on B's pattern",
    "[sparse]") {
  ir::Tensor a = ir::random_sparse(40, 30, ir::Storage::Csr, ir::SparseFill::fraction(0.1),
                                   ir::ValueDist::normal(0, 1), 21);
  ir::Tensor b = ir::random_sparse(30, 20, ir::Storage::Csr, ir::SparseFill::fraction(0.1),
                                   ir::ValueDist::normal(0, 1), 22);
  auto pass = ad::sparse::tangent_pass(*program("smmm_sparse"), {a, b}, {1}, ir::EvalOptions{});
  ir::Tensor g = b;  // the gradient has B's storage and pattern
  for (std::size_t p = 0; p < g.values.size(); ++p) g.values[p] = 0;
  for (const auto& e : pass.results[0].values[0].tangent())
    g.values[static_cast<std::size_t>(e.coord)] = e.value;
  ir::EigenCsr ge = ir::to_eigen_sparse(g);
  CHECK(ge.nonZeros() == b.nnz());
  Eigen::VectorXd col_sums = ir::to_eigen_sparse(a).transpose() * Eigen::VectorXd::Ones(40);
  for (int k = 0; k < ge.outerSize(); ++k)
    for (ir::EigenCsr::InnerIterator it(ge, k); it; ++it)
      CHECK(it.value() == Approx(col_sums(k)).margin(1e-12));
  ir::Tensor back = ir::from_eigen_sparse(ge);
  CHECK(back.row_ptr == g.row_ptr);
  CHECK(back.col_idx == g.col_idx);
  CHECK(back.values == g.values);
}

TEST_CASE("paper 004 Table 1 generator on the two small matrices: sizes, counts, symmetry, seeds",
          "[sparse]") {
  for (std::string name : {"bcsprw10", "nopoly"}) {
    INFO(name);
    const auto& m = ir::table1_matrix(name);
    ir::Tensor t = ir::synthetic_table1(m, 5);
    ir::validate(t);
    CHECK(t.shape == std::vector<std::int64_t>{m.n, m.n});
    CHECK(t.nnz() == 2 * m.nnz_listed - m.n);
    bool symmetric = true;  // A(j, i) == A(i, j) for the stored entries of every 97th row
    for (std::int64_t i = 0; i < m.n; i += 97)
      for (std::int64_t p = t.row_ptr[static_cast<std::size_t>(i)];
           p < t.row_ptr[static_cast<std::size_t>(i) + 1]; ++p)
        symmetric = symmetric && ir::read_entry(t, {t.col_idx[static_cast<std::size_t>(p)], i}) ==
                                     t.values[static_cast<std::size_t>(p)];
    CHECK(symmetric);
    CHECK(ir::synthetic_table1(m, 5).values == t.values);  // the seed decides everything
    CHECK(ir::synthetic_table1(m, 6).values != t.values);
  }
}
