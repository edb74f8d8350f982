#pragma once
// A table's columns as the server describes them in the result metadata of
// `SELECT * FROM db.table LIMIT 0`, not from information_schema.COLUMNS:
// MariaDB 10.11.19 crashed (SIGSEGV in ha_maria::drop_table, freeing the
// I_S temporary table) on an information_schema.COLUMNS query run right
// after DDL, in our CI. The column definitions carry the facts the CDC and
// the pipeline need: names (org_name), wire types and flags (unsigned),
// UUID/INET types in the extended metadata, fractional digits of temporals.
//
//   if (auto cols = table_columns(conn, "shop", "orders"))
//       for (const Column& c : *cols) use(c.org_name, c.type_name());
//
// The Columns are copies: they outlive the query.
#include <optional>
#include <string_view>
#include <vector>

#include "sluice/mariadb/column.hpp"
#include "sluice/mariadb/connection.hpp"

namespace sluice::mariadb::cdc {

// nullopt when the table does not exist (server error 1146; also 1049, an
// unknown database); any other failure (a missing privilege: 1142) throws
// the server's Error.
std::optional<std::vector<Column>> table_columns(Connection& conn, std::string_view db, std::string_view table);

// The column's own name (org_name), or the name the result gives it.
inline const std::string& column_name(const Column& c) { return c.org_name.empty() ? c.name : c.org_name; }

}  // namespace sluice::mariadb::cdc
