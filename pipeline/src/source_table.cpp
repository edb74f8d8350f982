#include "source_table.hpp"

#include <map>
#include <set>
#include <string>

#include "sluice/mariadb/result_set.hpp"
#include "sluice/mariadb/statement.hpp"
#include "sluice/pipeline/error.hpp"

namespace sluice::pipeline {

void check_source_table(mariadb::Connection& conn, const Options& o) {
    const std::string where = o.db + "." + o.table;
    std::map<std::string, std::string> types;  // column -> DATA_TYPE
    std::string listed;
    {
        mariadb::Statement s = conn.prepare(
            "SELECT COLUMN_NAME, DATA_TYPE FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? "
            "ORDER BY ORDINAL_POSITION");
        mariadb::ResultSet rs = s.execute(std::string_view(o.db), std::string_view(o.table));
        while (const mariadb::Row* r = rs.next()) {
            std::string name = r->get<std::string>(0), type = r->get<std::string>(1);
            listed += (listed.empty() ? "" : ", ") + name;
            types[name] = type;
        }
    }
    if (types.empty())
        throw Error(ErrorKind::source_table,
                    "source table " + where + " does not exist (or the source user cannot see it)");
    static const std::set<std::string> integers = {"tinyint", "smallint", "mediumint", "int", "bigint"};
    static const std::set<std::string> numbers = {"tinyint", "smallint", "mediumint", "int", "bigint",
                                                  "decimal", "float",    "double"};
    const std::pair<const char*, const std::string*> roles[] = {
        {"id", &o.columns.id}, {"key", &o.columns.key}, {"ts", &o.columns.ts}, {"value", &o.columns.value}};
    for (const auto& [role, column] : roles) {
        auto it = types.find(*column);
        if (it == types.end())
            throw Error(ErrorKind::source_table, std::string("--") + role + " column \"" + *column +
                                                     "\" is not a column of " + where + " (columns: " + listed + ")");
        const std::string role_s = role;
        if (role_s == "ts" && !integers.count(it->second))
            throw Error(ErrorKind::source_table, "--ts column \"" + *column + "\" of " + where + " is " + it->second +
                                                     ", not an integer type (tinyint .. bigint)");
        if (role_s == "value" && !numbers.count(it->second))
            throw Error(ErrorKind::source_table, "--value column \"" + *column + "\" of " + where + " is " +
                                                     it->second + ", not a number type (integer, decimal, float, double)");
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
