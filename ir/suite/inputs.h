// Inputs for a function: sizes, shapes, and tensors from generators or files (docs/suites.md).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ir/function.h"
#include "ir/suite/manifest.h"
#include "ir/tensor/tensor.h"

namespace adlab::ir {

// The value of an integer size expression (n, n + m - 1, D * (D - 1) / 2) given sizes by name.
std::int64_t eval_size(Expr e, const SizeMap& sizes);
// Whether eval_size evaluates e's form: sizes, literals, unary minus, + - * / %, min and max
// (a shape may use any i64 expression of sizes; a backend declines the rest before it runs).
bool is_size_arithmetic(Expr e);
std::vector<std::int64_t> eval_shape(const Type& t, const SizeMap& sizes);

// Converts a tensor read from a file to the parameter's element type and storage
// (dense -> @csr/@coo keeps the non-zeros; f64 data for an i64 parameter must be integral).
Tensor adapt_to_param(Tensor t, const Type& param_type, const std::string& what);

// Generates parameter k of f from a generator spec (docs/suites.md "Input generators").
// `base_dir` resolves {"file": ...}. A rank-0 i64 size parameter takes its value from sizes.
Tensor generate_input(const Function& f, std::size_t k, const nlohmann::json& spec,
                      const SizeMap& sizes, std::uint64_t seed, const std::string& base_dir);

// The default generator for a parameter without a spec: normal(0, 1) for floating tensors,
// density 0.2 for sparse ones. Integer tensors need a spec (throws).
nlohmann::json default_spec(const Function& f, std::size_t k);

// Reads a tensor file by extension: .json, .npy, .mtx.
// `elem` tells the JSON reader how to read entries (true/false for bool).
Tensor read_tensor_file(const std::string& path, ElemType elem = ElemType::F64);

// All inputs of a manifest entry at a size set ("small" or "full").
std::vector<Tensor> entry_inputs(const Function& f, const SuiteEntry& e,
                                 const std::string& size_set);

}  // namespace adlab::ir
