// Flattening of floating inputs and results into coordinates.
#include "checker/gradcheck/layout.h"

#include <algorithm>

#include "ir/error.h"
#include "ir/interp/scalar.h"
#include "ir/tensor/tensor_ops.h"

namespace adlab::checker {

namespace {
Block make_block(std::string name, std::size_t index, std::size_t offset, const ir::Tensor& t) {
  Block b;
  b.name = std::move(name);
  b.index = index;
  b.offset = offset;
  b.count = static_cast<std::size_t>(t.nnz());
  b.storage = t.storage;
  b.shape = t.shape;
  return b;
}
}  // namespace

const Block& Layout::block_of(std::size_t k) const {
  for (const auto& b : blocks)
    if (k >= b.offset && k < b.offset + b.count) return b;
  throw Error("coordinate " + std::to_string(k) + " is outside the layout");
}

std::string Layout::describe(std::size_t k, const std::vector<ir::Tensor>& values) const {
  // An empty layout (n = 0, a sparse input with no stored entries) has no worst entry to name.
  if (std::all_of(blocks.begin(), blocks.end(), [](const Block& x) { return x.count == 0; }))
    return "(no entries)";
  const Block& b = block_of(k);
  std::size_t local = k - b.offset;
  std::vector<std::int64_t> key(b.shape.size());
  if (b.storage == ir::Storage::Dense || b.index >= values.size()) {
    std::size_t rem = local;
    for (std::size_t d = b.shape.size(); d-- > 0;) {
      key[d] = static_cast<std::int64_t>(rem % static_cast<std::size_t>(b.shape[d]));
      rem /= static_cast<std::size_t>(b.shape[d]);
    }
  } else {
    const ir::Tensor& t = values[b.index];
    ir::Tensor coo = t.storage == ir::Storage::Coo ? t : ir::to_coo(t);
    for (std::size_t d = 0; d < key.size(); ++d) key[d] = coo.coords[local * key.size() + d];
  }
  std::string s = b.name;
  if (!key.empty()) s += "[" + ir::index_str(key).substr(1, ir::index_str(key).size() - 2) + "]";
  return s;
}

std::vector<std::size_t> Layout::block_sizes() const {
  std::vector<std::size_t> g;
  for (const auto& b : blocks) g.push_back(b.count);
  return g;
}

Layout input_layout(const ir::Function& f, const std::vector<std::string>& wrt,
                    const std::vector<ir::Tensor>& inputs) {
  Layout l;
  for (const auto& w : wrt)
    if (f.param_index(w) < 0)
      throw Error("`" + f.name + "` has no parameter `" + w + "` to differentiate");
  for (std::size_t k = 0; k < f.params.size(); ++k) {
    const ir::Type& t = f.params[k]->type;
    const std::string& name = ir::var_name(f.params[k]);
    bool wanted = wrt.empty() ? (!t.is_tuple() && ir::is_float(t.elem))
                              : std::find(wrt.begin(), wrt.end(), name) != wrt.end();
    if (!wanted) continue;
    if (t.is_tuple() || !ir::is_float(t.elem))
      throw Error("cannot differentiate with respect to `" + name + "` of type " +
                  std::string(ir::elem_name(t.elem)));
    l.blocks.push_back(make_block(name, k, l.size, inputs[k]));
    l.size += l.blocks.back().count;
  }
  return l;
}

Layout output_layout(const std::vector<ir::Tensor>& results) {
  Layout l;
  for (std::size_t k = 0; k < results.size(); ++k) {
    if (!ir::is_float(results[k].elem)) continue;
    l.blocks.push_back(make_block("result " + std::to_string(k), k, l.size, results[k]));
    l.size += l.blocks.back().count;
  }
  return l;
}

template <class T>
std::vector<T> gather(const Layout& layout, const std::vector<ir::BasicTensor<T>>& tensors) {
  std::vector<T> out(layout.size);
  for (const auto& b : layout.blocks) {
    const auto& v = tensors[b.index].values;
    if (v.size() != b.count)
      throw Error(b.name + " has " + std::to_string(v.size()) + " values, expected " +
                  std::to_string(b.count));
    std::copy(v.begin(), v.end(), out.begin() + static_cast<std::ptrdiff_t>(b.offset));
  }
  return out;
}

template <class T>
void scatter_into(const Layout& layout, const std::vector<T>& flat,
                  std::vector<ir::BasicTensor<T>>& tensors) {
  for (const auto& b : layout.blocks) {
    auto& v = tensors[b.index].values;
    std::copy(flat.begin() + static_cast<std::ptrdiff_t>(b.offset),
              flat.begin() + static_cast<std::ptrdiff_t>(b.offset + b.count), v.begin());
  }
}

template std::vector<double> gather(const Layout&, const std::vector<ir::BasicTensor<double>>&);
template std::vector<ir::mp50> gather(const Layout&, const std::vector<ir::BasicTensor<ir::mp50>>&);
template void scatter_into(const Layout&, const std::vector<double>&,
                           std::vector<ir::BasicTensor<double>>&);
template void scatter_into(const Layout&, const std::vector<ir::mp50>&,
                           std::vector<ir::BasicTensor<ir::mp50>>&);

std::vector<ir::Tensor> shaped_like(const Layout& layout, const std::vector<ir::Tensor>& like,
                                    const std::vector<double>& flat) {
  std::vector<ir::Tensor> out;
  for (const auto& b : layout.blocks) {
    ir::Tensor t = like[b.index];
    t.values.assign(flat.begin() + static_cast<std::ptrdiff_t>(b.offset),
                    flat.begin() + static_cast<std::ptrdiff_t>(b.offset + b.count));
    out.push_back(t);
  }
  return out;
}

std::vector<double> representable(const Layout& layout, const std::vector<ir::Tensor>& like,
                                  std::vector<double> flat) {
  for (const auto& b : layout.blocks)
    if (like[b.index].elem == ir::ElemType::F32)
      for (std::size_t k = b.offset; k < b.offset + b.count && k < flat.size(); ++k)
        flat[k] = static_cast<double>(static_cast<float>(flat[k]));
  return flat;
}

std::vector<ir::Tensor> result_cotangents(const Layout& out, const std::vector<ir::Tensor>& results,
                                          const std::vector<double>& flat) {
  std::vector<ir::Tensor> ct;
  for (const auto& y : results) {
    ir::Tensor zero = y;
    std::fill(zero.values.begin(), zero.values.end(), 0.0);
    std::fill(zero.ints.begin(), zero.ints.end(), std::int64_t{0});
    ct.push_back(std::move(zero));
  }
  auto floating = shaped_like(out, results, flat);
  for (std::size_t k = 0; k < out.blocks.size(); ++k) ct[out.blocks[k].index] = floating[k];
  return ct;
}

}  // namespace adlab::checker
