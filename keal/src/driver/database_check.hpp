#pragma once
// `--db URL`: every embedded SQL statement described against a live
// database at compile time, and compared with the program's declarations
// (descriptions.hpp). Reported at the statement, as `file:line:col: error:`
// with a caret: the server's own error for the statement (unknown table or
// column, syntax, parameters whose Keal types do not fit), a wrong number of
// columns, a declared type that does not match a column's. A non-null
// declared type for a column the database says may be NULL is a warning
// (the run-time 22004 check stands); expressions and outer joins, which the
// database cannot vouch for, are trusted as declared.

#include <optional>
#include <string>
#include <vector>

#include "driver/descriptions.hpp"
#include "ir/ir.hpp"

namespace keal::driver {

// Describes each statement of `module` (prepared as an unnamed statement
// with its Keal parameter types, never run). A statement the server rejects
// is a Description (rejected, with the server's SQLSTATE and message); a
// database that cannot be reached, or a connection lost on the way, is
// nullopt with `error` the connection's message.
std::optional<std::vector<Description>> describe_statements(const ir::Module& module, const std::string& url,
                                                            std::string& error);

// describe_statements + compare_with_descriptions (nullopt as there).
std::optional<DatabaseCheck> check_against_database(const std::string& display_name, const std::string& text,
                                                    const ir::Module& module, const std::string& url,
                                                    std::string& error);

// `--schema FILE`: the same comparison against descriptions saved by
// `keal describe`; a statement the file does not describe (the program
// changed since) is an error saying to describe again.
DatabaseCheck check_against_schema(const std::string& display_name, const std::string& text, const ir::Module& module,
                                   const std::vector<Description>& saved, const std::string& schema_file);

}  // namespace keal::driver
