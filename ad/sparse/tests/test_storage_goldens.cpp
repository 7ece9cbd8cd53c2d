// digest 004 section 9.2 beyond the rule proofs: the storage round trips (Fig. 10's CSR, dense
// row-major and COO specifications give the logical tensor) and the VVD optimisation golden as
// an operation count (the derivative w.r.t. a dense V1 is one pass over V2's stored entries).
#include <catch2/catch.hpp>

#include "ad/sparse/tangent_engine.h"
#include "ir/interp/interpreter.h"
#include "ir/syntax/parser.h"
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
