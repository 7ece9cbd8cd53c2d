// `adlab grad FILE [--func F] --strategy S[/variant] [--wrt x]... [--mode M] [--backend B]
// [--emit] [--trace] [--input ...] [--size ...] [--direction ones|random[:seed]] [--json]`:
// differentiates one function with one strategy and prints the derivative program or its values
// (DESIGN 8).
#include <algorithm>
#include <fstream>
#include <iostream>
#include <limits>
#include <random>
#include <sstream>

#include "ad/strategy.h"
#include "checker/gradcheck/layout.h"
#include "checker/harness/cell_check.h"
#include "cli/commands.h"
#include "cli/output.h"
#include "cli/program_inputs.h"
#include "ir/interp/interpreter.h"
#include "ir/syntax/printer.h"

namespace adlab::cli {

namespace {

struct GradArgs {
  std::string file, func, strategy, mode = "gradient", backend = "interp", direction = "ones", out,
                                    keep_source;
  std::vector<std::string> wrt, inputs, sizes;
  bool emit = false, trace = false, json = false, counts = false;
  std::size_t width = 0;
};

// The seed direction's values: all ones, or uniform in [-1, 1) from a seeded generator.
std::vector<double> direction_values(const std::string& spec, std::size_t n) {
  if (spec == "ones") return std::vector<double>(n, 1.0);
  if (spec == "random" || spec.rfind("random:", 0) == 0) {
    std::uint64_t seed = 1;
    if (spec.size() > 7) {
      std::string digits = spec.substr(7);
      if (digits.empty() || digits.size() > 19 ||
          digits.find_first_not_of("0123456789") != std::string::npos)
        throw Error("--direction " + spec + ": the seed must be a non-negative integer");
      seed = std::stoull(digits);
    }
    return checker::random_direction(n, seed);
  }
  throw Error("--direction expects ones, random or random:SEED, got `" + spec + "`");
}

// Labels of the derivative's outputs in the calling convention of `mode` (ad/strategy.h); an
// empty label is an output not to print (the tangent of an integer result). Strategies differ on
// integer results in jvp and jacobian mode: a block for every result, or for floating ones only;
// the count of outputs tells which, and any other count is an error, never a shifted label.
std::vector<std::string> output_labels(ad::Mode mode, const checker::Layout& in,
                                       const std::vector<ir::Tensor>& results,
                                       std::size_t outputs) {
  const std::size_t nres = results.size();
  std::vector<std::string> l;
  for (std::size_t k = 0; k < nres; ++k) l.push_back("result " + std::to_string(k));
  const std::size_t per_result = mode == ad::Mode::Jacobian ? in.blocks.size() : 1;
  const bool every_result = outputs == nres + nres * per_result;
  auto result_blocks = [&](auto&& label) {
    for (std::size_t k = 0; k < nres; ++k) {
      bool is_float = ir::is_float(results[k].elem);
      if (!is_float && !every_result) continue;
      for (std::size_t b = 0; b < per_result; ++b) l.push_back(is_float ? label(k, b) : "");
    }
  };
  switch (mode) {
    case ad::Mode::Gradient:
      for (const auto& b : in.blocks) l.push_back("gradient wrt " + b.name);
      break;
    case ad::Mode::Vjp:
      for (const auto& b : in.blocks) l.push_back("cotangent of " + b.name);
      break;
    case ad::Mode::Jvp:
      result_blocks(
          [](std::size_t k, std::size_t) { return "tangent of result " + std::to_string(k); });
      break;
    case ad::Mode::Jacobian:
      result_blocks([&](std::size_t k, std::size_t b) {
        return "jacobian of result " + std::to_string(k) + " wrt " + in.blocks[b].name;
      });
      break;
    case ad::Mode::Hvp:
      for (const auto& b : in.blocks) l.push_back("gradient wrt " + b.name);
      l.push_back("tangent of result 0");
      for (const auto& b : in.blocks) l.push_back("hvp wrt " + b.name);
      break;
  }
  if (l.size() != outputs) {
    auto floating = std::count_if(results.begin(), results.end(),
                                  [](const ir::Tensor& t) { return ir::is_float(t.elem); });
    throw Error("the derivative returned " + std::to_string(outputs) + " outputs where mode " +
                ad::mode_name(mode) + " has " + std::to_string(l.size()) + " (" +
                std::to_string(floating) + " of " + std::to_string(nres) + " results floating)");
  }
  return l;
}

int run(const GradArgs& a) {
  auto [strategy, variant] = ad::StrategyRegistry::instance().resolve(a.strategy);
  ad::Request req;
  req.wrt = a.wrt;
  req.mode = ad::parse_mode(a.mode);
  req.variant = variant;
  req.width = a.width;
  if (a.width != 0 && !strategy->capabilities().width)  // it was ignored silently
    throw Error("--width: strategy `" + std::string(strategy->name()) +
                "` carries no tangent width (fwdvec does)");
  if (!strategy->capabilities().supports(req.mode))
    throw Error("strategy `" + std::string(strategy->name()) + "` has no " + a.mode + " mode");

  ProgramInputs p =
      load_program_inputs(a.file, a.func, a.emit ? std::vector<std::string>{} : a.inputs, a.sizes,
                          /*need_inputs=*/!a.emit);
  const ir::FunctionPtr& f = p.f;
  for (const auto& w : a.wrt)
    if (f->param_index(w) < 0) throw Error("`" + f->name + "` has no parameter `" + w + "`");
  ad::Derivative d = strategy->differentiate(f, req);

  std::ostringstream text;
  if (a.trace) text << (d.notes.empty() ? "(no trace)\n" : d.notes);
  if (a.emit) {
    if (!d.is_function())
      throw Error("strategy `" + std::string(strategy->name()) +
                  "` builds an executable engine, not a program: there is nothing to emit");
    ir::print_function(text, *d.function);
  } else {
    // Primal results first: their shapes are the cotangents' shapes in vjp mode.
    ir::EvalOptions eo;
    eo.sizes = p.sizes;
    ir::Interpreter<double> primal(eo);
    auto results = primal.run_tensors(*f, p.inputs);
    auto in = checker::input_layout(*f, a.wrt, p.inputs);
    auto out = checker::output_layout(results);
    std::vector<ir::Tensor> args = p.inputs;
    if (req.mode == ad::Mode::Jvp || req.mode == ad::Mode::Hvp) {
      auto t = checker::shaped_like(in, p.inputs, direction_values(a.direction, in.size));
      args.insert(args.end(), t.begin(), t.end());
    } else if (req.mode == ad::Mode::Vjp) {
      auto c = checker::result_cotangents(out, results, direction_values(a.direction, out.size));
      args.insert(args.end(), c.begin(), c.end());
    }
    backends::Options bo;
    bo.sizes = p.sizes;
    bo.count_ops = a.counts;
    bo.keep_source = a.keep_source;
    auto exe = d.executable(a.backend, bo);
    auto y = exe->run(args);
    auto labels = output_labels(req.mode, in, results, y.size());
    int digits = std::numeric_limits<double>::max_digits10;
    if (a.json) {
      nlohmann::json j;
      j["function"] = f->name;
      j["strategy"] = a.strategy;
      j["mode"] = a.mode;
      j["outputs"] = nlohmann::json::array();
      for (std::size_t k = 0; k < y.size(); ++k)
        if (!labels[k].empty())
          j["outputs"].push_back({{"label", labels[k]}, {"value", result_json(y[k])}});
      if (a.counts && exe->counts()) {
        j["ops"] = exe->counts()->paper_cost();
        j["iterations"] = exe->counts()->iterations;
      }
      text << json_text(j) << "\n";
    } else {
      text << f->name << " (" << a.strategy << ", " << a.mode << ")\n";
      for (std::size_t k = 0; k < y.size(); ++k)
        if (!labels[k].empty())
          text << "  " << labels[k] << ": " << type_of(y[k]) << " = " << format_tensor(y[k], digits)
               << "\n";
      if (a.counts && exe->counts())
        text << "  ops: " << exe->counts()->str() << " (paper cost " << exe->counts()->paper_cost()
             << ")\n";
    }
  }
  write_output(a.out, text.str());
  return 0;
}

}  // namespace

void add_grad(CLI::App& app, int& status) {
  static GradArgs a;
  auto* cmd =
      app.add_subcommand("grad",
                         "Differentiate a function with one strategy: print the derivative program "
                         "(--emit) or evaluate it");
  cmd->add_option("FILE", a.file, "program (.adl)")->required();
  cmd->add_option("--func", a.func, "function to differentiate (default: the last one)");
  cmd->add_option("--strategy", a.strategy, "strategy S or S/variant")->required();
  cmd->add_option("--wrt", a.wrt, "parameters to differentiate by (default: every floating one)");
  cmd->add_option("--mode", a.mode, "gradient (default), vjp, jvp, jacobian, hvp");
  cmd->add_option("--width", a.width,
                  "tangents per scalar for vector forward mode (fwdvec; default: all directions)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--backend", a.backend, "backend for derivative programs (default: interp)");
  cmd->add_option("--keep-source", a.keep_source,
                  "a compiling backend writes its generated source into DIR");
  cmd->add_flag("--emit", a.emit, "print the derivative program instead of evaluating it");
  cmd->add_flag("--trace", a.trace, "print what the strategy did (the rules it applied)");
  cmd->add_option("--input", a.inputs,
                  "NAME=PATH or NAME=random[:seed], as for eval (the manifest's generator by "
                  "default when the program has a manifest entry)");
  cmd->add_option("--size", a.sizes, "NAME=N for a size no input binds");
  cmd->add_option("--direction", a.direction,
                  "seed direction for jvp, vjp and hvp: ones (default), random, random:SEED");
  cmd->add_flag("--json", a.json, "machine-readable output");
  cmd->add_option("--out", a.out, "write the output to FILE instead of stdout");
  cmd->add_flag("--counts", a.counts, "print the derivative's operation counts");
  cmd->callback([&status] { status = run(a); });
}

}  // namespace adlab::cli
