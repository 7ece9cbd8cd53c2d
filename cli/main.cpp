// The `adlab` command: eval, print, check-syntax, eval-suite, check, grad (DESIGN 8).
#include <iostream>
#include <new>

#include "cli/commands.h"
#include "ir/error.h"

int main(int argc, char** argv) {
  CLI::App app{"adlab: one tensor IR, AD strategies from the literature, and a checker"};
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "Show help for every subcommand");
  int status = 0;
  adlab::cli::add_eval(app, status);
  adlab::cli::add_print(app, status);
  adlab::cli::add_check_syntax(app, status);
  adlab::cli::add_eval_suite(app, status);
  adlab::cli::add_check(app, status);
  adlab::cli::add_grad(app, status);
  adlab::cli::add_rules(app, status);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : 1;
  } catch (const adlab::Error& e) {
    std::cerr << e.what() << "\n";
    return 1;
  } catch (const adlab::InternalError& e) {
    std::cerr << e.what() << "\n(this is a bug in adlab; please report it)\n";
    return 2;
  } catch (const std::bad_alloc&) {
    std::cerr << "error: out of memory (are the sizes of the program or its inputs too large?)\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
  // Output that did not reach stdout (a full disk, a closed pipe) is a failure, not exit 0.
  std::cout.flush();
  if (!std::cout) {
    std::cerr << "error: cannot write the output to stdout\n";
    return 1;
  }
  return status;
}
