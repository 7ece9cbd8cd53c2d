// The validation harness: every suite entry through every capable strategy and backend, each
// cell PASS / FAIL / AT-KINK / UNSUPPORTED / ERROR, with closed-form and adjoint checks (DESIGN 4,
// 6).
#pragma once

#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "checker/complexity/complexity.h"
#include "checker/gradcheck/reference.h"
#include "ir/suite/manifest.h"

namespace adlab::checker {

enum class Status { Pass, Fail, AtKink, Unsupported, Error };
const char* status_name(Status s);

// One (entry, strategy, backend, mode) check.
struct Cell {
  std::string entry, strategy, backend, mode;
  Status status = Status::Error;
  std::string detail;      // the failure, the reason, or the error message
  double worst_error = 0;  // relative, as the error model defines it
  double tolerance = 0;
  std::string where;  // the worst entry: "x[3]", "d result 0[1] / d W[2, 0]"
  double got = 0, want = 0;
  // worst_error, got and want were measured at `where`; a structural FAIL (wrong shapes, an
  // integer result, a count) has no such numbers and reports them as null / "-"
  bool measured = false;
  // PASS entries that agree with the reference only within its resolution (decision 205)
  std::size_t unresolved = 0;
  double unresolved_error = 0;  // the largest of their errors without that allowance
  // PASS entries whose tolerance admits 0 (their terms cancel; decision 226), and the largest
  // ratio of terms to value among them
  std::size_t admits_zero = 0;
  double spread = 0;
  double seconds = 0;
  std::optional<Complexity> complexity;
  bool expected_kink = false;  // AT-KINK is this self-test entry's expected outcome
};

// A manifest's closed-form derivative (expected.gradient) against the reference.
struct ClosedFormCheck {
  std::string entry, function;
  Status status = Status::Error;
  std::string detail, where;
  double worst_error = 0, tolerance = 0;
  bool measured = false;  // worst_error was computed (an expected primal has no such number)
};

// <y', J x'> (forward strategy) against <J^T y', x'> (reverse strategy) on random directions.
struct AdjointCheck {
  std::string entry, forward, reverse;
  Status status = Status::Error;
  double lhs = 0, rhs = 0, error = 0, tolerance = 0;
  std::string detail;
};

struct HarnessOptions {
  std::vector<std::string> strategies;  // empty: every registered strategy
  // In place of each chosen strategy named without a variant, its other variants (S/variant for
  // every variant but the default; a strategy with none drops out): the main job's second run
  // (decision 246)
  bool other_variants = false;
  std::vector<std::string> backends;    // empty: every registered backend
  std::string sizes = "small";
  std::string filter;  // only entries whose id contains this
  bool complexity = true;
  double kink_margin = 1e-6;  // relative distance to a switch that counts as "at a kink"
  int kink_resamples = 3;
  // Resample (within kink_resamples) inputs where one double rounding per operation moves the
  // reference Jacobian past half its tolerance (decision 239, rounding_probe.h).
  bool rounding_probe = true;
  ReferenceOptions reference;
  std::function<void(std::size_t done, std::size_t total, const std::string& what)> progress;
};

struct HarnessResult {
  std::vector<Cell> cells;
  std::vector<ClosedFormCheck> closed_forms;
  std::vector<AdjointCheck> adjoints;
  std::vector<std::string> entries;  // ids, in order
  // Cells that ran (not UNSUPPORTED), closed forms and adjoint tests: what was compared.
  std::size_t compared() const;
  // Every compared cell, closed form and adjoint test passed (an AT-KINK a self-test entry
  // expects counts as passed), and something was compared.
  bool ok() const;
};

HarnessResult run_harness(const std::vector<ir::Suite>& suites, const HarnessOptions& o);

// Results as JSON (schema: docs/results.md) and as a terminal table.
nlohmann::json to_json(const HarnessResult& r, const HarnessOptions& o);
void print_table(std::ostream& os, const HarnessResult& r);

}  // namespace adlab::checker
