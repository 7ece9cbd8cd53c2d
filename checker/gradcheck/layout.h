// Flattening of a function's floating inputs and results into vectors of scalars, the
// coordinates of Jacobians (DESIGN 2.3: sparse tensors contribute their stored entries only).
#pragma once

#include <string>
#include <vector>

#include "ir/function.h"
#include "ir/tensor/tensor.h"

namespace adlab::checker {

// One block of coordinates: a parameter (or result) and how many scalars it contributes.
struct Block {
  std::string name;        // parameter name, or "result k"
  std::size_t index = 0;   // parameter or result position
  std::size_t offset = 0;  // first coordinate
  std::size_t count = 0;   // number of scalars: dense entries or stored entries
  ir::Storage storage = ir::Storage::Dense;
  std::vector<std::int64_t> shape;
};

struct Layout {
  std::vector<Block> blocks;
  std::size_t size = 0;
  // "x[2, 1]" for coordinate k (the stored entry's key for sparse blocks).
  std::string describe(std::size_t k, const std::vector<ir::Tensor>& values) const;
  const Block& block_of(std::size_t k) const;
  // Each block's count, in order: the error model's groups (docs/results.md).
  std::vector<std::size_t> block_sizes() const;
};

// The floating parameters named in wrt (all floating parameters when wrt is empty).
Layout input_layout(const ir::Function& f, const std::vector<std::string>& wrt,
                    const std::vector<ir::Tensor>& inputs);
Layout output_layout(const std::vector<ir::Tensor>& results);

// Tensors shaped like the blocks of `layout` (taken from `like`: the parameters or the results)
// holding the values of `flat`: the tangents or cotangents of a jvp or vjp.
// vjp's cotangent arguments: one per result (DESIGN 2.3), `flat` laid out by output_layout for
// the floating ones, zeros for the integer ones (no derivative flows through them).
std::vector<ir::Tensor> result_cotangents(const Layout& out, const std::vector<ir::Tensor>& results,
                                          const std::vector<double>& flat);
std::vector<ir::Tensor> shaped_like(const Layout& layout, const std::vector<ir::Tensor>& like,
                                    const std::vector<double>& flat);
// `flat` with the entries of f32 blocks rounded to f32: a direction the derivative receives
// exactly, so the reference is computed along the same one (decision 202).
std::vector<double> representable(const Layout& layout, const std::vector<ir::Tensor>& like,
                                  std::vector<double> flat);

// The scalars of the blocks of `layout`, read from / written into tensors (values arrays).
template <class T>
std::vector<T> gather(const Layout& layout, const std::vector<ir::BasicTensor<T>>& tensors);
template <class T>
void scatter_into(const Layout& layout, const std::vector<T>& flat,
                  std::vector<ir::BasicTensor<T>>& tensors);

}  // namespace adlab::checker
