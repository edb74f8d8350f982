#pragma once
// Which tables a change stream selects: "DB.TABLE,DB.*,*.TABLE" patterns,
// where '*' as a whole part matches any name. Names compare exactly
// (case-sensitive, as MariaDB on Linux stores them). An empty filter
// selects every table.
#include <string>
#include <string_view>
#include <vector>

namespace sluice::mariadb::cdc {

class TableFilter {
public:
    TableFilter() = default;
    // Error{usage} naming the entry unless each is DB.TABLE with non-empty
    // parts (backquotes are not needed and not accepted).
    static TableFilter parse(std::string_view list);

    bool empty() const noexcept { return entries_.empty(); }
    bool selects(std::string_view db, std::string_view table) const noexcept;
    // Whether some table of `db` may be selected.
    bool selects_database(std::string_view db) const noexcept;
    // Whether a DDL statement may touch a selected table. A statement about
    // tables that can be told (CREATE/ALTER/DROP/RENAME/TRUNCATE TABLE,
    // CREATE/DROP INDEX ... ON; src/cdc/ddl_tables.hpp) passes when one of
    // them is selected (unqualified names are in `default_db`), and only
    // then. Any other statement cannot be told apart by table: it passes
    // when its default database is selected, or its text names a selected
    // database as a qualifier ("shop." or "`shop`.").
    bool selects_ddl(std::string_view default_db, std::string_view sql) const;
    // The patterns naming no '*' (the snapshot reads those) and the
    // databases whose tables a '*' selects.
    struct Entry {
        std::string db;
        std::string table;
    };
    const std::vector<Entry>& entries() const noexcept { return entries_; }

private:
    std::vector<Entry> entries_;
};

}  // namespace sluice::mariadb::cdc
