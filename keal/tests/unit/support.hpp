#pragma once
// Small helpers shared by the unit tests: run one stage on a string.

#include <string>
#include <vector>

#include "driver/compile.hpp"
#include "syntax/diagnostics.hpp"
#include "syntax/lexer.hpp"
#include "syntax/parser.hpp"

namespace keal::test {

struct Lexed {
  std::vector<Token> tokens;
  std::string diagnostics;
};

inline Lexed lex_text(const std::string& text) {
  SourceFile source("t.keal", text);
  Diagnostics diags(source);
  Lexed out;
  out.tokens = lex(source, diags);
  out.diagnostics = diags.render();
  return out;
}

inline std::vector<Tok> kinds(const std::vector<Token>& tokens) {
  std::vector<Tok> out;
  for (const Token& t : tokens) out.push_back(t.kind);
  return out;
}

struct Parsed {
  ast::Module module;
  std::string diagnostics;
  std::size_t errors = 0;
};

inline Parsed parse_text(const std::string& text) {
  SourceFile source("t.keal", text);
  Diagnostics diags(source);
  Parsed out;
  out.module = parse_source(source, diags);
  out.diagnostics = diags.render();
  out.errors = diags.error_count();
  return out;
}

inline driver::Compiled compile(const std::string& text, check::Target target = check::Target::Any) {
  return driver::compile_source("t.keal", text, target);
}

}  // namespace keal::test
