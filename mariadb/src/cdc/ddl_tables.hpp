#pragma once
// The tables a DDL statement is about, read from its text: enough of
// MariaDB's grammar for the statements that change tables (CREATE, ALTER,
// DROP, RENAME, TRUNCATE TABLE; CREATE and DROP INDEX ... ON), so that a
// --tables filter passes the DDL of the tables it lists and no other
// (issue 32). Other statements (CREATE DATABASE, views, routines, GRANT,
// ...) are not about a table that can be told: nullopt.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sluice::mariadb::cdc::detail {

struct DdlTable {
    std::string db;  // empty: unqualified (the statement's default database)
    std::string table;
};

std::optional<std::vector<DdlTable>> ddl_tables(std::string_view sql);

}  // namespace sluice::mariadb::cdc::detail
