// The six kernels of suites/papers/nablasd against the closed forms of digest 004 section 7.2,
// through the registered strategy on random sparse inputs (fixed seeds): BATAx's Jacobian is
// beta A^T A (the suite's batax_jacobian), SMMM's and SMVM's gradients are A's column sums
// (smmm_grad, smvm_grad), VVD's is V2 (vvd_grad), VVA's Jacobian is I, VSM's derivative is 2 s V.
#include <catch2/catch.hpp>

#include "ad/strategy.h"
#include "ir/interp/interpreter.h"
#include "ir/syntax/parser.h"
#include "ir/tensor/random.h"
#include "ir/tensor/tensor_ops.h"

using namespace adlab;
using namespace adlab::ad;

namespace {

ir::Module suite_program(const std::string& file) {
  return ir::parse_file(std::string(ADLAB_SOURCE_DIR) + "/suites/papers/nablasd/" + file);
}

std::vector<ir::Tensor> run(const ir::Module& m, const std::string& fn, Mode mode,
                            const std::vector<ir::Tensor>& in, const std::string& wrt) {
  auto d = StrategyRegistry::instance().find("sparse")->differentiate(m.entry(fn),
                                                                      Request{{wrt}, mode, ""});
  backends::Options o;
  return d.executable("interp", o)->run(in);
}

std::vector<double> closed_form(const ir::Module& m, const std::string& fn,
                                const std::vector<ir::Tensor>& in) {
  ir::Interpreter<double> interp;
  return interp.run_tensors(*m.entry(fn), in)[0].values;
}

void check_close(const std::vector<double>& got, const std::vector<double>& want) {
  REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < got.size(); ++i) CHECK(got[i] == Approx(want[i]).margin(1e-12));
}

ir::Tensor sparse_matrix(std::int64_t n, std::int64_t m, std::uint64_t seed) {
  return ir::random_sparse(n, m, ir::Storage::Csr, ir::SparseFill::fraction(0.1),
                           ir::ValueDist::normal(0, 1), seed);
}

}  // namespace

TEST_CASE("digest 004 7.2 BATAx: the Jacobian w.r.t. x is beta A^T A (suite batax_jacobian)",
          "[sparse]") {
  auto m = suite_program("batax.adl");
  std::vector<ir::Tensor> in = {sparse_matrix(30, 20, 1), ir::random_normal({20}, 0, 1, 2),
                                ir::scalar(2)};
  auto j = run(m, "batax", Mode::Jacobian, in, "x");
  check_close(j[1].values, closed_form(m, "batax_jacobian", in));
  check_close(j[0].values, closed_form(m, "batax_dense", in));
}

TEST_CASE("digest 004 7.2 SMMM, SMVM, VVD: gradients equal the suite's closed forms", "[sparse]") {
  auto smmm = suite_program("smmm.adl");
  std::vector<ir::Tensor> in = {sparse_matrix(25, 30, 3), ir::random_normal({30, 4}, 0, 1, 4)};
  check_close(run(smmm, "smmm", Mode::Gradient, in, "B")[1].values,
              closed_form(smmm, "smmm_grad", in));
  auto smvm = suite_program("smvm.adl");
  in = {sparse_matrix(25, 30, 5), ir::random_normal({30}, 0, 1, 6)};
  check_close(run(smvm, "smvm", Mode::Gradient, in, "x")[1].values,
              closed_form(smvm, "smvm_grad", in));
  auto vvd = suite_program("vvd.adl");
  in = {ir::random_normal({40}, 0, 1, 7),
        ir::make_coo({40}, {2, 7, 11, 19, 30, 38}, {0.5, -1, 2, 0.25, -3, 1.5})};
  check_close(run(vvd, "vvd", Mode::Gradient, in, "v1")[1].values,
              closed_form(vvd, "vvd_grad", in));
}

TEST_CASE("digest 004 7.2 VVA and VSM: the identity on V1, and 2 s V on V's stored keys",
          "[sparse]") {
  auto vva = suite_program("vva.adl");
  ir::Tensor v2 = ir::make_coo({5}, {1, 4}, {0.5, -2});
  auto j = run(vva, "vva", Mode::Jacobian, {ir::random_normal({5}, 0, 1, 9), v2}, "v1");
  for (std::int64_t r = 0; r < 5; ++r)
    for (std::int64_t c = 0; c < 5; ++c)
      CHECK(j[1].values[static_cast<std::size_t>(r * 5 + c)] == (r == c ? 1.0 : 0.0));
  auto vsm = suite_program("vsm.adl");
  ir::Tensor v = ir::make_coo({6}, {0, 3, 5}, {1.5, -2, 0.25});
  auto d = run(vsm, "vsm", Mode::Jacobian, {v, ir::scalar(-1.5)}, "s");
  check_close(d[1].values, {2 * -1.5 * 1.5, 2 * -1.5 * -2, 2 * -1.5 * 0.25});
}
