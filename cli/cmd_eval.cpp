// `adlab eval FILE [--func F] [--input NAME=PATH|random[:seed]]... [--size n=4]... [--json]`.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>

#include "backends/backend.h"
#include "cli/commands.h"
#include "cli/output.h"
#include "cli/program_inputs.h"
#include "ir/interp/interpreter_mp.h"
#include "ir/suite/inputs.h"
#include "ir/syntax/parser.h"
#include "ir/syntax/printer.h"
#include "ir/tensor/tensor_ops.h"

namespace adlab::cli {

namespace {

struct EvalArgs {
  std::string file, func, out, scalar = "double", backend = "interp", keep_source;
  std::vector<std::string> inputs, sizes;
  bool json = false, counts = false;
};

template <class T>
int run(const EvalArgs& a) {
  ProgramInputs p = load_program_inputs(a.file, a.func, a.inputs, a.sizes);
  const ir::FunctionPtr& f = p.f;
  const ir::SizeMap& sizes = p.sizes;
  const std::vector<ir::Tensor>& inputs = p.inputs;

  ir::EvalOptions opts;
  opts.sizes = sizes;
  ir::Interpreter<T> interp(opts);
  std::vector<ir::BasicTensor<T>> in;
  for (const auto& t : inputs) in.push_back(ir::convert_scalar<T>(t));
  auto t0 = std::chrono::steady_clock::now();
  auto out = interp.run_tensors(*f, in);
  double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  auto bound = interp.bound_sizes(*f);

  std::ostringstream text;
  if (a.json) {
    nlohmann::json j;
    j["function"] = f->name;
    j["file"] = a.file;
    j["scalar"] = a.scalar;
    j["sizes"] = bound;
    j["results"] = nlohmann::json::array();
    for (const auto& t : out) j["results"].push_back(result_json(ir::convert_scalar<double>(t)));
    const auto& c = interp.counts();
    j["ops"] = {{"adds", c.adds},
                {"muls", c.muls},
                {"divs", c.divs},
                {"prims", c.prims},
                {"compares", c.compares},
                {"paper_cost", c.paper_cost()},
                {"iterations", c.iterations}};
    j["time_ms"] = ms;
    text << json_text(j) << "\n";
  } else {
    int digits = std::numeric_limits<T>::max_digits10;
    text << f->name;
    for (auto& [n, v] : bound) text << " " << n << "=" << v;
    text << "\n";
    for (std::size_t k = 0; k < out.size(); ++k)
      text << "  result " << k << ": " << type_of(ir::convert_scalar<double>(out[k])) << " = "
           << format_tensor(out[k], digits) << "\n";
    if (a.counts)
      text << "  ops: " << interp.counts().str() << " (paper cost " << interp.counts().paper_cost()
           << ")\n";
  }
  write_output(a.out, text.str());
  return 0;
}

// A backend other than the interpreter: compiled, then run in double (no operation counts).
int run_backend(const EvalArgs& a) {
  ProgramInputs p = load_program_inputs(a.file, a.func, a.inputs, a.sizes);
  backends::Options bo;
  bo.sizes = p.sizes;
  bo.scalar_type = a.scalar;
  bo.keep_source = a.keep_source;
  auto exe = backends::BackendRegistry::instance().get(a.backend).compile(p.f, bo);
  auto t0 = std::chrono::steady_clock::now();
  auto out = exe->run(p.inputs);
  double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  std::ostringstream text;
  if (a.json) {
    nlohmann::json j;
    j["function"] = p.f->name;
    j["file"] = a.file;
    j["scalar"] = a.scalar;
    j["backend"] = a.backend;
    j["results"] = nlohmann::json::array();
    for (const auto& t : out) j["results"].push_back(result_json(t));
    j["time_ms"] = ms;
    text << json_text(j) << "\n";
  } else {
    text << p.f->name << " (backend " << a.backend << ")\n";
    for (std::size_t k = 0; k < out.size(); ++k)
      text << "  result " << k << ": " << type_of(out[k]) << " = "
           << format_tensor(out[k], std::numeric_limits<double>::max_digits10) << "\n";
  }
  write_output(a.out, text.str());
  return 0;
}

}  // namespace

void add_eval(CLI::App& app, int& status) {
  static EvalArgs a;
  auto* cmd = app.add_subcommand("eval", "Evaluate a function with the reference interpreter");
  cmd->add_option("FILE", a.file, "program (.adl)")->required();
  cmd->add_option("--func", a.func, "function to evaluate (default: the last one in the file)");
  cmd->add_option("--input", a.inputs,
                  "NAME=PATH (.json, .npy, .mtx) or NAME=random[:seed] (the manifest's generator "
                  "when the program has a manifest entry, else normal(0, 1))");
  cmd->add_option("--size", a.sizes, "NAME=N for a size no input binds (or to set random shapes)");
  cmd->add_option("--scalar", a.scalar, "scalar type: double (default), float, mp50")
      ->check(CLI::IsMember({"double", "float", "mp50"}));
  cmd->add_option("--backend", a.backend, "backend: interp (default) or cpu");
  cmd->add_option("--keep-source", a.keep_source,
                  "a compiling backend writes its generated source into DIR");
  cmd->add_flag("--json", a.json, "machine-readable output");
  cmd->add_option("--out", a.out, "write the output to FILE instead of stdout");
  cmd->add_flag("--counts", a.counts, "print the operation counts (paper 000 cost model)");
  cmd->callback([&status] {
    if (a.backend != "interp")
      status = run_backend(a);
    else if (a.scalar == "float")
      status = run<float>(a);
    else if (a.scalar == "mp50")
      status = run<ir::mp50>(a);
    else
      status = run<double>(a);
  });
}

}  // namespace adlab::cli
