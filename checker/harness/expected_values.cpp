#include "checker/harness/expected_values.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "ir/interp/interpreter.h"
#include "ir/suite/inputs.h"
#include "ir/syntax/printer.h"
#include "ir/tensor/json_io.h"
#include "ir/tensor/tensor_ops.h"

namespace adlab::checker {

ir::FunctionPtr expected_function(const ir::Module& m, const ir::Function& f,
                                  const ir::SuiteEntry& e, const std::string& kind) {
  const std::string where = e.id() + ": expected." + kind;
  const std::string name = e.expected[kind].get<std::string>();  // a string: load_manifest
  ir::FunctionPtr g = m.find(name);
  if (!g) throw Error(where + " names `" + name + "`, which " + e.program + " does not define");
  if (g->params.size() != f.params.size())
    throw Error(where + " `" + name + "` takes " + std::to_string(g->params.size()) +
                " parameter(s), the entry function " + std::to_string(f.params.size()));
  return g;
}

std::vector<ExpectedPrimal> expected_primals(const ir::Module& m, const ir::Function& f,
                                             const ir::SuiteEntry& e,
                                             const std::vector<ir::Tensor>& inputs,
                                             const ir::SizeMap& sizes) {
  std::vector<ExpectedPrimal> out;
  const std::string where = e.id() + ": expected.";
  if (e.expected.contains("primal")) {
    ir::FunctionPtr g = expected_function(m, f, e, "primal");
    ir::Interpreter<double> interp(ir::EvalOptions{sizes, false, false});
    out.push_back({"primal closed form `" + g->name + "`", interp.run_tensors(*g, inputs)});
  }
  if (e.expected.contains("primal_values")) {
    const auto& v = e.expected["primal_values"];
    ExpectedPrimal p{"primal_values", {}};
    if (f.results.size() == 1) {
      p.results.push_back(
          ir::adapt_to_param(ir::tensor_from_json(v), f.results[0]->type, where + "primal_values"));
    } else {
      if (!v.is_array() || v.size() != f.results.size())
        throw Error(where + "primal_values must be an array with one value per result (" +
                    std::to_string(f.results.size()) + ")");
      for (std::size_t k = 0; k < v.size(); ++k)
        p.results.push_back(ir::adapt_to_param(ir::tensor_from_json(v[k]), f.results[k]->type,
                                               where + "primal_values[" + std::to_string(k) + "]"));
    }
    out.push_back(std::move(p));
  }
  return out;
}

std::string compare_results(const std::vector<ir::Tensor>& got, const std::vector<ir::Tensor>& want,
                            double tol) {
  if (got.size() != want.size())
    return std::to_string(got.size()) + " result(s), expected " + std::to_string(want.size());
  for (std::size_t r = 0; r < got.size(); ++r) {
    const std::string res = "result " + std::to_string(r) + ": ";
    // A dense closed form of a sparse result compares entry by entry; two sparse ones by pattern.
    const bool one_dense =
        (got[r].storage == ir::Storage::Dense) != (want[r].storage == ir::Storage::Dense);
    ir::Tensor got_dense, want_dense;
    const ir::Tensor& a = one_dense ? (got_dense = ir::to_dense(got[r])) : got[r];
    const ir::Tensor& b = one_dense ? (want_dense = ir::to_dense(want[r])) : want[r];
    if (a.elem != b.elem || a.shape != b.shape || a.storage != b.storage)
      return res + "type " + ir::elem_name(a.elem) + ir::shape_str(a.shape) + ", expected " +
             ir::elem_name(b.elem) + ir::shape_str(b.shape);
    if (a.coords != b.coords || a.row_ptr != b.row_ptr || a.col_idx != b.col_idx)
      return res + "the stored coordinates differ";
    if (a.ints != b.ints) return res + "the integer entries differ";
    if (a.values.size() != b.values.size()) return res + "the number of entries differs";
    for (std::size_t k = 0; k < a.values.size(); ++k) {
      double x = a.values[k], w = b.values[k];
      if (!(std::fabs(x - w) <= tol * std::max(1.0, std::fabs(w))))
        return res + "entry " + std::to_string(k) + " is " + ir::number_str(x) + ", expected " +
               ir::number_str(w);
    }
  }
  return "";
}

}  // namespace adlab::checker
