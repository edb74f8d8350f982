#pragma once
// The lexer: source text to tokens. Bad characters and malformed literals
// become diagnostics and Error tokens; lexing always reaches Eof.

#include <vector>

#include "syntax/diagnostics.hpp"
#include "syntax/token.hpp"

namespace keal {

std::vector<Token> lex(const SourceFile& source, Diagnostics& diags);

// Appends the UTF-8 encoding of a Unicode scalar value.
void append_utf8(std::string& out, std::uint32_t code_point);

}  // namespace keal
