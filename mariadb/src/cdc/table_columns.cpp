#include "sluice/mariadb/cdc/table_columns.hpp"

#include <string>

#include "sluice/mariadb/error.hpp"
#include "sluice/mariadb/result_set.hpp"
#include "snapshot_reader.hpp"

namespace sluice::mariadb::cdc {

std::optional<std::vector<Column>> table_columns(Connection& conn, std::string_view db, std::string_view table) {
    try {
        ResultSet rs = conn.query("SELECT * FROM " + detail::quote_identifier(db) + "." +
                                  detail::quote_identifier(table) + " LIMIT 0");
        std::vector<Column> columns(rs.columns().begin(), rs.columns().end());
        while (rs.next()) {
        }
        return columns;
    } catch (const Error& e) {
        if (e.kind() == ErrorKind::server && (e.server_code() == 1146 || e.server_code() == 1049)) return std::nullopt;
        throw;
    }
}

}  // namespace sluice::mariadb::cdc
