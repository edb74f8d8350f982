#pragma once
// What a database said about each embedded SQL statement, as data: made by
// `keal describe` (or on the fly by `--db`), saved to a file, and compared
// with a program's declarations by `--schema FILE`, so CI and offline builds
// check the same as with a database. No I/O and no libpq here.
//
// File format (UTF-8 text, one record a line, fields separated by tabs; in a
// field, backslash, tab and newline are written \\ \t \n):
//   keal-descriptions 1
//   statement <sql> <keal parameter types, comma-separated>
//   error <sqlstate> <1-based position, 0 for none> <message> <hint>  (the server rejected it)
//   column <name> <SQL type name> <kind> <nullable> <table.column>  (one per result column)
//   end
// kind is the Keal type family that reads the column (int, float, bool,
// text, bytes, or - for none); nullable is yes, no, or trusted (an
// expression: the database cannot say); table.column is empty for an
// expression.

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/ir.hpp"

namespace keal::driver {

struct DescribedColumn {
  std::string name;
  std::string sql_type;  // e.g. "numeric", "character varying(10)"
  std::string kind;      // "int", "float", "bool", "text", "bytes" or "-"
  std::string nullable;  // "yes", "no" or "trusted"
  std::string table_column;  // e.g. "users.score", empty for an expression
};

struct Description {
  std::string sql;
  std::string params;  // "int,text?": the Keal parameter types it was described with
  bool rejected = false;
  std::string sqlstate;
  int position = 0;
  std::string message;
  std::string hint;
  std::vector<DescribedColumn> columns;
};

// The parameter list a site is described with ("int,text?").
std::string params_key(const ir::QuerySite& q);

std::string write_descriptions(const std::vector<Description>& descriptions);
// Parses a file's text; on malformed input returns false with `error`
// naming the line ("line 3: ...").
bool read_descriptions(std::string_view text, std::vector<Description>& out, std::string& error);

struct DatabaseCheck {
  std::size_t errors = 0;
  std::size_t warnings = 0;
  std::string rendered;  // the diagnostics, in source order of the statements
};

// Looks up the description of a statement (nullptr when there is none).
using DescriptionLookup = std::function<const Description*(const ir::QuerySite&)>;

// Compares every statement of `module` with its description and renders the
// diagnostics against the source (`display_name`, `text`). `stale_hint`
// says what to do when a statement has no description.
DatabaseCheck compare_with_descriptions(const std::string& display_name, const std::string& text, const ir::Module& module,
                                        const DescriptionLookup& lookup, const std::string& stale_hint);

}  // namespace keal::driver
