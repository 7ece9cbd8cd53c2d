// Checks one derivative (one strategy, backend and mode) of one entry against the reference.
#pragma once

#include <random>

#include "ad/strategy.h"
#include "checker/gradcheck/error_model.h"
#include "checker/harness/harness.h"

namespace adlab::checker {

// What every cell of one entry shares: the function, inputs, reference and tolerance model.
struct EntryContext {
  const ir::SuiteEntry* entry = nullptr;
  ir::Module module;
  ir::FunctionPtr f;
  std::vector<ir::Tensor> inputs;
  ir::SizeMap sizes;
  std::vector<std::string> wrt;
  Reference ref;
  Tolerance tolerance;  // the entry's model (floor 0): one double primal run, shared by its cells
  std::uint64_t seed = 1;
};

// Runs one mode of a derivative and fills status, error and location of `cell`.
void check_cell(const EntryContext& ctx, const ad::Strategy& s, const ad::Request& req,
                const std::string& backend, Cell& cell);

// Random directions (normal, seeded): tangents over the wrt coordinates, cotangents over outputs.
std::vector<double> random_direction(std::size_t n, std::uint64_t seed);

// The derivative's outputs for `mode`, flattened, with the primal results it returns first.
struct ModeRun {
  std::vector<ir::Tensor> results;  // the primal part
  std::vector<double> derivative;   // flattened derivative part
};
ModeRun run_mode(const EntryContext& ctx, backends::Executable& exe, ad::Mode mode,
                 const std::vector<double>& dir);

}  // namespace adlab::checker
