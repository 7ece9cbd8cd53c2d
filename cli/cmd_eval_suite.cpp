// `adlab eval-suite [PATH]`: parse, type-check and evaluate every suite entry (the main job
// until `adlab check` exists), with a summary table.
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>

#include "checker/harness/expected_values.h"
#include "cli/commands.h"
#include "cli/output.h"
#include "ir/interp/interpreter.h"
#include "ir/suite/inputs.h"
#include "ir/syntax/parser.h"
#include "ir/syntax/printer.h"
#include "ir/tensor/json_io.h"
#include "ir/tensor/tensor_ops.h"

namespace adlab::cli {

namespace {

struct Row {
  std::string id, status, detail;
  double ms = 0;
  std::int64_t ops = 0;
  int primals_compared = 0;     // expected primal values compared, as `adlab check` does
  int gradients_evaluated = 0;  // expected gradients only run (`adlab check` compares them)
};

bool all_finite(const ir::Tensor& t) {
  for (double v : t.values)
    if (!std::isfinite(v)) return false;
  return true;
}

Row run_entry(const ir::SuiteEntry& e, const std::string& size_set) {
  Row r;
  r.id = e.id();
  auto t0 = std::chrono::steady_clock::now();
  try {
    ir::Module m = ir::parse_file(e.program);
    ir::FunctionPtr f = m.entry(e.function);
    auto inputs = ir::entry_inputs(*f, e, size_set);
    ir::Interpreter<double> interp(ir::EvalOptions{e.size_set(size_set), true, false});
    auto out = interp.run_tensors(*f, inputs);
    r.ops = interp.counts().total();
    for (const auto& t : out)
      if (!all_finite(t)) r.detail = "result is not finite (check the input domain)";
    // The papers' expected primal results: the same comparison as `adlab check`.
    for (const auto& want : checker::expected_primals(m, *f, e, inputs, e.size_set(size_set))) {
      ++r.primals_compared;
      if (std::string d = checker::compare_results(out, want.results, e.tolerance);
          !d.empty() && r.detail.empty())
        r.detail = want.source + ": " + d;
    }
    // Expected gradients must at least evaluate on the same inputs (`adlab check` compares them).
    if (e.expected.contains("gradient")) {
      auto g = checker::expected_function(m, *f, e, "gradient");
      ir::Interpreter<double> ref(ir::EvalOptions{e.size_set(size_set), false, false});
      ref.run_tensors(*g, inputs);
      ++r.gradients_evaluated;
    }
    r.status = r.detail.empty() ? "OK" : "FAIL";
  } catch (const std::exception& err) {  // a JSON type error too: the row, not the run, fails
    r.status = "ERROR";
    r.detail = err.what();
  }
  r.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace

void add_eval_suite(CLI::App& app, int& status) {
  static std::string root = "suites", sizes = "small", out, filter;
  static bool json = false;
  auto* cmd = app.add_subcommand(
      "eval-suite", "Parse, type-check and evaluate every suite entry with the interpreter");
  cmd->add_option("PATH", root, "suite folder or manifest.json (default: suites)");
  cmd->add_option("--sizes", sizes, "size set from the manifests: small (default) or full");
  cmd->add_option("--filter", filter, "only entries whose suite/name contains this text");
  cmd->add_flag("--json", json, "machine-readable output");
  cmd->add_option("--out", out, "write the output to FILE");
  cmd->callback([&status] {
    auto suites = ir::find_suites(root);
    std::vector<const ir::SuiteEntry*> entries;
    for (const auto& s : suites)
      for (const auto& e : s.entries)
        if (filter.empty() || e.id().find(filter) != std::string::npos) entries.push_back(&e);
    bool tty = isatty(STDERR_FILENO);
    std::vector<Row> rows;
    for (std::size_t k = 0; k < entries.size(); ++k) {
      if (tty)
        std::cerr << "\r[" << k + 1 << "/" << entries.size() << "] " << std::left << std::setw(60)
                  << entries[k]->id() << std::flush;
      rows.push_back(run_entry(*entries[k], sizes));
    }
    if (tty) std::cerr << "\r" << std::string(80, ' ') << "\r";
    std::map<std::string, int> tally;
    for (const auto& r : rows) ++tally[r.status];
    std::ostringstream text;
    if (json) {
      nlohmann::json j;
      j["sizes"] = sizes;
      j["entries"] = nlohmann::json::array();
      for (const auto& r : rows)
        j["entries"].push_back({{"id", r.id},
                                {"status", r.status},
                                {"detail", r.detail},
                                {"time_ms", r.ms},
                                {"ops", r.ops},
                                {"expected_primals_compared", r.primals_compared},
                                {"expected_gradients_evaluated", r.gradients_evaluated}});
      j["summary"] = tally;
      text << json_text(j) << "\n";
    } else {
      text << std::left << std::setw(48) << "entry" << std::setw(7) << "status" << std::right
           << std::setw(12) << "ops" << std::setw(11) << "ms"
           << "\n";
      for (const auto& r : rows) {
        text << std::left << std::setw(48) << r.id << std::setw(7) << r.status << std::right
             << std::setw(12) << r.ops << std::setw(11) << std::fixed << std::setprecision(2)
             << r.ms << "\n";
        if (!r.detail.empty()) text << "    " << r.detail << "\n";
      }
      text << "\n"
           << rows.size() << " entries (" << sizes << " sizes): " << tally["OK"] << " ok, "
           << tally["FAIL"] << " failed, " << tally["ERROR"] << " errors\n";
    }
    write_output(out, text.str());
    status = rows.empty() || tally["OK"] != static_cast<int>(rows.size()) ? 1 : 0;
  });
}

}  // namespace adlab::cli
