// The `adlab` subcommands (DESIGN 8); each registers itself on the CLI11 app.
#pragma once

#include <CLI/CLI.hpp>

namespace adlab::cli {

// Each returns through `status`: 0 on success, 1 on failure.
void add_eval(CLI::App& app, int& status);
void add_print(CLI::App& app, int& status);
void add_check_syntax(CLI::App& app, int& status);
void add_eval_suite(CLI::App& app, int& status);
void add_check(CLI::App& app, int& status);
void add_grad(CLI::App& app, int& status);
void add_rules(CLI::App& app, int& status);

}  // namespace adlab::cli
