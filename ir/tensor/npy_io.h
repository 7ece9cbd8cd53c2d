// NumPy .npy files (format versions 1.0, 2.0 and 3.0; little-endian, C order) for dense tensors.
#pragma once

#include <string>
#include <string_view>

#include "ir/tensor/tensor.h"

namespace adlab::ir {

// Reads '<f8' (f64), '<f4' (f32), '<i8' and '<i4' (i64), '|b1' (bool). Errors (adlab::Error
// naming `name`): bad magic or version, malformed header, fortran_order True, big-endian or
// other dtypes, truncated data. Bytes after the array are ignored, as np.load does.
Tensor decode_npy(std::string_view bytes, const std::string& name = "<npy>");
Tensor read_npy(const std::string& path);

// Dense tensors only: f64 -> '<f8', f32 -> '<f4', i64 -> '<i8', bool -> '|b1'. Writes version
// 1.0 unless the header needs 2.0; the header is padded so the data starts 64-byte aligned.
std::string encode_npy(const Tensor& t);
void write_npy(const std::string& path, const Tensor& t);

}  // namespace adlab::ir
