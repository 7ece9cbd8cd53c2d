// `adlab eval FILE [--func F] [--input NAME=PATH|random[:seed]]... [--size n=4]... [--json]`.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>

#include "cli/commands.h"
#include "cli/output.h"
#include "ir/interp/interpreter_mp.h"
#include "ir/suite/inputs.h"
#include "ir/syntax/parser.h"
#include "ir/syntax/printer.h"
#include "ir/tensor/tensor_ops.h"

namespace adlab::cli {

namespace {

struct EvalArgs {
  std::string file, func, out, scalar = "double";
  std::vector<std::string> inputs, sizes;
  bool json = false, counts = false;
};

bool is_random_spec(const std::string& s) {
  return s == "random" || s.rfind("random:", 0) == 0;
}

std::uint64_t parse_seed(const std::string& name, const std::string& text) {
  bool digits = !text.empty() && text.size() <= 19 &&
                text.find_first_not_of("0123456789") == std::string::npos;
  if (!digits)
    throw Error("--input " + name + "=random:" + text +
                ": the seed must be a non-negative integer");
  return std::stoull(text);
}

// The manifest entry for this program and function, if a manifest.json beside it has one.
const ir::SuiteEntry* find_entry(const std::string& file, const std::string& func,
                                 std::vector<ir::Suite>& holder) {
  namespace fs = std::filesystem;
  auto manifest = fs::path(file).parent_path() / "manifest.json";
  if (!fs::exists(manifest)) return nullptr;
  holder.push_back(ir::load_manifest(manifest.string()));
  for (const auto& e : holder.back().entries)
    if (fs::equivalent(e.program, file) && e.function == func) return &e;
  return nullptr;
}

template <class T>
int run(const EvalArgs& a) {
  ir::Module m = ir::parse_file(a.file);
  ir::FunctionPtr f = m.entry(a.func);
  std::vector<ir::Suite> holder;
  const ir::SuiteEntry* entry = find_entry(a.file, f->name, holder);

  ir::SizeMap sizes;
  if (entry && entry->sizes.count("small")) sizes = entry->sizes.at("small");
  for (const auto& s : a.sizes) {
    auto eq = s.find('=');
    if (eq == std::string::npos) throw Error("--size expects NAME=N, got `" + s + "`");
    try {
      sizes[s.substr(0, eq)] = std::stoll(s.substr(eq + 1));
    } catch (const std::exception&) {
      throw Error("--size " + s + ": not an integer");
    }
  }
  std::map<std::string, std::string> given;
  for (const auto& s : a.inputs) {
    auto eq = s.find('=');
    if (eq == std::string::npos)
      throw Error("--input expects NAME=PATH or NAME=random[:seed], got `" + s + "`");
    std::string name = s.substr(0, eq);
    if (f->param_index(name) < 0) throw Error("`" + f->name + "` has no parameter `" + name + "`");
    given[name] = s.substr(eq + 1);
  }
  // Sizes bound by given files first, so random inputs can take their shapes from them.
  std::vector<ir::Tensor> inputs(f->params.size());
  std::vector<bool> have(f->params.size(), false);
  for (std::size_t k = 0; k < f->params.size(); ++k) {
    const std::string& name = ir::var_name(f->params[k]);
    auto it = given.find(name);
    if (it == given.end() || is_random_spec(it->second)) continue;
    inputs[k] = ir::adapt_to_param(ir::read_tensor_file(it->second, f->params[k]->type.elem),
                                   f->params[k]->type, "input `" + name + "` (" + it->second + ")");
    have[k] = true;
    const auto& dims = f->params[k]->type.dims;
    for (std::size_t d = 0; d < dims.size(); ++d)
      if (dims[d].as<ir::Var>() && !sizes.count(ir::var_name(dims[d])))
        sizes[ir::var_name(dims[d])] = inputs[k].shape[d];
  }
  for (std::size_t k = 0; k < f->params.size(); ++k) {
    if (have[k]) continue;
    const std::string& name = ir::var_name(f->params[k]);
    auto it = given.find(name);
    // A rank-0 i64 parameter used as a size takes its value from the shapes already read.
    bool size_param = std::find(f->sizes.begin(), f->sizes.end(), f->params[k]) != f->sizes.end();
    if (it == given.end() && !entry && !(size_param && sizes.count(name)))
      throw Error("missing input `" + name + "`: give --input " + name + "=PATH or --input " +
                  name + "=random");
    std::uint64_t seed = entry ? entry->seed + k : 1 + k;
    if (it != given.end() && it->second.rfind("random:", 0) == 0)
      seed = parse_seed(name, it->second.substr(7));
    nlohmann::json spec = entry && entry->inputs.contains(name) ? entry->inputs[name]
                          : size_param && sizes.count(name)     ? nlohmann::json::object()
                                                                : ir::default_spec(*f, k);
    inputs[k] = ir::generate_input(*f, k, spec, sizes, seed, entry ? entry->dir : ".");
  }

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
    j["ops"] = {{"adds", c.adds},   {"muls", c.muls},         {"divs", c.divs},
                {"prims", c.prims}, {"compares", c.compares}, {"paper_cost", c.paper_cost()}};
    j["time_ms"] = ms;
    text << j.dump(2) << "\n";
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
  if (a.out.empty()) {
    std::cout << text.str();
  } else {
    std::ofstream o(a.out);
    if (!o) throw Error("cannot write `" + a.out + "`");
    o << text.str();
  }
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
  cmd->add_flag("--json", a.json, "machine-readable output");
  cmd->add_option("--out", a.out, "write the output to FILE instead of stdout");
  cmd->add_flag("--counts", a.counts, "print the operation counts (paper 000 cost model)");
  cmd->callback([&status] {
    if (a.scalar == "float")
      status = run<float>(a);
    else if (a.scalar == "mp50")
      status = run<ir::mp50>(a);
    else
      status = run<double>(a);
  });
}

}  // namespace adlab::cli
