// Whole-file reads and writes for tensor data files, reporting failures as adlab::Error.
#pragma once

#include <string>
#include <string_view>

namespace adlab::ir {

// The file's bytes; throws adlab::Error "cannot open 'path': reason".
std::string read_file_bytes(const std::string& path);
// Replaces the file's contents; throws adlab::Error when it cannot be written.
void write_file_bytes(const std::string& path, std::string_view bytes);

}  // namespace adlab::ir
