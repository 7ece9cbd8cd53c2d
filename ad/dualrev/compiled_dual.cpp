// dualrev on the cpu backend: T = Dual in the generated unit. Its operators are dual.h's inline
// functions, so the compiled code pushes the same nodes on the same thread's job; the few
// out-of-line symbols they use (tl_job, NodeBuffer::grow) resolve to adlab's own when the unit is
// loaded (the executables export adlab::ad::dualrev::*, see cmake/dualrev_exports.list).
#include "ad/dualrev/compiled_dual.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <type_traits>

#include "backends/cpu/cpu_backend.h"
#include "ir/tensor/tensor_ops.h"

namespace adlab::ad::dualrev {

namespace {

namespace fs = std::filesystem;

// Entries cross the unit's boundary as bytes.
static_assert(std::is_trivially_copyable_v<Dual>);

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Dual as the unit's scalar type: dual.h from adlab's source tree, with the text of every dualrev
// header in the cache key (a changed Dual, Node or Job layout never loads a stale object), and
// no OpenMP (a Dual records on its thread's job; pool threads have none).
backends::cpu::ScalarType dual_scalar_type() {
  const fs::path root = ADLAB_SOURCE_DIR;
  const fs::path dir = root / "ad" / "dualrev";
  if (!fs::exists(dir / "dual.h"))
    throw Error("dualrev on cpu: the dualrev headers are not at `" + dir.string() +
                "` (adlab's source directory when it was built)");
  std::vector<fs::path> headers;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".h") headers.push_back(e.path());
  std::sort(headers.begin(), headers.end());
  std::string key;
  for (const auto& h : headers) key += h.filename().string() + '\0' + read_text(h) + '\0';
  return backends::cpu::ScalarType{
      "adlab::ad::dualrev::Dual", "ad/dualrev/dual.h", {root.string()}, key, false};
}

}  // namespace

CompiledDual::CompiledDual(ir::FunctionPtr f, const backends::Options& o)
    : f_(std::move(f)), exe_([&] {
        // The headers are read once per process, not once per engine.
        static const backends::cpu::ScalarType dual = dual_scalar_type();
        return backends::cpu::compile_typed(f_, dual, sizeof(Dual), o);
      }()) {}

CompiledDual::~CompiledDual() = default;

std::vector<ir::BasicTensor<Dual>> CompiledDual::run(
    const std::vector<ir::Tensor>& inputs, const std::vector<ir::BasicTensor<Dual>>& args) {
  const std::size_t np = f_->params.size();
  std::vector<ir::Tensor> primal_inputs(inputs.begin(),
                                        inputs.begin() + static_cast<std::ptrdiff_t>(np));
  std::vector<const void*> scalars(np, nullptr);
  for (std::size_t k = 0; k < np; ++k)
    if (ir::is_float(primal_inputs[k].elem)) scalars[k] = args[k].values.data();
  std::vector<ir::Tensor> results;
  std::vector<std::vector<unsigned char>> typed;
  exe_->run_typed(primal_inputs, scalars, results, typed);
  std::vector<ir::BasicTensor<Dual>> outs;
  for (std::size_t k = 0; k < results.size(); ++k) {
    ir::BasicTensor<Dual> d = ir::with_layout_of<Dual>(results[k]);
    if (ir::is_float(results[k].elem)) {
      d.values.resize(typed[k].size() / sizeof(Dual));
      if (!typed[k].empty()) std::memcpy(d.values.data(), typed[k].data(), typed[k].size());
    }
    outs.push_back(std::move(d));
  }
  return outs;
}

}  // namespace adlab::ad::dualrev
