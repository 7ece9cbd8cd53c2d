// Every suite program parses, type-checks, round-trips through the printer and evaluates (DESIGN
// 6).
#include <unistd.h>
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include <cmath>
#include <filesystem>
#include <set>

#include <nlohmann/json.hpp>

#include "ir/interp/interpreter.h"
#include "ir/suite/inputs.h"
#include "ir/suite/manifest.h"
#include "ir/syntax/parser.h"
#include "ir/syntax/printer.h"

using namespace adlab::ir;
namespace fs = std::filesystem;

namespace {
std::string suites_root() {
  return std::string(ADLAB_SOURCE_DIR) + "/suites";
}
}  // namespace

TEST_CASE("every .adl file under suites/ round-trips through the printer", "[unit]") {
  int files = 0;
  for (const auto& p : fs::recursive_directory_iterator(suites_root())) {
    if (p.path().extension() != ".adl") continue;
    ++files;
    INFO(p.path().string());
    Module a = parse_file(p.path().string());
    std::string pa = module_str(a);
    Module b = parse_module(pa, p.path().string() + " (printed)");
    CHECK(module_str(b) == pa);
    REQUIRE(a.functions.size() == b.functions.size());
    for (std::size_t k = 0; k < a.functions.size(); ++k)
      for (std::size_t r = 0; r < a.functions[k]->results.size(); ++r)
        CHECK(same_modulo_callees(a.functions[k]->results[r], b.functions[k]->results[r]));
  }
  CHECK(files >= 40);
}

TEST_CASE("every suite entry evaluates at its small sizes to finite values", "[unit]") {
  auto suites = find_suites(suites_root());
  CHECK(suites.size() >= 5);
  std::set<std::string> programs;
  int entries = 0;
  for (const auto& s : suites) {
    for (const auto& e : s.entries) {
      ++entries;
      INFO(e.id());
      Module m = parse_file(e.program);
      programs.insert(e.program);
      auto f = m.entry(e.function);
      auto inputs = entry_inputs(*f, e, "small");
      Interpreter<double> interp(EvalOptions{e.size_set("small"), true, false});
      auto out = interp.run_tensors(*f, inputs);
      REQUIRE(out.size() == f->results.size());
      for (const auto& t : out)
        for (double v : t.values) CHECK(std::isfinite(v));
      CHECK(e.sizes.count("full"));
      CHECK_FALSE(e.source.empty());
    }
  }
  CHECK(entries >= 40);
}

TEST_CASE("malformed manifests are errors naming the file, never raw JSON-library messages",
          "[unit]") {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("adlab_bad_manifests_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto error_for = [&](const std::string& text) {
    const auto path = (dir / "manifest.json").string();
    std::ofstream(path) << text;
    try {
      load_manifest(path);
    } catch (const adlab::Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string entry =
      R"({"name": "e", "program": "p.adl", "function": "f", "sizes": {"small": {}}, "inputs": {})";
  CHECK_THAT(error_for("[1, 2]"),
             Catch::Contains("manifest.json") && Catch::Contains("a manifest is a JSON object"));
  CHECK_THAT(error_for(R"({"entries": [5]})"), Catch::Contains("entry 0 is not a JSON object"));
  for (const char* seed : {R"("x")", "-1", "1.5"})
    CHECK_THAT(error_for(R"({"entries": [)" + entry + R"(, "seed": )" + seed + "}]}"),
               Catch::Contains("entry `e`") && Catch::Contains("`seed` must be a non-negative"));
  CHECK_THAT(error_for(R"({"entries": [)" + entry + R"(, "tolerance": "x"}]})"),
             Catch::Contains("manifest.json") &&
                 Catch::Contains("`tolerance` must be a non-negative number"));
  CHECK(error_for(R"({"entries": [)" + entry + "}]}") == "no error");
  // A misspelt field would silently keep its default (docs/suites.md lists the fields).
  CHECK_THAT(error_for(R"({"entries": [)" + entry + R"(, "tolerence": 1e-3}]})"),
             Catch::Contains("entry 0: unknown field `tolerence`"));
  CHECK_THAT(error_for(R"({"entries": [)" + entry + R"(, "expected": {"grad": "g"}}]})"),
             Catch::Contains("expected.grad is not a kind"));
  CHECK_THAT(error_for(R"({"entries": [)" + entry + R"(, "expected": {"gradient": 5}}]})"),
             Catch::Contains("expected.gradient must name a function"));
  CHECK_THAT(error_for(R"({"suite": "s", "entrys": []})"),
             Catch::Contains("unknown manifest field `entrys`"));
  CHECK_THAT(error_for(R"({"entries": [{"name": "e", "program": "p.adl", "function": "f", )"
                       R"("sizes": {"smal": {}}}]})"),
             Catch::Contains("`sizes.smal` is not a size set"));
  // decision 222 (an audit helper): a syntax error's own line and column (it was 1:1), a value
  // nested 200,000 deep (a stack overflow), and an entry without `inputs` (a silent normal(0, 1))
  CHECK_THAT(error_for("{\"entries\": [\n  {\"name\": }]}"),
             Catch::Contains("manifest.json:2:12: error: malformed JSON"));
  CHECK_THAT(error_for(R"({"entries": [{"name": "e", "inputs": {"x": {"value": )" +
                       std::string(200000, '[') + "1" + std::string(200000, ']') + "}}}]}"),
             Catch::Contains("JSON nested more than 256 deep"));
  CHECK_THAT(error_for(R"({"entries": [{"name": "e", "program": "p.adl", "function": "f", )"
                       R"("sizes": {"small": {}}}]})"),
             Catch::Contains("entry `e`") && Catch::Contains("missing object field `inputs`"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("every parameter of a suite entry needs a generator (docs/suites.md)", "[unit]") {
  // A parameter missing from `inputs` was drawn from normal(0, 1) without a word (decision 222).
  Module m = parse_module("func f(x: f64[n], y: f64) -> f64 { return sum[i < n] x[i] * y }");
  SuiteEntry e;
  e.suite = "s";
  e.name = "e";
  e.sizes["small"] = {{"n", 3}};
  e.inputs = nlohmann::json::parse(R"({"x": {"dist": "normal"}})");
  CHECK_THROWS_WITH(entry_inputs(*m.functions.at(0), e, "small"),
                    Catch::Contains("inputs.y is missing"));
  e.inputs["y"] = nlohmann::json::parse(R"({"value": 2})");
  CHECK(entry_inputs(*m.functions.at(0), e, "small").size() == 2);
}

TEST_CASE(
    "a sparse input's explicit zeros stay stored entries, from a file or a value (DESIGN "
    "2.1, decision 65)",
    "[unit]") {
  // 004 SpMV over A's stored entries: the explicit zero at (0, 0) is an entry whose derivative
  // (x[0]) is not zero, and `sum[(i, j) in A] 1` counts it.
  Module m = parse_module(
      "func f(A: f64[n, m] @csr, B: f64[k] @coo) -> f64 { return sum[(i, j) in A] A[i, j] }");
  const auto dir = fs::temp_directory_path() / ("adlab_sparse_zero_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string csr =
      R"({"format":"csr","shape":[2,2],"row_ptr":[0,1,2],"col_idx":[0,1],"values":[0.0,3.0]})";
  const std::string coo = R"({"format":"coo","shape":[4],"coords":[[1],[3]],"values":[5.0,0.0]})";
  std::ofstream(dir / "a.json") << csr;
  const SizeMap sizes{{"n", 2}, {"m", 2}, {"k", 4}};
  const auto& f = *m.functions.at(0);
  Tensor from_file =
      generate_input(f, 0, nlohmann::json::parse(R"({"file": "a.json"})"), sizes, 1, dir.string());
  CHECK(from_file.values == std::vector<double>{0.0, 3.0});
  CHECK(from_file.col_idx == std::vector<std::int64_t>{0, 1});
  nlohmann::json value_spec;
  value_spec["value"] = nlohmann::json::parse(coo);
  Tensor from_value = generate_input(f, 1, value_spec, sizes, 1, dir.string());
  CHECK(from_value.values == std::vector<double>{5.0, 0.0});
  CHECK(from_value.coords == std::vector<std::int64_t>{1, 3});
  fs::remove_all(dir);
}

TEST_CASE("generated inputs must keep the entry's constraints, its generator fields and names",
          "[unit]") {
  // A constraint was parsed and never used: a normal(0, 1) x for `x > 0.1` went to the checker.
  const auto dir = fs::temp_directory_path() / ("adlab_constraints_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "p.adl") << "func f(x: f64[n], idx: i64[n]) -> f64 { return x[idx[0]] }\n";
  auto inputs_for = [&](const std::string& inputs, const std::string& constraints) {
    std::ofstream(dir / "manifest.json")
        << R"({"suite": "s", "source": "test", "entries": [{"name": "e", "program": "p.adl", )"
        << R"("function": "f", "sizes": {"small": {"n": 6}}, "inputs": )" << inputs
        << R"(, "constraints": )" << constraints << "}]}";
    Suite s = load_manifest((dir / "manifest.json").string());
    Module m = parse_file(s.entries[0].program);
    try {
      entry_inputs(*m.entry("f"), s.entries[0], "small");
    } catch (const adlab::Error& e) {
      return std::string(e.what());
    }
    return std::string("ok");
  };
  const std::string idx = R"("idx": {"dist": "int", "lo": 0, "hi": "n"})";
  CHECK_THAT(inputs_for(R"({"x": {"dist": "normal"}, )" + idx + "}", R"(["x > 0.1"])"),
             Catch::Contains("break the constraint `x > 0.1`"));
  CHECK(inputs_for(
            R"({"x": {"dist": "uniform", "lo": 0.2, "hi": 1}, )" + idx + "}",
            R"j(["x > 0.1", "0 <= idx < n", "abs(sum(x) - 100) > 0.5", "no_kinks(x, 0.1)"])j") ==
        "ok");
  CHECK_THAT(inputs_for(R"({"x": {"dist": "uniform", "lo": 0.2, "hi": 1}, )" + idx + "}",
                        R"(["idx < 0"])"),
             Catch::Contains("break the constraint `idx < 0`") && Catch::Contains("entry 0"));
  CHECK_THAT(inputs_for(R"({"x": {"dist": "uniform", "lo": 0.2}, )" + idx + "}", R"(["y > 0"])"),
             Catch::Contains("`y` is no parameter or size of `f`"));
  // `low` is no field of the uniform generator: x was drawn from [0, 1) instead
  CHECK_THAT(inputs_for(R"({"x": {"dist": "uniform", "low": 5, "high": 6}, )" + idx + "}", "[]"),
             Catch::Contains("`high` is not a field of the uniform generator"));
  CHECK_THAT(inputs_for(R"({"X": {"dist": "normal"}, )" + idx + "}", "[]"),
             Catch::Contains("inputs.X names no parameter of `f`"));
  fs::remove_all(dir);
}
