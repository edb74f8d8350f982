#pragma once
// `--db URL`: every embedded SQL statement described against a live
// database at compile time. Reported at the statement, as
// `file:line:col: error:` with a caret: the server's own error for the
// statement (unknown table or column, syntax, parameters whose Keal types do
// not fit), a wrong number of columns, a declared type that does not match a
// column's. A non-null declared type for a column the database says may be
// NULL is a warning (the run-time 22004 check stands); expressions and outer
// joins, which the database cannot vouch for, are trusted as declared.

#include <cstddef>
#include <string>

#include "ir/ir.hpp"

namespace keal::driver {

struct DatabaseCheck {
  std::size_t errors = 0;
  std::size_t warnings = 0;
  std::string rendered;  // the diagnostics, in source order of the statements
};

// `display_name` and `text` are the source as compiled (for the carets).
DatabaseCheck check_against_database(const std::string& display_name, const std::string& text,
                                     const ir::Module& module, const std::string& url);

}  // namespace keal::driver
