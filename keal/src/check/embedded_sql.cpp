#include "check/embedded_sql.hpp"

#include <cctype>
#include <set>
#include <vector>

namespace keal::check {

namespace {

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || (c & 0x80); }
bool ident_char(char c) { return ident_start(c) || std::isdigit(static_cast<unsigned char>(c)) || c == '$'; }

}  // namespace

SqlTextFacts scan_sql_text(const std::string& sql) {
  SqlTextFacts facts;
  std::vector<std::string> words;
  const std::size_t n = sql.size();
  std::size_t i = 0;
  auto fail = [&](const std::string& why) {
    facts.error = why;
    return facts;
  };
  while (i < n) {
    const char c = sql[i];
    if (c == '-' && i + 1 < n && sql[i + 1] == '-') {
      while (i < n && sql[i] != '\n') ++i;
    } else if (c == '/' && i + 1 < n && sql[i + 1] == '*') {
      int depth = 0;
      while (i < n) {
        if (sql[i] == '/' && i + 1 < n && sql[i + 1] == '*') {
          ++depth;
          i += 2;
        } else if (sql[i] == '*' && i + 1 < n && sql[i + 1] == '/') {
          i += 2;
          if (--depth == 0) break;
        } else {
          ++i;
        }
      }
      if (depth != 0) return fail("unterminated /* comment in the SQL statement");
    } else if (c == '\'' || c == '"') {
      // E'..' allows backslash escapes; '' and "" are the quote itself.
      const bool escapes = c == '\'' && i > 0 && (sql[i - 1] == 'E' || sql[i - 1] == 'e') &&
                           (i < 2 || !ident_char(sql[i - 2]));
      ++i;
      bool closed = false;
      while (i < n) {
        if (escapes && sql[i] == '\\') {
          i += 2;
        } else if (sql[i] == c) {
          if (i + 1 < n && sql[i + 1] == c) {
            i += 2;
          } else {
            ++i;
            closed = true;
            break;
          }
        } else {
          ++i;
        }
      }
      if (!closed) return fail(c == '"' ? "unterminated quoted identifier in the SQL statement"
                                        : "unterminated string in the SQL statement");
    } else if (c == '$' && (i == 0 || !ident_char(sql[i - 1]))) {
      std::size_t j = i + 1;
      if (j < n && std::isdigit(static_cast<unsigned char>(sql[j]))) {
        long long value = 0;
        while (j < n && std::isdigit(static_cast<unsigned char>(sql[j]))) {
          value = value * 10 + (sql[j] - '0');
          if (value > 65535) return fail("placeholder $" + sql.substr(i + 1, j - i) + "... is out of range");
          ++j;
        }
        if (value == 0) return fail("there is no placeholder $0: parameters are $1, $2, ...");
        if (value > facts.highest_placeholder) facts.highest_placeholder = static_cast<int>(value);
        i = j;
      } else {
        // $tag$ ... $tag$ (the tag may be empty).
        while (j < n && ident_char(sql[j]) && sql[j] != '$') ++j;
        if (j < n && sql[j] == '$') {
          const std::string tag = sql.substr(i, j - i + 1);
          const std::size_t end = sql.find(tag, j + 1);
          if (end == std::string::npos) return fail("unterminated " + tag + " string in the SQL statement");
          i = end + tag.size();
        } else {
          ++i;
        }
      }
    } else if (ident_start(c)) {
      std::size_t j = i;
      while (j < n && ident_char(sql[j])) ++j;
      std::string word;
      for (std::size_t k = i; k < j; ++k) word += static_cast<char>(std::tolower(static_cast<unsigned char>(sql[k])));
      words.push_back(std::move(word));
      i = j;
    } else {
      ++i;
    }
  }
  static const std::set<std::string> reads = {"select", "values", "table", "show", "with"};
  static const std::set<std::string> writes = {"insert", "update", "delete", "merge", "into", "truncate", "copy",
                                               "call", "lock", "nextval", "setval", "for"};
  facts.may_write = words.empty() || reads.count(words[0]) == 0;
  for (const std::string& w : words) {
    if (writes.count(w) != 0) facts.may_write = true;
  }
  return facts;
}

}  // namespace keal::check
