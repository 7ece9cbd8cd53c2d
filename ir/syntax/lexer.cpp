// Tokenises `.adl` text (SYNTAX.md "Lexical").
#include "ir/syntax/lexer.h"

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <string>

namespace adlab::ir {

namespace {
bool continues_line(const Token& t) {
  // After these a newline does not end the statement.
  static const char* ops[] = {"+",  "-", "*", "/", "%", "<", "<=", ">",  ">=", "==", "!=", "&&",
                              "||", "!", "=", ",", "(", "[", "{",  "->", ":",  ";",  "."};
  if (t.kind == Tok::Newline) return true;
  if (t.kind != Tok::Punct) return false;
  for (auto* o : ops)
    if (t.text == o) return true;
  return false;
}

// The character at src[i] for an error message, always printable ASCII: a control byte or a
// stray byte as 0xNN, a UTF-8 sequence as its code point (a raw byte made the message invalid
// UTF-8, and a NUL cut it short; decision 222).
std::string describe_char(std::string_view src, std::size_t i) {
  const auto c = static_cast<unsigned char>(src[i]);
  if (c > 0x20 && c < 0x7f) return "`" + std::string(1, static_cast<char>(c)) + "`";
  char buf[48];
  const int len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
  std::uint32_t cp = len == 4 ? c & 0x07u : len == 3 ? c & 0x0fu : c & 0x1fu;
  bool utf8 = len > 1 && i + static_cast<std::size_t>(len) <= src.size();
  for (int k = 1; utf8 && k < len; ++k) {
    const auto b = static_cast<unsigned char>(src[i + static_cast<std::size_t>(k)]);
    utf8 = (b & 0xc0u) == 0x80u;
    cp = (cp << 6) | (b & 0x3fu);
  }
  if (!utf8) {
    std::snprintf(buf, sizeof buf, "byte 0x%02X", static_cast<unsigned>(c));
    return buf;
  }
  std::snprintf(buf, sizeof buf, "U+%04X%s", static_cast<unsigned>(cp),
                cp == 0xfeff ? " (a byte order mark)" : "");
  return buf;
}
}  // namespace

std::string describe(const Token& t) {
  switch (t.kind) {
    case Tok::End:
      return "end of file";
    case Tok::Newline:
      return "end of line";
    case Tok::Number:
      return "number `" + t.text + "`";
    default:
      return "`" + t.text + "`";
  }
}

std::vector<Token> lex(std::string_view src, const std::string& file, std::uint32_t source_id) {
  std::vector<Token> out;
  std::vector<char> nesting;  // open ( [ {
  std::int32_t line = 1, col = 1;
  std::size_t i = 0;
  auto pos = [&] { return SourcePos{file, line, col, source_id}; };
  auto advance = [&](std::size_t n) {
    for (std::size_t k = 0; k < n; ++k) {
      if (src[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
      ++i;
    }
  };
  auto push = [&](Tok kind, std::string text, SourcePos p) {
    out.push_back(Token{kind, std::move(text), std::move(p)});
  };

  while (i < src.size()) {
    char c = src[i];
    if (c == '#') {
      while (i < src.size() && src[i] != '\n') advance(1);
      continue;
    }
    if (c == '\n') {
      bool statement_context = nesting.empty() || nesting.back() == '{';
      if (statement_context && !out.empty() && !continues_line(out.back()))
        push(Tok::Newline, "\\n", pos());
      advance(1);
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(c))) {
      advance(1);
      continue;
    }
    SourcePos p = pos();
    bool after_dot = !out.empty() && out.back().kind == Tok::Punct && out.back().text == ".";
    if (std::isdigit(static_cast<unsigned char>(c))) {
      std::size_t j = i;
      while (j < src.size() && std::isdigit(static_cast<unsigned char>(src[j]))) ++j;
      if (!after_dot) {  // after `.` only a field number: x.0.1 is two projections
        if (j + 1 < src.size() && src[j] == '.' &&
            std::isdigit(static_cast<unsigned char>(src[j + 1]))) {
          ++j;
          while (j < src.size() && std::isdigit(static_cast<unsigned char>(src[j]))) ++j;
        }
        if (j < src.size() && (src[j] == 'e' || src[j] == 'E')) {
          std::size_t k = j + 1;
          if (k < src.size() && (src[k] == '+' || src[k] == '-')) ++k;
          if (k < src.size() && std::isdigit(static_cast<unsigned char>(src[k]))) {
            j = k;
            while (j < src.size() && std::isdigit(static_cast<unsigned char>(src[j]))) ++j;
          }
        }
      }
      push(Tok::Number, std::string(src.substr(i, j - i)), p);
      advance(j - i);
      continue;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '?') {
      std::size_t j = i + 1;
      while (j < src.size() && (std::isalnum(static_cast<unsigned char>(src[j])) || src[j] == '_'))
        ++j;
      if (c == '?' && j == i + 1) throw Error(p, "expected a pattern variable name after `?`");
      push(Tok::Ident, std::string(src.substr(i, j - i)), p);
      advance(j - i);
      continue;
    }
    static const char* two[] = {"<=", ">=", "==", "!=", "&&", "||", "->", "=>"};
    bool matched = false;
    for (auto* t : two) {
      if (src.substr(i, 2) == t) {
        push(Tok::Punct, t, p);
        advance(2);
        matched = true;
        break;
      }
    }
    if (matched) continue;
    static const std::string one = "()[]{},:;.@+-*/%<>=!";
    if (one.find(c) == std::string::npos)
      throw Error(p, "unexpected character " + describe_char(src, i));
    if (c == '(' || c == '[' || c == '{') nesting.push_back(c);
    if ((c == ')' || c == ']' || c == '}') && !nesting.empty()) nesting.pop_back();
    push(Tok::Punct, std::string(1, c), p);
    advance(1);
  }
  push(Tok::End, "", pos());
  return out;
}

}  // namespace adlab::ir
