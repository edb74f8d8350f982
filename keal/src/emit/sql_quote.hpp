#pragma once
// SQL text quoting for the statements Keal writes (install scripts, deploy
// checks): a string literal with quotes doubled, an identifier in double
// quotes with double quotes doubled. Front-end code: no libpq.
#include <string>

namespace keal::emit {

inline std::string sql_literal(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') out += '\'';
    out += c;
  }
  return out + "'";
}

inline std::string sql_ident(const std::string& name) {
  std::string out = "\"";
  for (char c : name) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

}  // namespace keal::emit
