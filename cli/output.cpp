// Formatting of tensors and results.
#include "cli/output.h"

#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "ir/error.h"
#include "ir/interp/scalar.h"
#include "ir/tensor/json_io.h"
#include "ir/tensor/tensor_ops.h"

namespace adlab::cli {

namespace {
// A NaN prints as `nan` whatever its sign bit: x86's 0/0 sets it, so the same NaN printed
// `-nan` from one backend and `nan` from another (an audit helper).
template <class V>
void put_float(std::ostream& os, const V& v) {
  if (v != v)
    os << "nan";
  else
    os << v;
}

template <class T>
void put(std::ostream& os, const ir::BasicTensor<T>& t, std::size_t k) {
  if (ir::is_float(t.elem))
    put_float(os, t.values[k]);
  else if (t.elem == ir::ElemType::Bool)
    os << (t.ints[k] ? "true" : "false");
  else
    os << t.ints[k];
}

template <class T>
void nested(std::ostream& os, const ir::BasicTensor<T>& t, std::size_t dim, std::size_t& k) {
  if (dim == t.shape.size()) {
    put(os, t, k++);
    return;
  }
  os << "[";
  for (std::int64_t i = 0; i < t.shape[dim]; ++i) {
    if (i) os << ", ";
    nested(os, t, dim + 1, k);
  }
  os << "]";
}
}  // namespace

template <class T>
std::string format_tensor(const ir::BasicTensor<T>& t, int digits) {
  std::ostringstream os;
  os << std::setprecision(digits);
  if (t.storage == ir::Storage::Dense) {
    std::size_t k = 0;
    nested(os, t, 0, k);
    return os.str();
  }
  // Sparse: {(i, j): v, ...} in stored order.
  auto coo = t.storage == ir::Storage::Coo ? t : ir::to_coo(t);
  os << "{";
  std::size_t rank = coo.shape.size();
  for (std::size_t p = 0; p < coo.values.size(); ++p) {
    if (p) os << ", ";
    os << "(";
    for (std::size_t d = 0; d < rank; ++d) os << (d ? ", " : "") << coo.coords[p * rank + d];
    os << "): ";
    put_float(os, coo.values[p]);
  }
  os << "}";
  return os.str();
}

template std::string format_tensor(const ir::BasicTensor<double>&, int);
template std::string format_tensor(const ir::BasicTensor<float>&, int);
template std::string format_tensor(const ir::BasicTensor<ir::mp50>&, int);

nlohmann::json result_json(const ir::Tensor& t) {
  return ir::tensor_to_json(t);
}

std::string type_of(const ir::Tensor& t) {
  return ir::type_str(t.elem, t.storage, t.shape);
}

void write_output(const std::string& out, const std::string& text) {
  if (out.empty()) {  // main() reports a failed write to stdout
    std::cout << text;
    return;
  }
  std::ofstream f(out);
  if (!f) throw Error("cannot write `" + out + "`");
  f << text;
  f.close();  // a full disk shows only here
  if (!f) throw Error("cannot write `" + out + "` (disk full?)");
}

std::string json_text(const nlohmann::json& j) {
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace adlab::cli
