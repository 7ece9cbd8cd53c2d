// Reference derivatives: central differences with Richardson extrapolation, evaluated by the
// reference interpreter in 50-digit arithmetic, parallel over inputs (DESIGN 4.2).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "checker/gradcheck/layout.h"
#include "ir/error.h"
#include "ir/function.h"
#include "ir/interp/interpreter.h"
#include "ir/interp/scalar.h"

namespace adlab::checker {

// Steps: coordinate j moves by h_j = step * max(1, |x_j|), then h_j / 2, ... (`levels` steps).
// Central differences have error c1 h^2 + c2 h^4 + ...; Richardson extrapolation over the
// `levels` steps removes the first levels - 1 terms. With 50 digits, step 1e-12 and 2 levels
// the truncation error is O(h^4) = 1e-48 and the rounding error about 1e-50 / h = 1e-38, both
// far below float64 rounding (1.1e-16). Second derivatives use `step2` (rounding 1e-50 / h^2).
struct ReferenceOptions {
  double step = 1e-12;
  double step2 = 1e-9;
  int levels = 2;
  int threads = 0;  // 0: one per hardware thread
  std::map<std::string, std::int64_t> sizes;
  // Non-zero: every evaluation is the rounding probe's (ir::EvalOptions::rounding_probe), so the
  // Jacobian is that of f with one double rounding per operation (decision 239).
  std::uint64_t rounding_probe = 0;
  // reference_hvp at a branch point: the one-sided tests along the coordinates and the cusp
  // directions already passed at these inputs (an hvp along another direction), so only v's
  // runs; a cell's unit columns after its random direction (decision 259)
  bool hvp_coordinates_tested = false;
};

// f's value and full Jacobian at x (restricted to stored entries for sparse tensors).
struct Reference {
  Layout in, out;
  std::vector<ir::mp50> primal;    // flattened floating results
  std::vector<ir::mp50> jacobian;  // row-major: out.size rows, in.size columns (empty for jvp)
  // |J| in the same layout (magnitude.h), what each entry's rounding is relative to; empty when
  // not computed
  std::vector<double> magnitude;
  // What the 50-digit differences resolve, per entry in the same layout: their rounding,
  // kMpResolution |f_i| / h_j at the smallest step, |f_i| the largest the stencil saw
  // (decisions 205, 224). An entry below it (a derivative
  // of 1e-46 beside f = 1) reads as 0; a strategy is allowed to differ from it by this much.
  std::vector<double> resolution;
  std::vector<ir::Tensor> results;  // the results in double (for shapes and descriptions)
  ir::KinkReport kink;              // the primal run's closest non-smooth switch
  // Whether some finite-difference evaluation took a different non-smooth decision than the
  // primal run (a branch, an argmax, a floor value): the stencil crossed a switch.
  bool branch_change = false;
  std::string branch_note;  // which input's perturbation changed it
  std::size_t evaluations = 0;
  double seconds = 0;

  ir::mp50 at(std::size_t row, std::size_t col) const { return jacobian[row * in.size + col]; }
  // The largest |result entry|: the scale of the function itself.
  double primal_scale() const;
  // The largest |entry| of result block b, or primal_scale() where that block is zero: the scale
  // a zero Jacobian row of that result is judged against (decision 188).
  double result_scale(std::size_t b) const;
};

// The full Jacobian of every floating result with respect to the wrt parameters.
Reference reference_jacobian(const ir::Function& f, const std::vector<ir::Tensor>& inputs,
                             const std::vector<std::string>& wrt, const ReferenceOptions& o = {});

// J v for a direction v over the wrt coordinates (2 * levels evaluations).
std::vector<ir::mp50> reference_jvp(const ir::Function& f, const std::vector<ir::Tensor>& inputs,
                                    const std::vector<std::string>& wrt,
                                    const std::vector<double>& v, const ReferenceOptions& o = {});

// A finite-difference stencil that takes another non-smooth decision than the primal at every
// step tried: the inputs are at a kink for this reference (the cell is AT-KINK).
class StencilCrossesSwitch : public Error {
 public:
  using Error::Error;
};
// How many second-difference steps reference_hvp tries: step2, step2 / 1e3, step2 / 1e6.
constexpr int kHvpStepAttempts = 3;
// With a resolution, reference_hvp also tries a 1000 times larger step where its rounding
// exceeds this fraction of the largest |H v| entry (decision 214).
constexpr double kHvpResolutionTarget = 1e-20;

// H v for a scalar-valued f (mixed second differences, Richardson-extrapolated); `resolution`,
// when given, gets each entry's as Reference::resolution (kMpResolution |f| / (h_s h_t)).
// Throws StencilCrossesSwitch when the stencil crosses a switch at every step tried.
std::vector<ir::mp50> reference_hvp(const ir::Function& f, const std::vector<ir::Tensor>& inputs,
                                    const std::vector<std::string>& wrt,
                                    const std::vector<double>& v, const ReferenceOptions& o = {},
                                    std::vector<double>* resolution = nullptr);

// The relative rounding of the 50-digit evaluations, with a margin of 100 (decision 205).
constexpr double kMpResolution = 1e-48;
// A coordinate below this in magnitude also gets a finite-difference step relative to itself
// (the usual one is relative to max(|x|, 1)); each entry keeps the better-resolved estimate
// (decision 224).
constexpr double kRelativeStepBelow = 1e-3;

// Richardson extrapolation of central-difference estimates d[k] taken at steps h / 2^k
// (error series in h^2): returns the extrapolated value.
ir::mp50 richardson(std::vector<ir::mp50> d);

}  // namespace adlab::checker
