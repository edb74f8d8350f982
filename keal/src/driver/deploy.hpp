#pragma once
// Installing compiled functions into a running PostgreSQL (through sluice::postgres).

#include <optional>
#include <string>
#include <vector>

#include "driver/library_dir.hpp"  // default_lib_dir()

namespace keal::driver {

// Runs an SQL script (several statements) on the database at `url` (when
// empty: $DATABASE_URL, else the PG* variables). On failure `error` holds the
// connection's or the server's message (with its SQLSTATE).
bool run_sql(const std::string& url, const std::string& sql, std::string& error);

// Runs a query on the database at `url`: every row's values as text (NULL
// as empty). nullopt on failure, with `error` set.
std::optional<std::vector<std::vector<std::string>>> query_rows(const std::string& url, const std::string& sql,
                                                                 std::string& error);

// Copies `so_path` into `lib_dir` under a name unique to its content (a
// backend that already loaded an older build would otherwise keep using it),
// the file readable by all (0644). Creates `lib_dir` and its missing parents
// with mode 0755; never changes the mode of a directory that already exists
// (see unreachable_hint in deploy_checks.hpp). Refuses a directory another
// user could write, and writes the file as LibraryDir::install does
// (library_dir.hpp). Returns the installed path, empty on failure.
std::string install_library(const std::string& so_path, const std::string& lib_dir, const std::string& stem,
                            std::string& error);

}  // namespace keal::driver
