// User-facing errors with source positions, and internal invariant checks (STYLE.md "Errors").
#pragma once

#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace adlab {

struct SourcePos {
  std::string file;
  std::int32_t line = 0;
  std::int32_t col = 0;
  std::uint32_t source = 0;  // which parse this position belongs to (a file may be parsed often)
  bool valid() const { return line > 0; }
  std::string str() const;  // "file:line:col" (or "line:col" without a file)
};

// A user error: bad program, shape, data, index or solver result. Printed "file:line:col: error:
// msg".
class Error : public std::runtime_error {
 public:
  Error(SourcePos pos, std::string message, std::vector<std::string> notes = {});
  explicit Error(std::string message) : Error(SourcePos{}, std::move(message)) {}
  const SourcePos& pos() const { return pos_; }
  const std::string& message() const { return message_; }
  const std::vector<std::string>& notes() const { return notes_; }

 private:
  SourcePos pos_;
  std::string message_;
  std::vector<std::string> notes_;
};

// A broken internal invariant (a bug in adlab, not in the user's input).
class InternalError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

namespace detail {
// Collects the streamed message of a failed ADLAB_CHECK and throws InternalError at the end.
class CheckFailure {
 public:
  CheckFailure(const char* file, int line, const char* cond);
  [[noreturn]] ~CheckFailure() noexcept(false);
  template <class V>
  CheckFailure& operator<<(const V& v) {
    out_ << v;
    return *this;
  }

 private:
  std::ostringstream out_;
};
}  // namespace detail

}  // namespace adlab

// ADLAB_CHECK(cond) << "context": reports the C++ file and line of a broken invariant.
#define ADLAB_CHECK(cond) \
  if (cond) {             \
  } else                  \
    ::adlab::detail::CheckFailure(__FILE__, __LINE__, #cond)
