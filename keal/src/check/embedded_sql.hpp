#pragma once
// What the compiler reads from an embedded SQL statement's text without a
// database: the placeholders it uses ($1..$n) and whether it may write.
// A small scanner that knows SQL's strings ('..', E'..', "..", $tag$..$tag$)
// and comments (--, nested /* */), so a '$1' inside a string is not a
// placeholder. The server parses the statement itself when it prepares it.

#include <string>

namespace keal::check {

struct SqlTextFacts {
  int highest_placeholder = 0;  // the largest n of a $n, 0 when none
  bool may_write = true;        // false only for plain reads (see below)
  std::string error;            // a malformed placeholder or an unterminated string/comment
};

// `may_write` is false when the statement starts with select, values, table,
// show or with and names none of insert, update, delete, merge, into,
// truncate, copy, call, lock, nextval, setval, for (update/share locks):
// a conservative reading, so a function is never labelled STABLE when it
// might write.
SqlTextFacts scan_sql_text(const std::string& sql);

}  // namespace keal::check
