#pragma once
// Recursive-descent parser. Statements end at a line break or ';'. After an
// error it skips to the next statement (or item) and goes on, so one run can
// report several errors.

#include <vector>

#include "syntax/ast.hpp"
#include "syntax/diagnostics.hpp"
#include "syntax/token.hpp"

namespace keal {

// Nesting bound for expressions and blocks: deeper input is an error, never a
// stack overflow in a later stage.
inline constexpr int max_nesting = 200;

ast::Module parse(const std::vector<Token>& tokens, Diagnostics& diags);

// Lex and parse in one step.
ast::Module parse_source(const SourceFile& source, Diagnostics& diags);

}  // namespace keal
