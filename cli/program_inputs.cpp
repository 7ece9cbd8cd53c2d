#include "cli/program_inputs.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <map>
#include <set>

#include "ir/suite/inputs.h"
#include "ir/syntax/parser.h"

namespace adlab::cli {

namespace {

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

}  // namespace

ProgramInputs load_program_inputs(const std::string& file, const std::string& func,
                                  const std::vector<std::string>& input_args,
                                  const std::vector<std::string>& size_args, bool need_inputs) {
  ProgramInputs p;
  p.module = ir::parse_file(file);
  p.f = p.module.entry(func);
  const ir::FunctionPtr& f = p.f;
  p.entry = find_entry(file, f->name, p.suites);
  const ir::SuiteEntry* entry = p.entry;

  ir::SizeMap& sizes = p.sizes;
  if (entry && entry->sizes.count("small")) sizes = entry->sizes.at("small");
  std::set<std::string> explicit_sizes;  // --size beats the manifest, a file's shape beats neither
  for (const auto& s : size_args) {
    auto eq = s.find('=');
    if (eq == std::string::npos) throw Error("--size expects NAME=N, got `" + s + "`");
    const std::string name = s.substr(0, eq), text = s.substr(eq + 1);
    std::int64_t n = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    // `n=1e3` read as 1 and `n=4abc` as 4 before: the whole text must be the integer
    if (ec != std::errc() || ptr != text.data() + text.size() || text.empty())
      throw Error("--size " + s + ": not an integer");
    if (n < 0) throw Error("--size " + s + ": a size is non-negative");
    if (std::none_of(f->sizes.begin(), f->sizes.end(),
                     [&](const ir::Expr& v) { return ir::var_name(v) == name; }))
      throw Error("--size " + s + ": `" + f->name + "` has no size `" + name + "`");
    if (!explicit_sizes.insert(name).second)  // the last one silently won (decision 222)
      throw Error("--size " + name + " is given twice (" + std::to_string(sizes[name]) + " and " +
                  text + ")");
    sizes[name] = n;
  }
  if (!need_inputs) return p;
  std::map<std::string, std::string> given;
  for (const auto& s : input_args) {
    auto eq = s.find('=');
    if (eq == std::string::npos)
      throw Error("--input expects NAME=PATH or NAME=random[:seed], got `" + s + "`");
    std::string name = s.substr(0, eq);
    if (f->param_index(name) < 0) throw Error("`" + f->name + "` has no parameter `" + name + "`");
    if (given.count(name))  // the last one silently won
      throw Error("--input " + name + " is given twice (`" + given[name] + "` and `" +
                  s.substr(eq + 1) + "`)");
    given[name] = s.substr(eq + 1);
  }
  // Sizes bound by given files first, so random inputs can take their shapes from them.
  std::vector<ir::Tensor>& inputs = p.inputs;
  inputs.resize(f->params.size());
  std::vector<bool> have(f->params.size(), false);
  for (std::size_t k = 0; k < f->params.size(); ++k) {
    const std::string& name = ir::var_name(f->params[k]);
    auto it = given.find(name);
    if (it == given.end() || is_random_spec(it->second)) continue;
    inputs[k] = ir::adapt_to_param(ir::read_tensor_file(it->second, f->params[k]->type.elem),
                                   f->params[k]->type, "input `" + name + "` (" + it->second + ")");
    have[k] = true;
    // An i64 parameter used as a size, read from a file, is that size: a --size for it that
    // differs was silently ignored (an audit finding).
    if (std::find(f->sizes.begin(), f->sizes.end(), f->params[k]) != f->sizes.end() &&
        inputs[k].ints.size() == 1) {
      const std::int64_t v = inputs[k].ints[0];
      if (explicit_sizes.count(name) && sizes.at(name) != v)
        throw Error("--size " + name + "=" + std::to_string(sizes.at(name)) + " but input `" +
                    name + "` (" + it->second + ") is " + std::to_string(v));
      if (!sizes.count(name)) sizes[name] = v;
    }
    const auto& dims = f->params[k]->type.dims;
    for (std::size_t d = 0; d < dims.size(); ++d) {
      if (!dims[d].as<ir::Var>()) continue;
      const std::string size = ir::var_name(dims[d]);
      if (explicit_sizes.count(size) && sizes.at(size) != inputs[k].shape[d])
        throw Error("--size " + size + "=" + std::to_string(sizes.at(size)) + " but input `" +
                    name + "` (" + it->second + ") has " + size + " = " +
                    std::to_string(inputs[k].shape[d]));
      if (!sizes.count(size)) sizes[size] = inputs[k].shape[d];
    }
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
    // `--input x=random:5` asks for random values: a manifest's fixed `value` or `file` for x
    // would silently replace them (every seed gave the manifest's x = 3).
    if (it != given.end() && spec.is_object() && (spec.contains("value") || spec.contains("file")))
      spec = ir::default_spec(*f, k);
    inputs[k] = ir::generate_input(*f, k, spec, sizes, seed, entry ? entry->dir : ".");
  }
  return p;
}

}  // namespace adlab::cli
