#pragma once
// Tokens of Keal. Newlines are not tokens: each token records whether it
// starts a line, which is how the parser ends statements.

#include <cstdint>
#include <string>

#include "syntax/source.hpp"

namespace keal {

enum class Tok : std::uint8_t {
  Eof,
  Error,
  Ident,
  Int,
  Float,
  String,
  Char,
  // keywords
  KwFn,
  KwExport,
  KwLet,
  KwVar,
  KwIf,
  KwElse,
  KwWhile,
  KwFor,
  KwIn,
  KwBreak,
  KwContinue,
  KwReturn,
  KwRaise,
  KwAnd,
  KwOr,
  KwNot,
  KwTrue,
  KwFalse,
  KwNull,
  KwInt,
  KwFloat,
  KwBool,
  KwText,
  KwChar,
  KwBytes,
  // punctuation
  LParen,
  RParen,
  LBrace,
  RBrace,
  Comma,
  Colon,
  Semicolon,
  Dot,
  DotDot,
  DotDotEq,
  Arrow,
  Question,
  QuestionQuestion,
  Assign,
  PlusAssign,
  MinusAssign,
  StarAssign,
  SlashAssign,
  PercentAssign,
  Plus,
  Minus,
  Star,
  Slash,
  Percent,
  EqEq,
  NotEq,
  Lt,
  LtEq,
  Gt,
  GtEq,
  LBracket,  // [ of an array type, literal or index
  RBracket,
};

const char* tok_name(Tok kind);

struct Token {
  Tok kind = Tok::Eof;
  Span span;
  bool line_start = false;  // first token on its line
  std::string text;         // identifier name, decoded string literal
  std::string doc;          // `///` lines right before this token, joined by '\n'
  std::uint64_t int_value = 0;  // may be 2^63 (only valid under unary minus)
  double float_value = 0;
  std::uint32_t char_value = 0;
};

}  // namespace keal
