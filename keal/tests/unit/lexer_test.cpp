#include <gtest/gtest.h>

#include "support.hpp"

namespace keal {
namespace {

using test::kinds;
using test::lex_text;

TEST(Lexer, KeywordsIdentifiersAndPunctuation) {
  auto l = lex_text("export fn f(x: int?) -> text { x += 1; y ?? z }");
  EXPECT_EQ(l.diagnostics, "");
  std::vector<Tok> want = {Tok::KwExport, Tok::KwFn, Tok::Ident, Tok::LParen, Tok::Ident, Tok::Colon, Tok::KwInt,
                           Tok::Question, Tok::RParen, Tok::Arrow, Tok::KwText, Tok::LBrace, Tok::Ident, Tok::PlusAssign,
                           Tok::Int, Tok::Semicolon, Tok::Ident, Tok::QuestionQuestion, Tok::Ident, Tok::RBrace, Tok::Eof};
  EXPECT_EQ(kinds(l.tokens), want);
  EXPECT_EQ(l.tokens[2].text, "f");
}

TEST(Lexer, RangeIsNotAFloat) {
  auto l = lex_text("1..5 1..=5 1.5 2.5e-3 1e3 7e");
  std::vector<Tok> want = {Tok::Int, Tok::DotDot, Tok::Int, Tok::Int, Tok::DotDotEq, Tok::Int, Tok::Float,
                           Tok::Float, Tok::Float, Tok::Int, Tok::Ident, Tok::Eof};
  // `7e` is an int followed by an invalid suffix.
  ASSERT_GE(l.tokens.size(), 9u);
  EXPECT_EQ(l.tokens[0].int_value, 1u);
  EXPECT_EQ(l.tokens[1].kind, Tok::DotDot);
  EXPECT_EQ(l.tokens[4].kind, Tok::DotDotEq);
  EXPECT_DOUBLE_EQ(l.tokens[6].float_value, 1.5);
  EXPECT_DOUBLE_EQ(l.tokens[7].float_value, 2.5e-3);
  EXPECT_DOUBLE_EQ(l.tokens[8].float_value, 1e3);
  EXPECT_NE(l.diagnostics.find("invalid suffix on numeric literal"), std::string::npos);
  (void)want;
}

TEST(Lexer, IntegerLiterals) {
  auto l = lex_text("1_000_000 0xFF 9223372036854775807 9223372036854775808");
  EXPECT_EQ(l.diagnostics, "");
  EXPECT_EQ(l.tokens[0].int_value, 1000000u);
  EXPECT_EQ(l.tokens[1].int_value, 255u);
  EXPECT_EQ(l.tokens[2].int_value, 9223372036854775807u);
  // 2^63 lexes: it is valid right after a unary minus.
  EXPECT_EQ(l.tokens[3].int_value, 9223372036854775808u);
  auto big = lex_text("18446744073709551616");
  EXPECT_NE(big.diagnostics.find("too large"), std::string::npos);
}

TEST(Lexer, StringEscapesDecodeToUtf8) {
  auto l = lex_text(R"("a\tb\n\"q\" \\ \u{e9}\u{1F600}")");
  EXPECT_EQ(l.diagnostics, "");
  ASSERT_EQ(l.tokens[0].kind, Tok::String);
  EXPECT_EQ(l.tokens[0].text, "a\tb\n\"q\" \\ \xC3\xA9\xF0\x9F\x98\x80");
}

TEST(Lexer, BadEscapesAndLiterals) {
  EXPECT_NE(lex_text(R"("\q")").diagnostics.find("unknown escape sequence '\\q'"), std::string::npos);
  EXPECT_NE(lex_text(R"("\u{D800}")").diagnostics.find("not a Unicode scalar value"), std::string::npos);
  EXPECT_NE(lex_text(R"("\u{110000}")").diagnostics.find("not a Unicode scalar value"), std::string::npos);
  EXPECT_NE(lex_text("\"open").diagnostics.find("unterminated string literal"), std::string::npos);
  EXPECT_NE(lex_text("''").diagnostics.find("empty character literal"), std::string::npos);
  EXPECT_NE(lex_text("'ab'").diagnostics.find("more than one character"), std::string::npos);
}

TEST(Lexer, CharLiterals) {
  auto l = lex_text(R"('a' 'é' '\n' '\u{1F600}' '\'')");
  EXPECT_EQ(l.diagnostics, "");
  EXPECT_EQ(l.tokens[0].char_value, 'a');
  EXPECT_EQ(l.tokens[1].char_value, 0xE9u);
  EXPECT_EQ(l.tokens[2].char_value, '\n');
  EXPECT_EQ(l.tokens[3].char_value, 0x1F600u);
  EXPECT_EQ(l.tokens[4].char_value, '\'');
}

TEST(Lexer, DocCommentsAttachToTheNextFunction) {
  auto l = lex_text("/// first line\n///second\n//// not doc\n// plain\nexport fn f() {}\nfn g() {}");
  EXPECT_EQ(l.diagnostics, "");
  ASSERT_EQ(l.tokens[0].kind, Tok::KwExport);
  EXPECT_EQ(l.tokens[0].doc, "first line\nsecond");
  EXPECT_EQ(l.tokens[7].kind, Tok::KwFn);
  EXPECT_EQ(l.tokens[7].doc, "");
}

TEST(Lexer, LineStartMarksStatementBoundaries) {
  auto l = lex_text("a b\n  c");
  EXPECT_TRUE(l.tokens[0].line_start);
  EXPECT_FALSE(l.tokens[1].line_start);
  EXPECT_TRUE(l.tokens[2].line_start);
}

TEST(Lexer, CStyleOperatorsGetAHint) {
  auto l = lex_text("a && b || !c");
  EXPECT_NE(l.diagnostics.find("unexpected '&&'; use 'and'"), std::string::npos);
  EXPECT_NE(l.diagnostics.find("unexpected '||'; use 'or'"), std::string::npos);
  EXPECT_NE(l.diagnostics.find("unexpected '!'; use 'not'"), std::string::npos);
}

TEST(Lexer, InvalidUtf8IsAnErrorNotACrash) {
  auto l = lex_text(std::string("\"ab\xC3\" \xFF // \xE2\x82\n"));
  EXPECT_NE(l.diagnostics.find("invalid UTF-8"), std::string::npos);
  EXPECT_EQ(l.tokens.back().kind, Tok::Eof);
}

TEST(Lexer, SpansAndCaretRendering) {
  SourceFile source("x.keal", "fn f() {\n\tlet s = \"é\" @\n}\n");
  Diagnostics diags(source);
  lex(source, diags);
  // The caret line copies the tab and counts 'é' as one column.
  EXPECT_EQ(diags.render(), "x.keal:2:15: error: unexpected character '@'\n\tlet s = \"é\" @\n\t            ^\n");
}

}  // namespace
}  // namespace keal
