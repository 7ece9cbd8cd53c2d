// Builds a generated unit into a shared object with the system compiler, caches it on disk by
// content hash (source, compiler, flags) and loads it with dlopen (DESIGN 5).
#pragma once

#include <memory>
#include <string>

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

struct Built {
  std::shared_ptr<Library> library;
  std::string object_path;
  bool cache_hit = false;
  double seconds = 0;  // compile (or cache lookup) time
};

// Compiles (or finds in the cache) and loads `unit`; `keep_source`: a directory to copy the
// source into. Compiler errors become adlab::Error naming the generated line and IR statement.
Built build(const Unit& unit, const std::string& function_name, const std::string& scalar_type,
            const CompilerConfig& config, const std::string& keep_source);

// The runtime header's text (embedded at build time).
extern const char* const kRuntimeHeader;

}  // namespace adlab::backends::cpu
