// `adlab print FILE [--simplify [--table T]... [--trace]]` (canonical form, optionally rewritten
// by the rule tables) and `adlab check-syntax FILE`.
#include <iostream>
#include <sstream>

#include "cli/commands.h"
#include "ir/rewrite/engine.h"
#include "ir/rewrite/tables/tables.h"
#include "ir/syntax/parser.h"
#include "ir/syntax/printer.h"

namespace adlab::cli {

void add_print(CLI::App& app, int& status) {
  auto* cmd =
      app.add_subcommand("print", "Parse, type-check and print a program in canonical form");
  static std::string file, func;
  static bool simplify = false, trace = false;
  static std::vector<std::string> tables;
  static std::size_t max_steps = 10000;
  cmd->add_option("FILE", file, "program (.adl)")->required();
  cmd->add_option("--func", func, "print only this function");
  cmd->add_flag("--simplify", simplify,
                "rewrite with the core rule tables to a fixed point (the rules `adlab rules` "
                "proves). Rules marked `real` hold over the reals: the result may differ in "
                "IEEE special values (-0, NaN, inf), e.g. x * 0 at x = inf. A rewrite may remove "
                "an error (an out-of-range read in a term it drops: `0 * x[n]`, `(gen[i < n] "
                "x[i + 1])[j]`), never add one (decisions 40, 233)");
  cmd->add_option("--table", tables, "with --simplify: only these tables, in this order");
  cmd->add_flag("--trace", trace,
                "with --simplify: print the applied rules with their positions (as comments)");
  cmd->add_option("--max-steps", max_steps, "with --simplify: the step limit (default 10000)");
  cmd->callback([&status] {
    ir::Module m = ir::parse_file(file);
    m.entry("");  // a file without functions is an error, as for eval and check-syntax
    if (trace && !simplify) throw Error("--trace needs --simplify");
    if (simplify) {
      std::vector<const ir::rewrite::RuleTable*> chosen;
      for (const auto& name : tables) {
        const auto* t = ir::rewrite::TableRegistry::instance().find(name);
        if (!t) throw Error("unknown rule table `" + name + "` (see `adlab rules --list`)");
        if (t->errata) throw Error("the errata table holds wrong rules: it is not applied");
        chosen.push_back(t);
      }
      if (chosen.empty()) chosen = ir::rewrite::simplify_tables();
      ir::rewrite::EngineOptions eo;
      eo.max_steps = max_steps;
      ir::rewrite::Engine engine(chosen, eo);
      for (auto& f : m.functions)
        if (func.empty() || f->name == func) f = engine.rewrite(*f);
      if (trace) {
        std::istringstream lines(ir::rewrite::format_trace(engine.trace()));
        std::string line;
        while (std::getline(lines, line)) std::cout << "# " << line << "\n";
        std::cout << "# " << engine.steps() << " rewrites\n";
      }
    }
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
