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
    // Whether a DDL statement may touch a selected table: its default
    // database is selected, or its text names a selected database as a
    // qualifier ("shop." or "`shop`."). The statement is not parsed, so a
    // DDL of another table of a selected database is shown too.
    bool selects_ddl(std::string_view default_db, std::string_view sql) const noexcept;
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
