#include "sluice/mariadb/cdc/table_filter.hpp"

#include <cctype>

#include "ddl_tables.hpp"
#include "sluice/mariadb/error.hpp"

namespace sluice::mariadb::cdc {

namespace {
bool matches(std::string_view pattern, std::string_view name) { return pattern == "*" || pattern == name; }
}  // namespace

TableFilter TableFilter::parse(std::string_view list) {
    TableFilter f;
    std::size_t start = 0;
    while (start <= list.size()) {
        std::size_t comma = list.find(',', start);
        std::string_view item = list.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
        while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
        while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
        std::size_t dot = item.find('.');
        if (dot == std::string_view::npos || dot == 0 || dot + 1 == item.size() ||
            item.find('.', dot + 1) != std::string_view::npos || item.find('`') != std::string_view::npos) {
            throw Error(ErrorKind::usage, "invalid table pattern '" + std::string(item) +
                                              "' in --tables: expected DB.TABLE or DB.* (comma-separated)");
        }
        f.entries_.push_back({std::string(item.substr(0, dot)), std::string(item.substr(dot + 1))});
        if (comma == std::string_view::npos) break;
        start = comma + 1;
    }
    return f;
}

bool TableFilter::selects(std::string_view db, std::string_view table) const noexcept {
    if (entries_.empty()) return true;
    for (const Entry& e : entries_)
        if (matches(e.db, db) && matches(e.table, table)) return true;
    return false;
}

bool TableFilter::selects_database(std::string_view db) const noexcept {
    if (entries_.empty()) return true;
    for (const Entry& e : entries_)
        if (matches(e.db, db)) return true;
    return false;
}

bool TableFilter::selects_ddl(std::string_view default_db, std::string_view sql) const {
    if (entries_.empty()) return true;
    // A statement whose tables can be told passes when one of them is
    // selected, and only then (issue 32: a filter on sluice.nosuch passed
    // every DDL of database sluice).
    if (const auto tables = detail::ddl_tables(sql)) {
        for (const detail::DdlTable& t : *tables)
            if (selects(t.db.empty() ? default_db : std::string_view(t.db), t.table)) return true;
        return false;
    }
    // Otherwise (CREATE DATABASE, views, routines, GRANT, ...) by database.
    if (selects_database(default_db)) return true;
    for (const Entry& e : entries_) {
        if (e.db == "*") return true;
        for (std::size_t at = sql.find(e.db); at != std::string_view::npos; at = sql.find(e.db, at + 1)) {
            std::size_t end = at + e.db.size();
            bool quoted = at > 0 && sql[at - 1] == '`' && end < sql.size() && sql[end] == '`';
            if (quoted) ++end;
            bool starts_word = at == 0 || quoted || !(std::isalnum(static_cast<unsigned char>(sql[at - 1])) || sql[at - 1] == '_');
            if (starts_word && end < sql.size() && sql[end] == '.') return true;
        }
    }
    return false;
}

}  // namespace sluice::mariadb::cdc
