// Shared by the cpu backend's test files: compiled units go to one temporary cache directory
// (not the user's), and a function is compiled on a named backend with a named scalar type.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

#include "backends/backend.h"
#include "ir/function.h"

namespace adlab::backends::test {

inline void use_test_cache() {
  static bool done = [] {
    auto dir = std::filesystem::temp_directory_path() / "adlab_cpu_backend_tests";
    setenv("ADLAB_CACHE_DIR", dir.c_str(), 1);
    return true;
  }();
  (void)done;
}

inline std::unique_ptr<Executable> compile_for_test(const std::string& backend,
                                                    const ir::FunctionPtr& f,
                                                    const std::string& scalar = "double") {
  use_test_cache();
  Options o;
  o.scalar_type = scalar;
  return BackendRegistry::instance().get(backend).compile(f, o);
}

}  // namespace adlab::backends::test
