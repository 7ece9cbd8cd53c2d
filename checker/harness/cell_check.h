// Checks one derivative (one strategy, backend and mode) of one entry against the reference.
#pragma once

#include <memory>
#include <optional>
#include <random>

#include "ad/strategy.h"
#include "checker/gradcheck/error_model.h"
#include "checker/harness/harness.h"

namespace adlab::checker {

// The second derivatives an entry's hvp cells share (decision 209), each part computed by the
// first cell that needs it.
struct HessianReference {
  // |H| (hessian_magnitudes), n x n row-major; empty when fwdvec declines the function
  std::optional<std::vector<double>> magnitude;
  // H e_k and its resolution for every input k, for functions of at most kHvpUnitColumns inputs
  std::optional<std::vector<std::vector<ir::mp50>>> columns;
  std::vector<std::vector<double>> column_resolutions;
};
// Up to this many inputs, an exact strategy's hvp is checked along every unit direction.
constexpr std::size_t kHvpUnitColumns = 32;

// What every cell of one entry shares: the function, inputs, reference and tolerance model.
struct EntryContext {
  const ir::SuiteEntry* entry = nullptr;
  ir::Module module;
  ir::FunctionPtr f;
  std::vector<ir::Tensor> inputs;
  ir::SizeMap sizes;
  std::vector<std::string> wrt;
  Reference ref;
  ReferenceOptions reference_options;  // the entry's fd_step / fd_levels, for the hvp reference
  Tolerance tolerance;  // the entry's model (floor 0): one double primal run, shared by its cells
  std::uint64_t seed = 1;
  // Why the inputs were resampled, or why the derivative may not be judgeable at them (the
  // rounding probe, decision 239); empty when neither.
  std::string resampled_note, conditioning_note;
  // Filled by the entry's first hvp cells (cells of one entry run one after another).
  mutable HessianReference hessian;
};

// Appends a note to a cell's detail ("; " between notes).
void add_note(Cell& cell, const std::string& note);

// Runs one mode of a derivative and fills status, error and location of `cell`.
void check_cell(const EntryContext& ctx, const ad::Strategy& s, const ad::Request& req,
                const std::string& backend, Cell& cell);

// The tolerance of each error-model group of `mode`'s derivative: an f32 block (an f32
// parameter's gradient, an f32 result's tangent, a Jacobian block of either) gets
// tol.for_f32_block(), an f64 block tol.for_f64_block() (decisions 199, 202).
std::vector<double> group_tolerances(const EntryContext& ctx, ad::Mode mode, const Tolerance& tol);
// The error-model groups of `mode`'s derivative (docs/results.md): a Jacobian row per result
// entry and parameter block, a jvp block per result, else a block per parameter; `floors`, what
// a zero group is judged against, where it is not the function's magnitude: a Jacobian row's or
// jvp block's own result (decision 188), `zero_floor` for every parameter block when positive.
struct ErrorGroups {
  std::vector<std::size_t> sizes;
  std::vector<double> floors;
};
ErrorGroups error_groups(const Reference& ref, ad::Mode mode, double zero_floor = 0);
// The tolerance of the Jacobian block of result block rb by parameter block wb (decision 206).
double block_tolerance(const EntryContext& ctx, const Tolerance& tol, const Block& rb,
                       const Block& wb);

// Random directions (normal, seeded): tangents over the wrt coordinates, cotangents over outputs.
std::vector<double> random_direction(std::size_t n, std::uint64_t seed);

// A random tangent (over the reference Jacobian's columns) or cotangent (over its rows) whose
// entry k is scaled by s_min / s_k, s_k the largest |entry| of column (row) k and s_min the
// smallest non-zero one (a zero column counts as the largest): every column contributes alike
// to a jvp, every row to a vjp, so an error in a small one is not hidden under a large one, and
// no entry exceeds 1 (decision 193).
enum class Along { Columns, Rows };
std::vector<double> equilibrated_direction(const Reference& ref, Along along, std::uint64_t seed);

// The derivative's outputs for `mode`, flattened, with the primal results it returns first.
struct ModeRun {
  std::vector<ir::Tensor> results;  // the primal part
  std::vector<double> derivative;   // flattened derivative part
  // Why the derivative's tensors are not shaped like what they stand for; empty when they are.
  std::string structure_error;
  // hvp only: the gradient and its tangent df (the directional derivative) that come first.
  std::vector<double> hvp_gradient, hvp_tangent;
};
// Why the derivative's floating tensors are not one per block of `layout` with the block's shape
// and storage, and for a sparse block the stored coordinates of the tensor it stands for
// (`like`: the parameters or the results); empty when they are. The flattened values alone would
// let a reshaped or mis-keyed derivative pass. `what` names a block ("differentiated parameter"),
// `subject` the tensors checked.
std::string structure_mismatch(const std::vector<ir::Tensor>& got, const Layout& layout,
                               const std::vector<ir::Tensor>& like, const char* what,
                               const std::string& subject = "the derivative");

ModeRun run_mode(const EntryContext& ctx, backends::Executable& exe, ad::Mode mode,
                 const std::vector<double>& dir);

}  // namespace adlab::checker
