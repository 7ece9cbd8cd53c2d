// `adlab check [SUITE_DIR...] [--strategy S]... [--backend B]... [--json FILE] [--sizes
// small|full]`: the validation harness (DESIGN 4, 6); exit status 0 only when every supported cell
// passes.
#include <unistd.h>

#include <fstream>
#include <iomanip>
#include <iostream>

#include "checker/harness/harness.h"
#include "cli/commands.h"
#include "cli/output.h"

namespace adlab::cli {

void add_check(CLI::App& app, int& status) {
  static std::vector<std::string> dirs;
  static std::vector<std::string> strategies, backends_;
  static std::string json_out, sizes = "small", filter;
  static bool json_stdout = false, no_complexity = false, no_rounding_probe = false,
              other_variants = false;
  auto* cmd = app.add_subcommand("check",
                                 "Check every suite entry with every strategy and backend against "
                                 "multiprecision finite differences");
  cmd->add_option("SUITE_DIR", dirs, "suite folders or manifests (default: suites)");
  cmd->add_option("--strategy", strategies,
                  "strategies to check (default: every registered one); S or S/variant");
  cmd->add_flag("--other-variants", other_variants,
                "check each strategy's variants other than its default (S/variant) instead of "
                "the default (the main job's second run)");
  cmd->add_option("--backend", backends_,
                  "backends for source-transformation strategies (default: interp; cpu compiles "
                  "a unit per cell and is opt-in: --backend interp cpu)");
  cmd->add_option("--json", json_out, "write the results as JSON to FILE (docs/results.md)");
  cmd->add_flag("--json-stdout", json_stdout, "print the JSON results instead of the table");
  cmd->add_option("--sizes", sizes, "size set of the manifests: small (default) or full");
  cmd->add_option("--filter", filter, "only entries whose suite/name contains this text");
  cmd->add_flag("--no-complexity", no_complexity, "skip the operation-count size sweeps");
  cmd->add_flag("--no-rounding-probe", no_rounding_probe,
                "judge the first inputs away from kinks even where one double rounding per "
                "operation moves the derivative past half its tolerance (decision 239)");
  cmd->callback([&status] {
    if (dirs.empty()) dirs = {"suites"};
    std::vector<ir::Suite> suites;
    for (const auto& d : dirs) {
      auto found = ir::find_suites(d);
      suites.insert(suites.end(), found.begin(), found.end());
    }
    checker::HarnessOptions o;
    o.strategies = strategies;
    o.other_variants = other_variants;
    o.backends = backends_;
    o.sizes = sizes;
    o.filter = filter;
    o.complexity = !no_complexity;
    o.rounding_probe = !no_rounding_probe;
    bool tty = isatty(STDERR_FILENO);
    o.progress = [tty](std::size_t done, std::size_t total, const std::string& what) {
      if (!tty) return;
      int width = 30;
      int filled = total ? static_cast<int>(width * done / total) : width;
      std::cerr << "\r[" << std::string(static_cast<std::size_t>(filled), '#')
                << std::string(static_cast<std::size_t>(width - filled), ' ') << "] " << done << "/"
                << total << " " << std::left << std::setw(50) << what.substr(0, 50) << std::flush;
      if (done == total) std::cerr << "\r" << std::string(100, ' ') << "\r";
    };
    auto r = checker::run_harness(suites, o);
    // Nothing checked is not a pass: a mistyped --filter or an empty folder exits non-zero.
    if (r.entries.empty())
      throw Error("no suite entry selected" +
                  (filter.empty() ? std::string() : " (--filter `" + filter + "`)"));
    auto j = checker::to_json(r, o);
    if (json_stdout)
      std::cout << json_text(j) << "\n";
    else
      checker::print_table(std::cout, r);
    if (!json_out.empty()) write_output(json_out, json_text(j) + "\n");
    status = r.ok() ? 0 : 1;
  });
}

}  // namespace adlab::cli
