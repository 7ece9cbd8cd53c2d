// Suite manifests (`suites/**/manifest.json`, format in docs/suites.md; DESIGN 6).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace adlab::ir {

using SizeMap = std::map<std::string, std::int64_t>;

struct SuiteEntry {
  std::string suite;    // e.g. "papers/iverson"
  std::string name;     // unique within the suite
  std::string program;  // absolute or manifest-relative resolved path of the .adl file
  std::string function;
  std::string source;
  std::map<std::string, SizeMap> sizes;  // "small", "full"
  nlohmann::json inputs = nlohmann::json::object();
  std::uint64_t seed = 1;
  std::vector<std::string> constraints, wrt, modes;
  nlohmann::json expected = nlohmann::json::object();
  double tolerance = 1e-12;
  std::optional<double> cost_bound;
  // Finite-difference settings that replace the checker's (e.g. a paper's own step sizes).
  std::optional<double> fd_step;
  std::optional<int> fd_levels;
  // A checker self-test: every cell must come out AT-KINK (the checker must flag the switch);
  // a PASS there means the checker missed it, and FAILs the cell.
  bool expect_at_kink = false;
  std::string notes;
  std::string dir;  // the manifest's folder (input files are relative to it)

  std::string id() const { return suite + "/" + name; }
  const SizeMap& size_set(const std::string& which) const;  // throws when missing
};

struct Suite {
  std::string name;
  std::string source;
  std::string dir;
  std::vector<SuiteEntry> entries;
};

// Reads one manifest; errors name the file and the entry.
Suite load_manifest(const std::string& path, const std::string& suite_root = "");
// Every manifest.json below `root`, sorted by path; the suite name is the folder relative to root.
std::vector<Suite> find_suites(const std::string& root);

}  // namespace adlab::ir
