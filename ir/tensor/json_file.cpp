#include "ir/tensor/json_file.h"

#include <algorithm>

#include "ir/error.h"
#include "ir/tensor/file_bytes.h"

namespace adlab::ir {

namespace {
// The line and column of the 0-based byte offset `at` in `text`.
SourcePos position_of(const std::string& text, std::size_t at, const std::string& path) {
  SourcePos pos{path, 1, 1};
  for (std::size_t k = 0; k < at && k < text.size(); ++k) {
    if (text[k] == '\n') {
      ++pos.line;
      pos.col = 1;
    } else {
      ++pos.col;
    }
  }
  return pos;
}

// "[json.exception.parse_error.101] parse error at line 1, column 4: syntax error ..." -> the
// part after the position.
std::string parse_error_detail(const std::string& what) {
  auto at = what.find("parse error");
  auto colon = what.find(": ", at == std::string::npos ? 0 : at);
  return colon == std::string::npos ? what : what.substr(colon + 2);
}

// The offset of the first bracket nested past the limit (outside strings), or npos. A malformed
// text is left to the parser, which reports it where it is.
std::size_t too_deep_at(const std::string& text) {
  int depth = 0;
  bool in_string = false;
  for (std::size_t k = 0; k < text.size(); ++k) {
    const char c = text[k];
    if (in_string) {
      if (c == '\\')
        ++k;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonNesting) return k;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return std::string::npos;
}
}  // namespace

nlohmann::json parse_json_text(const std::string& text, const std::string& path) {
  if (std::size_t at = too_deep_at(text); at != std::string::npos)
    throw Error(position_of(text, at, path),
                "JSON nested more than " + std::to_string(kMaxJsonNesting) + " deep");
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    // e.byte is the 1-based offset of the last character read
    throw Error(position_of(text, std::min<std::size_t>(e.byte, text.size()) - (e.byte > 0), path),
                "malformed JSON: " + parse_error_detail(e.what()));
  } catch (const nlohmann::json::exception& e) {  // a number past double's range (`1e400`)
    throw Error(SourcePos{path}, std::string("unreadable JSON: ") + e.what());
  }
}

nlohmann::json read_json_file(const std::string& path) {
  return parse_json_text(read_file_bytes(path), path);
}

}  // namespace adlab::ir
