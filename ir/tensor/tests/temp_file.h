// A uniquely named temporary file for I/O round-trip tests, removed when it goes out of scope.
#pragma once

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <string>

namespace adlab::ir::testing {

class TempFile {
 public:
  explicit TempFile(const std::string& suffix) {
    static std::atomic<int> counter{0};
    path_ = (std::filesystem::temp_directory_path() /
             ("adlab_tensor_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++) +
              suffix))
                .string();
  }
  ~TempFile() {
    std::error_code ec;
    std::filesystem::remove(path_, ec);
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace adlab::ir::testing
