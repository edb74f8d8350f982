#include "syntax/lexer.hpp"

#include <cerrno>
#include <cstdlib>
#include <string_view>

namespace keal {

const char* tok_name(Tok kind) {
  switch (kind) {
    case Tok::Eof: return "end of file";
    case Tok::Error: return "invalid token";
    case Tok::Ident: return "identifier";
    case Tok::Int: return "integer literal";
    case Tok::Float: return "float literal";
    case Tok::String: return "string literal";
    case Tok::Char: return "character literal";
    case Tok::KwFn: return "'fn'";
    case Tok::KwExport: return "'export'";
    case Tok::KwLet: return "'let'";
    case Tok::KwVar: return "'var'";
    case Tok::KwIf: return "'if'";
    case Tok::KwElse: return "'else'";
    case Tok::KwWhile: return "'while'";
    case Tok::KwFor: return "'for'";
    case Tok::KwIn: return "'in'";
    case Tok::KwBreak: return "'break'";
    case Tok::KwContinue: return "'continue'";
    case Tok::KwReturn: return "'return'";
    case Tok::KwRaise: return "'raise'";
    case Tok::KwAnd: return "'and'";
    case Tok::KwOr: return "'or'";
    case Tok::KwNot: return "'not'";
    case Tok::KwTrue: return "'true'";
    case Tok::KwFalse: return "'false'";
    case Tok::KwNull: return "'null'";
    case Tok::KwInt: return "'int'";
    case Tok::KwFloat: return "'float'";
    case Tok::KwBool: return "'bool'";
    case Tok::KwText: return "'text'";
    case Tok::KwChar: return "'char'";
    case Tok::KwBytes: return "'bytes'";
    case Tok::LParen: return "'('";
    case Tok::RParen: return "')'";
    case Tok::LBrace: return "'{'";
    case Tok::RBrace: return "'}'";
    case Tok::Comma: return "','";
    case Tok::Colon: return "':'";
    case Tok::Semicolon: return "';'";
    case Tok::Dot: return "'.'";
    case Tok::DotDot: return "'..'";
    case Tok::DotDotEq: return "'..='";
    case Tok::Arrow: return "'->'";
    case Tok::Question: return "'?'";
    case Tok::QuestionQuestion: return "'?\?'";
    case Tok::Assign: return "'='";
    case Tok::PlusAssign: return "'+='";
    case Tok::MinusAssign: return "'-='";
    case Tok::StarAssign: return "'*='";
    case Tok::SlashAssign: return "'/='";
    case Tok::PercentAssign: return "'%='";
    case Tok::Plus: return "'+'";
    case Tok::Minus: return "'-'";
    case Tok::Star: return "'*'";
    case Tok::Slash: return "'/'";
    case Tok::Percent: return "'%'";
    case Tok::EqEq: return "'=='";
    case Tok::NotEq: return "'!='";
    case Tok::Lt: return "'<'";
    case Tok::LtEq: return "'<='";
    case Tok::Gt: return "'>'";
    case Tok::GtEq: return "'>='";
    case Tok::LBracket: return "'['";
    case Tok::RBracket: return "']'";
  }
  return "token";
}

void append_utf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

namespace {

bool is_ident_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_ident_char(char c) { return is_ident_start(c) || is_digit(c); }

Tok keyword(std::string_view word) {
  struct Entry {
    std::string_view word;
    Tok kind;
  };
  static constexpr Entry table[] = {
      {"fn", Tok::KwFn},         {"export", Tok::KwExport}, {"let", Tok::KwLet},       {"var", Tok::KwVar},
      {"if", Tok::KwIf},         {"else", Tok::KwElse},     {"while", Tok::KwWhile},   {"for", Tok::KwFor},
      {"in", Tok::KwIn},         {"break", Tok::KwBreak},   {"continue", Tok::KwContinue},
      {"return", Tok::KwReturn}, {"raise", Tok::KwRaise},   {"and", Tok::KwAnd},       {"or", Tok::KwOr},
      {"not", Tok::KwNot},       {"true", Tok::KwTrue},     {"false", Tok::KwFalse},   {"null", Tok::KwNull},
      {"int", Tok::KwInt},       {"float", Tok::KwFloat},   {"bool", Tok::KwBool},     {"text", Tok::KwText},
      {"char", Tok::KwChar},     {"bytes", Tok::KwBytes},
  };
  for (const Entry& e : table) {
    if (e.word == word) return e.kind;
  }
  return Tok::Ident;
}

// Decodes one UTF-8 scalar at text[i]; returns its length, 0 when malformed.
std::size_t decode_utf8(std::string_view text, std::size_t i, std::uint32_t& cp) {
  auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  unsigned char b0 = byte(i);
  std::size_t len = 0;
  std::uint32_t min = 0;
  if (b0 < 0x80) {
    cp = b0;
    return 1;
  } else if ((b0 & 0xE0) == 0xC0) {
    len = 2, cp = b0 & 0x1Fu, min = 0x80;
  } else if ((b0 & 0xF0) == 0xE0) {
    len = 3, cp = b0 & 0x0Fu, min = 0x800;
  } else if ((b0 & 0xF8) == 0xF0) {
    len = 4, cp = b0 & 0x07u, min = 0x10000;
  } else {
    return 0;
  }
  if (i + len > text.size()) return 0;
  for (std::size_t k = 1; k < len; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (byte(i + k) & 0x3Fu);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return len;
}

class Lexer {
 public:
  Lexer(const SourceFile& source, Diagnostics& diags) : text_(source.text()), diags_(diags) {}

  std::vector<Token> run() {
    std::vector<Token> out;
    std::string doc;
    bool line_start = true;
    while (true) {
      // Whitespace and comments; `///` lines accumulate as documentation.
      while (pos_ < text_.size()) {
        char c = text_[pos_];
        if (c == '\n') {
          line_start = true;
          ++pos_;
        } else if (c == ' ' || c == '\t' || c == '\r') {
          ++pos_;
        } else if (c == '/' && peek(1) == '/') {
          std::size_t end = text_.find('\n', pos_);
          if (end == std::string_view::npos) end = text_.size();
          std::string_view line = text_.substr(pos_, end - pos_);
          if (line.substr(0, 3) == "///" && line.substr(0, 4) != "////") {
            std::string_view body = line.substr(3);
            if (!body.empty() && body.front() == ' ') body.remove_prefix(1);
            while (!body.empty() && (body.back() == '\r' || body.back() == ' ')) body.remove_suffix(1);
            if (!doc.empty()) doc += '\n';
            doc.append(body);
          }
          check_utf8(pos_, end);
          pos_ = end;
        } else {
          break;
        }
      }
      Token tok;
      tok.line_start = line_start;
      line_start = false;
      if (pos_ >= text_.size()) {
        tok.kind = Tok::Eof;
        tok.span = {pos(), pos()};
        out.push_back(std::move(tok));
        return out;
      }
      std::size_t start = pos_;
      lex_one(tok);
      tok.span = {static_cast<std::uint32_t>(start), pos()};
      if (tok.kind == Tok::KwFn || tok.kind == Tok::KwExport) {
        tok.doc = std::move(doc);
      }
      doc.clear();
      out.push_back(std::move(tok));
    }
  }

 private:
  std::uint32_t pos() const { return static_cast<std::uint32_t>(pos_); }
  char peek(std::size_t ahead) const { return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0'; }

  void error(std::size_t begin, std::size_t end, std::string message) {
    diags_.error({static_cast<std::uint32_t>(begin), static_cast<std::uint32_t>(end)}, std::move(message));
  }

  void check_utf8(std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end;) {
      std::uint32_t cp = 0;
      std::size_t n = decode_utf8(text_, i, cp);
      if (n == 0) {
        error(i, i + 1, "invalid UTF-8 in source");
        return;
      }
      i += n;
    }
  }

  void lex_one(Token& tok) {
    char c = text_[pos_];
    if (is_ident_start(c)) {
      std::size_t start = pos_;
      while (pos_ < text_.size() && is_ident_char(text_[pos_])) ++pos_;
      std::string_view word = text_.substr(start, pos_ - start);
      tok.kind = keyword(word);
      if (tok.kind == Tok::Ident) tok.text = std::string(word);
      return;
    }
    if (is_digit(c)) return lex_number(tok);
    if (c == '"') return lex_string(tok);
    if (c == '\'') return lex_char(tok);
    struct Punct {
      std::string_view text;
      Tok kind;
    };
    // Longest first.
    static constexpr Punct puncts[] = {
        {"..=", Tok::DotDotEq}, {"..", Tok::DotDot},      {"->", Tok::Arrow},       {"??", Tok::QuestionQuestion},
        {"+=", Tok::PlusAssign}, {"-=", Tok::MinusAssign}, {"*=", Tok::StarAssign}, {"/=", Tok::SlashAssign},
        {"%=", Tok::PercentAssign}, {"==", Tok::EqEq},     {"!=", Tok::NotEq},      {"<=", Tok::LtEq},
        {">=", Tok::GtEq},       {"(", Tok::LParen},       {")", Tok::RParen},      {"{", Tok::LBrace},
        {"}", Tok::RBrace},      {",", Tok::Comma},        {":", Tok::Colon},       {";", Tok::Semicolon},
        {".", Tok::Dot},         {"?", Tok::Question},     {"=", Tok::Assign},      {"+", Tok::Plus},
        {"-", Tok::Minus},       {"*", Tok::Star},         {"/", Tok::Slash},       {"%", Tok::Percent},
        {"<", Tok::Lt},          {">", Tok::Gt},           {"[", Tok::LBracket},    {"]", Tok::RBracket},
    };
    std::string_view rest = text_.substr(pos_);
    for (const Punct& p : puncts) {
      if (rest.substr(0, p.text.size()) == p.text) {
        tok.kind = p.kind;
        pos_ += p.text.size();
        return;
      }
    }
    tok.kind = Tok::Error;
    std::uint32_t cp = 0;
    std::size_t n = decode_utf8(text_, pos_, cp);
    if (n == 0) {
      error(pos_, pos_ + 1, "invalid UTF-8 in source");
      ++pos_;
      return;
    }
    std::string shown(text_.substr(pos_, n));
    if (c == '&' && peek(1) == '&') {
      error(pos_, pos_ + 2, "unexpected '&&'; use 'and'");
      pos_ += 2;
    } else if (c == '|' && peek(1) == '|') {
      error(pos_, pos_ + 2, "unexpected '||'; use 'or'");
      pos_ += 2;
    } else if (c == '!') {
      error(pos_, pos_ + 1, "unexpected '!'; use 'not'");
      pos_ += 1;
    } else {
      error(pos_, pos_ + n, "unexpected character '" + shown + "'");
      pos_ += n;
    }
  }

  void lex_number(Token& tok) {
    std::size_t start = pos_;
    bool hex = text_[pos_] == '0' && (peek(1) == 'x' || peek(1) == 'X');
    if (hex) {
      pos_ += 2;
      std::uint64_t value = 0;
      bool overflow = false;
      std::size_t digits = 0;
      while (pos_ < text_.size()) {
        char c = text_[pos_];
        int d = -1;
        if (is_digit(c)) d = c - '0';
        else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
        else if (c != '_') break;
        ++pos_;
        if (d < 0) continue;
        ++digits;
        if (value > (UINT64_MAX >> 4)) overflow = true;
        value = (value << 4) | static_cast<std::uint64_t>(d);
      }
      tok.kind = Tok::Int;
      if (digits == 0) error(start, pos_, "hexadecimal literal has no digits");
      if (overflow || value > (std::uint64_t{1} << 63)) {
        error(start, pos_, "integer literal is too large for int (64-bit)");
        value = 0;
      }
      tok.int_value = value;
      return;
    }
    while (pos_ < text_.size() && (is_digit(text_[pos_]) || text_[pos_] == '_')) ++pos_;
    bool is_float = false;
    // `1..5` is a range: a dot makes a float only when a digit follows it.
    if (pos_ < text_.size() && text_[pos_] == '.' && is_digit(peek(1))) {
      is_float = true;
      ++pos_;
      while (pos_ < text_.size() && (is_digit(text_[pos_]) || text_[pos_] == '_')) ++pos_;
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      std::size_t save = pos_;
      ++pos_;
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
      if (pos_ < text_.size() && is_digit(text_[pos_])) {
        is_float = true;
        while (pos_ < text_.size() && is_digit(text_[pos_])) ++pos_;
      } else {
        pos_ = save;
      }
    }
    if (pos_ < text_.size() && is_ident_char(text_[pos_])) {
      std::size_t bad = pos_;
      while (pos_ < text_.size() && is_ident_char(text_[pos_])) ++pos_;
      error(bad, pos_, "invalid suffix on numeric literal");
    }
    std::string digits;
    for (std::size_t i = start; i < pos_; ++i) {
      if (text_[i] != '_') digits += text_[i];
    }
    if (is_float) {
      tok.kind = Tok::Float;
      errno = 0;
      tok.float_value = std::strtod(digits.c_str(), nullptr);
      if (errno == ERANGE && (tok.float_value > 1.0 || tok.float_value < -1.0)) {
        error(start, pos_, "float literal is out of range");
      }
      return;
    }
    tok.kind = Tok::Int;
    std::uint64_t value = 0;
    bool overflow = false;
    for (char c : digits) {
      if (!is_digit(c)) break;
      auto d = static_cast<std::uint64_t>(c - '0');
      if (value > (UINT64_MAX - d) / 10) overflow = true;
      value = value * 10 + d;
    }
    if (overflow || value > (std::uint64_t{1} << 63)) {
      error(start, pos_, "integer literal is too large for int (64-bit)");
      value = 0;
    }
    tok.int_value = value;
  }

  // An escape after the backslash at pos_; appends the decoded text.
  bool lex_escape(std::string& out, std::uint32_t& cp) {
    std::size_t start = pos_;
    ++pos_;  // backslash
    if (pos_ >= text_.size()) {
      error(start, pos_, "unterminated escape sequence");
      return false;
    }
    char e = text_[pos_++];
    switch (e) {
      case 'n': cp = '\n'; break;
      case 't': cp = '\t'; break;
      case 'r': cp = '\r'; break;
      case '\\': cp = '\\'; break;
      case '"': cp = '"'; break;
      case '\'': cp = '\''; break;
      case 'u': {
        if (peek(0) != '{') {
          error(start, pos_, "expected '{' after \\u (write \\u{1F600})");
          return false;
        }
        ++pos_;
        std::uint32_t value = 0;
        std::size_t digits = 0;
        while (pos_ < text_.size() && text_[pos_] != '}' && digits < 8) {
          char c = text_[pos_];
          std::uint32_t d = 0;
          if (is_digit(c)) d = static_cast<std::uint32_t>(c - '0');
          else if (c >= 'a' && c <= 'f') d = static_cast<std::uint32_t>(c - 'a' + 10);
          else if (c >= 'A' && c <= 'F') d = static_cast<std::uint32_t>(c - 'A' + 10);
          else break;
          value = value * 16 + d;
          ++digits;
          ++pos_;
        }
        if (peek(0) != '}' || digits == 0) {
          error(start, pos_, "malformed \\u{...} escape");
          return false;
        }
        ++pos_;
        if (value > 0x10FFFF || (value >= 0xD800 && value <= 0xDFFF)) {
          error(start, pos_, "\\u{...} escape is not a Unicode scalar value");
          return false;
        }
        if (value == 0) {
          // A PostgreSQL text cannot hold U+0000 (char(0) and text(bytes)
          // refuse it at run time), so no literal may make one.
          error(start, pos_, "\\u{0} escape: text cannot contain the NUL character (U+0000)");
          return false;
        }
        cp = value;
        break;
      }
      default:
        error(start, pos_, std::string("unknown escape sequence '\\") + e + "'");
        return false;
    }
    append_utf8(out, cp);
    return true;
  }

  void lex_string(Token& tok) {
    std::size_t start = pos_;
    ++pos_;
    tok.kind = Tok::String;
    while (true) {
      if (pos_ >= text_.size() || text_[pos_] == '\n') {
        error(start, pos_, "unterminated string literal");
        tok.kind = Tok::Error;
        return;
      }
      char c = text_[pos_];
      if (c == '"') {
        ++pos_;
        return;
      }
      if (c == '\\') {
        std::uint32_t cp = 0;
        if (!lex_escape(tok.text, cp)) tok.kind = Tok::Error;
        continue;
      }
      std::uint32_t cp = 0;
      std::size_t n = decode_utf8(text_, pos_, cp);
      if (n == 0) {
        error(pos_, pos_ + 1, "invalid UTF-8 in string literal");
        tok.kind = Tok::Error;
        ++pos_;
        continue;
      }
      tok.text.append(text_.substr(pos_, n));
      pos_ += n;
    }
  }

  void lex_char(Token& tok) {
    std::size_t start = pos_;
    ++pos_;
    tok.kind = Tok::Char;
    std::string scratch;
    std::size_t count = 0;
    while (true) {
      if (pos_ >= text_.size() || text_[pos_] == '\n') {
        error(start, pos_, "unterminated character literal");
        tok.kind = Tok::Error;
        return;
      }
      char c = text_[pos_];
      if (c == '\'') {
        ++pos_;
        break;
      }
      std::uint32_t cp = 0;
      if (c == '\\') {
        if (!lex_escape(scratch, cp)) tok.kind = Tok::Error;
      } else {
        std::size_t n = decode_utf8(text_, pos_, cp);
        if (n == 0) {
          error(pos_, pos_ + 1, "invalid UTF-8 in character literal");
          tok.kind = Tok::Error;
          n = 1;
        }
        pos_ += n;
      }
      if (count == 0) tok.char_value = cp;
      ++count;
    }
    if (tok.kind == Tok::Char && count != 1) {
      error(start, pos_,
            count == 0 ? "empty character literal" : "character literal holds more than one character; use \"...\" for text");
      tok.kind = Tok::Error;
    }
  }

  std::string_view text_;
  Diagnostics& diags_;
  std::size_t pos_ = 0;
};

}  // namespace

std::vector<Token> lex(const SourceFile& source, Diagnostics& diags) { return Lexer(source, diags).run(); }

}  // namespace keal
