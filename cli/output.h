// Formatting of tensors and results for the terminal and for JSON.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "ir/expr.h"
#include "ir/tensor/tensor.h"

namespace adlab::cli {

// "[[1, 2], [3, 4]]" with `digits` significant digits; sparse tensors list their stored entries.
template <class T>
std::string format_tensor(const ir::BasicTensor<T>& t, int digits);
// JSON of a result (double precision).
nlohmann::json result_json(const ir::Tensor& t);
std::string type_of(const ir::Tensor& t);
// j as indented text: strings that are not UTF-8 (a message quoting a source byte) get U+FFFD
// instead of an exception that would lose the whole report.
std::string json_text(const nlohmann::json& j);
// Writes `text` to stdout (`out` empty) or to the file `out` (throws adlab::Error if it cannot).
void write_output(const std::string& out, const std::string& text);

}  // namespace adlab::cli
