// `adlab print FILE` (canonical form) and `adlab check-syntax FILE`.
#include <iostream>

#include "cli/commands.h"
#include "ir/syntax/parser.h"
#include "ir/syntax/printer.h"

namespace adlab::cli {

void add_print(CLI::App& app, int& status) {
  auto* cmd =
      app.add_subcommand("print", "Parse, type-check and print a program in canonical form");
  static std::string file, func;
  cmd->add_option("FILE", file, "program (.adl)")->required();
  cmd->add_option("--func", func, "print only this function");
  cmd->callback([&status] {
    ir::Module m = ir::parse_file(file);
    m.entry("");  // a file without functions is an error, as for eval and check-syntax
    if (func.empty())
      ir::print_module(std::cout, m);
    else
      ir::print_function(std::cout, *m.entry(func));
    status = 0;
  });
}

void add_check_syntax(CLI::App& app, int& status) {
  auto* cmd = app.add_subcommand(
      "check-syntax", "Parse and type-check a program; print its functions (nothing with --quiet)");
  static std::string file;
  static bool quiet = false;
  cmd->add_option("FILE", file, "program (.adl)")->required();
  cmd->add_flag("--quiet,-q", quiet, "no output on success");
  cmd->callback([&status] {
    ir::Module m = ir::parse_file(file);
    m.entry("");  // a file without functions is an error, as for eval
    if (!quiet) {
      std::cout << file << ": ok (" << m.functions.size() << " function"
                << (m.functions.size() == 1 ? "" : "s") << ":";
      for (const auto& f : m.functions) std::cout << " " << f->name;
      std::cout << ")\n";
    }
    status = 0;
  });
}

}  // namespace adlab::cli
