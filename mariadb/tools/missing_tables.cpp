#include "missing_tables.hpp"

#include "sluice/mariadb/cdc/table_columns.hpp"
#include "sluice/mariadb/connection.hpp"
#include "sluice/mariadb/statement.hpp"

namespace sluice::mariadb::tools {

std::vector<std::string> missing_tables(const ConnectOptions& options, const cdc::TableFilter& filter) {
    std::vector<std::string> out;
    if (filter.empty()) return out;
    Connection conn = Connection::connect(options);
    for (const cdc::TableFilter::Entry& e : filter.entries()) {
        if (e.db == "*") continue;
        const std::string entry = e.db + "." + e.table;
        if (e.table == "*") {
            Statement s = conn.prepare("SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?");
            ResultSet rs = s.execute(e.db);
            const Row* row = rs.next();
            const bool exists = row != nullptr && row->get<std::int64_t>(0) > 0;
            while (rs.next()) {
            }
            if (!exists)
                out.push_back("--tables " + entry + ": database '" + e.db +
                              "' does not exist (yet); its tables' changes are delivered once it is created");
        } else if (!cdc::table_columns(conn, e.db, e.table)) {
            out.push_back("--tables " + entry + ": no such table (yet); its changes are delivered once it is created");
        }
    }
    return out;
}

}  // namespace sluice::mariadb::tools
