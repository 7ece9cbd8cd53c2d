// Harness results as JSON (docs/results.md) and as a terminal table.
#include <algorithm>
#include <cmath>
#include <iomanip>
#include <map>
#include <sstream>

#include "checker/harness/harness.h"
#include "ir/syntax/printer.h"

namespace adlab::checker {

namespace {
nlohmann::json number(double v) {
  if (std::isfinite(v)) return v;
  return std::isnan(v) ? nlohmann::json("NaN") : nlohmann::json(v > 0 ? "Infinity" : "-Infinity");
}
// Whether a cell's error and tolerance were measured: UNSUPPORTED, AT-KINK and ERROR cells
// compared nothing, and a 0 there would read as a perfect result.
// A cell's tolerance applies to PASS and FAIL; its error, got and want only when measured.
bool judged(const Cell& c) {
  return c.status == Status::Pass || c.status == Status::Fail;
}
bool measured(const Cell& c) {
  return judged(c) && c.measured;
}
// A cell's status as the table prints it: the self-test's expected AT-KINK marked `*`.
std::string cell_status(const Cell& c) {
  return std::string(status_name(c.status)) + (c.expected_kink ? "*" : "");
}
}  // namespace

nlohmann::json to_json(const HarnessResult& r, const HarnessOptions& o) {
  nlohmann::json j;
  j["schema"] = "adlab-check/1";
  j["sizes"] = o.sizes;
  j["entries"] = r.entries;
  j["cells"] = nlohmann::json::array();
  for (const auto& c : r.cells) {
    nlohmann::json x = {{"entry", c.entry},
                        {"strategy", c.strategy},
                        {"backend", c.backend},
                        {"mode", c.mode},
                        {"status", status_name(c.status)},
                        {"detail", c.detail},
                        {"unresolved", c.unresolved},
                        {"admits_zero", c.admits_zero},
                        {"worst_error", measured(c) ? number(c.worst_error) : nullptr},
                        {"tolerance", judged(c) ? number(c.tolerance) : nullptr},
                        {"where", c.where},
                        {"got", measured(c) ? number(c.got) : nullptr},
                        {"want", measured(c) ? number(c.want) : nullptr},
                        {"seconds", c.seconds}};
    if (c.expected_kink) x["expected"] = "AT-KINK";
    if (c.complexity) {
      nlohmann::json pts = nlohmann::json::array();
      for (const auto& p : c.complexity->points)
        pts.push_back({{"size", p.size},
                       {"primal_ops", p.primal},
                       {"derivative_ops", p.derivative},
                       {"primal_work", p.primal_work},
                       {"derivative_work", p.derivative_work}});
      x["complexity"] = {
          {"points", pts},
          {"primal_slope", number(c.complexity->primal_slope)},
          {"derivative_slope", number(c.complexity->derivative_slope)},
          {"primal_work_slope", number(c.complexity->primal_work_slope)},
          {"derivative_work_slope", number(c.complexity->derivative_work_slope)},
          {"work_growth", number(c.complexity->work_growth)},
          {"work_grows_faster", c.complexity->work_grows_faster},
          {"ratio", number(c.complexity->ratio)},
          {"bound", c.complexity->bound ? nlohmann::json(*c.complexity->bound) : nlohmann::json()},
          {"within_bound", c.complexity->within_bound}};
    }
    j["cells"].push_back(x);
  }
  j["closed_forms"] = nlohmann::json::array();
  for (const auto& c : r.closed_forms)
    j["closed_forms"].push_back(
        {{"entry", c.entry},
         {"function", c.function},
         {"status", status_name(c.status)},
         {"detail", c.detail},
         {"where", c.where},
         {"worst_error", c.measured ? number(c.worst_error) : nlohmann::json()},
         {"tolerance", number(c.tolerance)}});
  j["adjoint_tests"] = nlohmann::json::array();
  for (const auto& a : r.adjoints)
    j["adjoint_tests"].push_back(
        {{"entry", a.entry},
         {"forward", a.forward},
         {"reverse", a.reverse},
         {"status", status_name(a.status)},
         {"lhs", number(a.lhs)},
         {"rhs", number(a.rhs)},
         {"error", a.status == Status::Error ? nlohmann::json() : number(a.error)},
         {"tolerance", number(a.tolerance)},
         {"detail", a.detail}});
  // The table's tallies: an expected AT-KINK (`AT-KINK*`) apart from a real one; the closed
  // forms and adjoint tests, which decide `ok` as the cells do; and how much was compared.
  std::map<std::string, int> tally, closed, adjoint;
  for (const auto& c : r.cells) ++tally[cell_status(c)];
  for (const auto& c : r.closed_forms) ++closed[status_name(c.status)];
  for (const auto& a : r.adjoints) ++adjoint[status_name(a.status)];
  j["summary"] = {{"cells", tally},
                  {"closed_forms", closed},
                  {"adjoint_tests", adjoint},
                  {"compared", r.compared()},
                  {"ok", r.ok()}};
  return j;
}

void print_table(std::ostream& os, const HarnessResult& r) {
  // Columns as wide as their longest label (`dualrev/staged-map`) and one space.
  std::size_t ew = 40, sw = 10;
  for (const auto& c : r.cells) {
    ew = std::max(ew, c.entry.size() + 1);
    sw = std::max(sw, c.strategy.size() + 1);
  }
  const int entry_w = static_cast<int>(ew), strategy_w = static_cast<int>(sw);
  os << std::left << std::setw(entry_w) << "entry" << std::setw(strategy_w) << "strategy"
     << std::setw(15) << "backend" << std::setw(9) << "mode" << std::setw(12) << "status"
     << std::right << std::setw(11) << "error" << std::setw(11) << "tolerance" << std::setw(9)
     << "ratio" << std::setw(8) << "slope"
     << "\n";
  std::map<std::string, int> tally;
  for (const auto& c : r.cells) {
    const std::string status = cell_status(c);
    ++tally[status];  // expected outcomes counted apart from real ones
    os << std::left << std::setw(entry_w) << c.entry << std::setw(strategy_w) << c.strategy
       << std::setw(15) << c.backend << std::setw(9) << c.mode << std::setw(12) << status
       << std::right;
    if (measured(c))
      os << std::scientific << std::setprecision(2) << std::setw(11) << c.worst_error;
    else
      os << std::setw(11) << "-";
    if (judged(c))
      os << std::scientific << std::setprecision(2) << std::setw(11) << c.tolerance << std::fixed;
    else
      os << std::setw(11) << "-";
    if (c.complexity) {
      std::ostringstream ratio;
      ratio << std::fixed << std::setprecision(1) << c.complexity->ratio
            << (c.complexity->within_bound ? "" : "!");  // over a bound the strategy does not claim
      os << std::setw(9) << ratio.str() << std::setw(8) << std::setprecision(2)
         << c.complexity->derivative_slope;
    }
    os << "\n";
    // a PASS has a detail only for a note: entries resolved only as far as the reference can,
    // entries checked loosely, a cost ratio not claimed, a bound this backend cannot measure
    if (!c.detail.empty()) os << "    " << c.detail << "\n";
  }
  int cf_pass = 0, adj_pass = 0;
  for (const auto& c : r.closed_forms) {
    if (c.status == Status::Pass) {
      ++cf_pass;
      continue;
    }
    os << "closed form " << c.entry << " (" << c.function << "): " << status_name(c.status) << " "
       << c.detail << (c.where.empty() ? "" : " at " + c.where) << "\n";
  }
  std::size_t adj_unsupported = 0;
  for (const auto& a : r.adjoints) {
    if (a.status == Status::Pass) {
      ++adj_pass;
      continue;
    }
    if (a.status == Status::Unsupported) {  // a variant's declared budget (decision 246)
      ++adj_unsupported;
      os << "adjoint test " << a.entry << " (" << a.forward << " / " << a.reverse
         << "): UNSUPPORTED " << a.detail << "\n";
      continue;
    }
    // every digit: a failure between nearly equal sides must show where they differ
    os << "adjoint test " << a.entry << " (" << a.forward << " / " << a.reverse
       << "): " << status_name(a.status) << " lhs " << ir::number_str(a.lhs) << " rhs "
       << ir::number_str(a.rhs) << " error " << ir::number_str(a.error) << " tolerance "
       << ir::number_str(a.tolerance) << " " << a.detail << "\n";
  }
  os << "\n" << r.entries.size() << " entries, " << r.cells.size() << " cells:";
  for (auto& [k, v] : tally) os << " " << v << " " << k;
  os << "; closed forms " << cf_pass << "/" << r.closed_forms.size() << " pass; adjoint tests "
     << adj_pass << "/" << r.adjoints.size() - adj_unsupported << " pass"
     << (adj_unsupported ? " (" + std::to_string(adj_unsupported) + " unsupported)" : "") << "\n";
  for (const auto& c : r.cells)
    if (c.expected_kink) {
      os << "AT-KINK* is the expected outcome of a checker self-test entry (`expect`: at-kink)\n";
      break;
    }
  if (r.compared() == 0) {
    os << "NOTHING CHECKED: every selected cell is UNSUPPORTED, with no closed form or adjoint "
          "test\n";
    return;
  }
  if (r.ok()) {
    os << "OK: every supported cell passed\n";
    return;
  }
  // Name what did not pass: a wrong closed form fails the run while every cell passes.
  std::size_t bad_cells = 0;
  for (const auto& c : r.cells)
    bad_cells += c.status != Status::Pass && c.status != Status::Unsupported &&
                 !(c.status == Status::AtKink && c.expected_kink);
  os << "NOT OK: " << bad_cells << " cell(s), " << (r.closed_forms.size() - cf_pass)
     << " closed form(s) and " << (r.adjoints.size() - adj_pass - adj_unsupported)
     << " adjoint test(s) did not pass\n";
}

}  // namespace adlab::checker
