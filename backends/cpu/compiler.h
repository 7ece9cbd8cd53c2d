// Builds a generated unit into a shared object with the system compiler, caches it on disk by
// content hash (source, compiler, flags) and loads it with dlopen (DESIGN 5).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "backends/cpu/codegen.h"

namespace adlab::backends::cpu {

struct CompilerConfig {
  std::string compiler;   // ADLAB_CXX, else c++
  std::string flags;      // ADLAB_CPU_FLAGS, else -O3 -march=native
  std::string cache_dir;  // ADLAB_CACHE_DIR, else $XDG_CACHE_HOME/adlab/cpu or ~/.cache/adlab/cpu
  static CompilerConfig from_environment();
};

// A loaded shared object; closed when the last handle goes.
class Library {
 public:
  explicit Library(void* handle) : handle_(handle) {}
  ~Library();
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;
  void* symbol(const char* name) const;

 private:
  void* handle_;
};

// The scalar type a unit is instantiated with (`using T = ...`; issue 10 item 4). Builtin types
// need only the name; another type names the header that defines it, the directories its
// includes are found in, and the text its headers hold, which joins the cache key so that a
// changed type never loads a stale object.
struct ScalarType {
  std::string name;  // double, float, or e.g. adlab::ad::dualrev::Dual
  std::string header;
  std::vector<std::string> include_dirs;
  std::string key_text;
  bool openmp = true;  // off for a type that records on a per-thread tape
  static ScalarType builtin(const std::string& name) { return ScalarType{name, "", {}, "", true}; }
};

struct Built {
  std::shared_ptr<Library> library;
  std::string object_path;
  bool cache_hit = false;
  double seconds = 0;  // compile (or cache lookup) time
};

// Compiles (or finds in the cache) and loads `unit`; `keep_source`: a directory to copy the
// source into. Compiler errors become adlab::Error naming the generated line and IR statement.
Built build(const Unit& unit, const std::string& function_name, const ScalarType& scalar,
            const CompilerConfig& config, const std::string& keep_source);

// The runtime header's text (embedded at build time).
extern const char* const kRuntimeHeader;

}  // namespace adlab::backends::cpu
