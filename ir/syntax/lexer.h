// The `.adl` lexer: tokens with positions; newlines end statements except inside ( ) and [ ]
// or after an operator, `,` or `=` (SYNTAX.md "Lexical").
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ir/error.h"

namespace adlab::ir {

enum class Tok {
  Ident,    // names and keywords (and ?pattern variables)
  Number,   // 2, 2.5, 1e-3
  Punct,    // ( ) [ ] { } , : ; . @ and operators
  Newline,  // a statement end
  End
};

struct Token {
  Tok kind;
  std::string text;
  SourcePos pos;
  bool is(std::string_view s) const {
    return (kind == Tok::Punct || kind == Tok::Ident) && text == s;
  }
};

std::vector<Token> lex(std::string_view source, const std::string& file,
                       std::uint32_t source_id = 0);
std::string describe(const Token& t);  // for "expected X, found Y" messages

}  // namespace adlab::ir
