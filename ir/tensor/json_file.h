// A JSON file read for adlab (data files and suite manifests): errors carry the file's line and
// column, and nesting is bounded before the document is built, since nlohmann::json copies and
// compares recursively (a manifest value nested 200,000 deep overflowed the stack; decision 222).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace adlab::ir {

// Deeper than any document adlab reads: a rank-64 tensor inside a manifest entry is about 70.
inline constexpr int kMaxJsonNesting = 256;

// Parses `text`, read from `path`; throws adlab::Error at the position of a syntax error or of
// the bracket that nests past kMaxJsonNesting.
nlohmann::json parse_json_text(const std::string& text, const std::string& path);

// read_file_bytes + parse_json_text.
nlohmann::json read_json_file(const std::string& path);

}  // namespace adlab::ir
