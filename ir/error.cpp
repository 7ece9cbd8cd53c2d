// User errors and internal invariant failures.
#include "ir/error.h"

namespace adlab {

std::string SourcePos::str() const {
  std::string s = file.empty() ? std::string() : file + ":";
  if (line > 0) s += std::to_string(line) + ":" + std::to_string(col);
  if (!s.empty() && s.back() == ':') s.pop_back();
  return s;
}

static std::string format_error(const SourcePos& pos, const std::string& message,
                                const std::vector<std::string>& notes) {
  std::string prefix = pos.str();
  std::string s = prefix.empty() ? "error: " + message : prefix + ": error: " + message;
  for (const auto& n : notes) s += "\n  note: " + n;
  return s;
}

Error::Error(SourcePos pos, std::string message, std::vector<std::string> notes)
    : std::runtime_error(format_error(pos, message, notes)),
      pos_(std::move(pos)),
      message_(std::move(message)),
      notes_(std::move(notes)) {}

namespace detail {
CheckFailure::CheckFailure(const char* file, int line, const char* cond) {
  out_ << file << ":" << line << ": internal error: check failed: " << cond << ": ";
}
CheckFailure::~CheckFailure() noexcept(false) {
  throw InternalError(out_.str());
}
}  // namespace detail

}  // namespace adlab
