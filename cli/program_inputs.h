// The inputs of one function run from the command line: files, seeded random tensors (the
// manifest's generator when the program has a manifest entry) and sizes (shared by eval and grad).
#pragma once

#include <string>
#include <vector>

#include "ir/function.h"
#include "ir/interp/interpreter.h"
#include "ir/suite/manifest.h"
#include "ir/tensor/tensor.h"

namespace adlab::cli {

struct ProgramInputs {
  ir::Module module;
  ir::FunctionPtr f;
  std::vector<ir::Suite> suites;          // holds `entry`
  const ir::SuiteEntry* entry = nullptr;  // the manifest entry of this function, if any
  ir::SizeMap sizes;
  std::vector<ir::Tensor> inputs;  // one per parameter
};

// `inputs`: NAME=PATH or NAME=random[:seed]; `sizes`: NAME=N. Throws adlab::Error on bad input.
// Without `need_inputs` only the program, its entry and the sizes are loaded.
ProgramInputs load_program_inputs(const std::string& file, const std::string& func,
                                  const std::vector<std::string>& inputs,
                                  const std::vector<std::string>& sizes, bool need_inputs = true);

}  // namespace adlab::cli
