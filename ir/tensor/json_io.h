// Tensors as JSON: dense as nested arrays, sparse as {"format": "csr"|"coo", ...} objects.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>

#include "ir/tensor/tensor.h"

namespace adlab::ir {

// Reads a tensor from JSON.
//   dense:  nested arrays of equal length (a number alone is a rank-0 tensor; `[]` has shape [0]).
//           Integers read as f64 unless `want` is I64; for I64 every entry must be an integer,
//           for Bool every entry must be true/false (or 0/1). F32 entries are rounded to float.
//   sparse: {"format": "csr", "shape": [r, c], "row_ptr": [...], "col_idx": [...],
//            "values": [...]} or {"format": "coo", "shape": [...], "coords": [[i, j], ...],
//            "values": [...]}; validated like validate() (sorted, no duplicate keys).
// Non-finite floats are the strings "NaN", "Infinity", "-Infinity" (JSON has no literal for
// them). The result is converted to `want_storage`, or keeps the JSON's own storage when none is
// asked for (a sparse file's explicit zeros are stored entries: DESIGN 2.1). Errors name `source`
// (a file name, or empty) and the JSON path of the offending value, e.g. `$[1][0]`.
Tensor tensor_from_json(const nlohmann::json& j, ElemType want = ElemType::F64,
                        std::optional<Storage> want_storage = std::nullopt,
                        const std::string& source = {});

// The JSON form read by tensor_from_json. Doubles are written in the shortest form that
// reads back to the same bits; i64 as integers, bool as true/false. Nested arrays cannot show
// dimensions after a zero one: shape [2, 0, 3] is written [[], []], which reads as [2, 0].
nlohmann::json tensor_to_json(const Tensor& t);

// File versions; a malformed file's error carries the line and column of the JSON syntax error.
Tensor read_json_tensor(const std::string& path, ElemType want = ElemType::F64,
                        std::optional<Storage> want_storage = std::nullopt);
void write_json_tensor(const std::string& path, const Tensor& t);

}  // namespace adlab::ir
