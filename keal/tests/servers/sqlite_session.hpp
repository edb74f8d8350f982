#pragma once
// An in-memory SQLite database with a Keal extension loaded
// (sqlite3_load_extension), and calls of its functions with bound
// parameters: the SQLite side of the three-server tests.
#include <sqlite3.h>

#include <string>
#include <vector>

#include "call_case.hpp"

namespace keal::servers {

// Builds programs/<file_name> with `keal build --target sqlite` (once per
// process); returns the extension's path. Throws with the compiler's output.
std::string sqlite_extension(const std::string& file_name);

class SqliteSession {
public:
    // Opens :memory: and loads the extension; throws std::runtime_error.
    explicit SqliteSession(const std::string& extension_path);
    ~SqliteSession();
    SqliteSession(const SqliteSession&) = delete;
    SqliteSession& operator=(const SqliteSession&) = delete;

    // SELECT function(?, ...) with the arguments bound by their kinds.
    Outcome run(const Call& call, const std::string& source_file);
    // Runs `sql` (one statement, no parameters): its first value rendered as
    // `result`, or the error; `code` gets sqlite3_errcode on failure.
    Outcome query(const std::string& sql, Kind result, const std::string& source_file, int* code = nullptr);

    // Runs `sql` (one statement, no parameters): every row rendered by
    // the kinds of its columns (render_rows), or the error.
    Outcome rows(const std::string& sql, const std::vector<Kind>& columns, const std::string& source_file, int* code = nullptr);

    // Runs statements without results (DDL, INSERT); throws on error.
    void exec(const std::string& sql);

    sqlite3* db() { return db_; }

private:
    sqlite3* db_ = nullptr;
};

}  // namespace keal::servers
