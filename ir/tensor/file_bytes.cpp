// Whole-file reads and writes for tensor data files.
#include "ir/tensor/file_bytes.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "ir/error.h"

namespace adlab::ir {

std::string read_file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(SourcePos{path}, std::string("cannot open file: ") + std::strerror(errno));
  std::ostringstream buf;
  buf << in.rdbuf();
  if (in.bad()) throw Error(SourcePos{path}, "read error");
  return std::move(buf).str();
}

void write_file_bytes(const std::string& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) {
    throw Error(SourcePos{path},
                std::string("cannot open file for writing: ") + std::strerror(errno));
  }
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) throw Error(SourcePos{path}, "write error");
}

}  // namespace adlab::ir
