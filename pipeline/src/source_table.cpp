#include "source_table.hpp"

#include <string>

#include "sluice/mariadb/cdc/table_columns.hpp"
#include "sluice/mariadb/result_set.hpp"
#include "sluice/pipeline/error.hpp"

namespace sluice::pipeline {

namespace {

using mariadb::ColumnType;

bool integer_type(const mariadb::Column& c) {
    switch (c.type) {
        case ColumnType::tiny:
        case ColumnType::short_:
        case ColumnType::int24:
        case ColumnType::long_:
        case ColumnType::longlong: return true;
        default: return false;
    }
}

bool number_type(const mariadb::Column& c) {
    switch (c.type) {
        case ColumnType::decimal:
        case ColumnType::newdecimal:
        case ColumnType::float_:
        case ColumnType::double_: return true;
        default: return integer_type(c);
    }
}

}  // namespace

void check_source_table(mariadb::Connection& conn, const RunOptions& o) {
    const std::string where = o.db + "." + o.table;
    // The column definitions of an empty SELECT (as the CDC stream learns
    // them), not information_schema.COLUMNS: that query crashed MariaDB
    // 10.11.19 right after DDL (mariadb/cdc/table_columns.hpp).
    const auto columns = mariadb::cdc::table_columns(conn, o.db, o.table);
    if (!columns || columns->empty())
        throw Error(ErrorKind::source_table,
                    "source table " + where + " does not exist (or the source user cannot see it)");
    std::string listed;
    for (const mariadb::Column& c : *columns) listed += (listed.empty() ? "" : ", ") + mariadb::cdc::column_name(c);
    const std::pair<const char*, const std::string*> roles[] = {
        {"id", &o.columns.id}, {"key", &o.columns.key}, {"ts", &o.columns.ts}, {"value", &o.columns.value}};
    for (const auto& [role, name] : roles) {
        const mariadb::Column* column = nullptr;
        for (const mariadb::Column& c : *columns)
            if (mariadb::cdc::column_name(c) == *name) column = &c;
        if (!column)
            throw Error(ErrorKind::source_table, std::string("--") + role + " column \"" + *name +
                                                     "\" is not a column of " + where + " (columns: " + listed + ")");
        const std::string role_s = role;
        if (role_s == "ts" && !integer_type(*column))
            throw Error(ErrorKind::source_table, "--ts column \"" + *name + "\" of " + where + " is " +
                                                     column->type_name() + ", not an integer type (TINYINT .. BIGINT)");
        if (role_s == "value" && !number_type(*column))
            throw Error(ErrorKind::source_table, "--value column \"" + *name + "\" of " + where + " is " +
                                                     column->type_name() +
                                                     ", not a number type (integer, DECIMAL, FLOAT, DOUBLE)");
    }
    mariadb::ResultSet rs = conn.query("SELECT @@global.binlog_row_image");
    const mariadb::Row* r = rs.next();
    std::string image = r ? r->get<std::string>(0) : "";
    while (rs.next()) {
    }
    if (image != "FULL")
        throw Error(ErrorKind::source_image, "the source server logs binlog_row_image=" + image +
                                                 "; the pipeline needs FULL (every column of before and after images)");
}

}  // namespace sluice::pipeline
