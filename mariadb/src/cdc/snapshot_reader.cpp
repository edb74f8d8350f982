#include "snapshot_reader.hpp"

#include <algorithm>
#include <utility>

namespace sluice::mariadb::cdc::detail {

std::string quote_identifier(std::string_view name) {
    std::string out = "`";
    for (char c : name) {
        if (c == '`') out += '`';
        out += c;
    }
    return out + "`";
}

std::string quote_literal(std::string_view text) {
    std::string out = "'";
    for (char c : text) {
        if (c == '\'' || c == '\\') out += c;
        out += c;
    }
    return out + "'";
}

namespace {
bool is_system_database(std::string_view db) {
    return db == "mysql" || db == "information_schema" || db == "performance_schema" || db == "sys";
}
}  // namespace

std::vector<std::string> primary_key_of(Connection& connection, std::string_view db, std::string_view table) {
    std::vector<std::pair<std::int64_t, std::string>> parts;  // (Seq_in_index, Column_name)
    ResultSet rs = connection.query("SHOW KEYS FROM " + quote_identifier(db) + "." + quote_identifier(table) +
                                    " WHERE Key_name = 'PRIMARY'");
    while (const Row* r = rs.next())
        parts.emplace_back(r->get<std::int64_t>("Seq_in_index"), r->get<std::string>("Column_name"));
    std::sort(parts.begin(), parts.end());
    std::vector<std::string> columns;
    for (auto& p : parts) columns.push_back(std::move(p.second));
    return columns;
}

SnapshotReader::SnapshotReader(Connection connection, const TableFilter& filter, std::size_t chunk_rows)
    : connection_(std::move(connection)), chunk_rows_(chunk_rows == 0 ? 1000 : chunk_rows) {
    // TIMESTAMP values in UTC, as the binlog carries them (the connection's
    // own time zone would shift snapshot rows against the changes after them).
    connection_.execute("SET time_zone = '+00:00'");
    connection_.execute("SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ");
    connection_.execute("START TRANSACTION WITH CONSISTENT SNAPSHOT");
    std::string file;
    std::string offset;
    {
        ResultSet rs = connection_.query("SHOW STATUS LIKE 'binlog_snapshot_%'");
        while (const Row* r = rs.next()) {
            std::string name = r->get<std::string>(0);
            if (name == "Binlog_snapshot_file") file = r->get<std::string>(1);
            else if (name == "Binlog_snapshot_position") offset = r->get<std::string>(1);
        }
    }
    if (file.empty() || offset.empty()) {
        throw Error(ErrorKind::usage, "consistent snapshot: the server reports no binlog_snapshot_file/position "
                                      "(is log_bin on?)");
    }
    {
        ResultSet rs = connection_.query("SELECT BINLOG_GTID_POS(" + quote_literal(file) + ", " + offset + ")");
        const Row* r = rs.next();
        auto text = r ? r->get<std::optional<std::string>>(0) : std::nullopt;
        if (!text) {
            throw Error(ErrorKind::usage, "consistent snapshot: BINLOG_GTID_POS('" + file + "', " + offset +
                                              ") is NULL (the position is not in the server's binlogs)");
        }
        position_ = GtidState::parse(*text);
        while (rs.next()) {
        }
    }
    // The tables and their primary keys through SHOW, not information_schema
    // (MariaDB 10.11.19 crashed on information_schema queries run right
    // after DDL in our CI: see table_columns.hpp).
    std::vector<std::string> databases;
    {
        ResultSet rs = connection_.query("SHOW DATABASES");
        while (const Row* r = rs.next()) {
            std::string db = r->get<std::string>(0);
            if (is_system_database(db) || (!filter.empty() && !filter.selects_database(db))) continue;
            databases.push_back(std::move(db));
        }
    }
    std::sort(databases.begin(), databases.end());
    for (const std::string& db : databases) {
        std::vector<std::string> names;
        ResultSet rs = connection_.query("SHOW FULL TABLES FROM " + quote_identifier(db) +
                                         " WHERE Table_type = 'BASE TABLE'");
        while (const Row* r = rs.next()) {
            std::string name = r->get<std::string>(0);
            if (filter.selects(db, name)) names.push_back(std::move(name));
        }
        std::sort(names.begin(), names.end());
        for (std::string& name : names) tables_.push_back(Table{db, std::move(name), {}});
    }
    for (Table& t : tables_) t.primary_key = primary_key_of(connection_, t.db, t.name);
}

SnapshotReader::~SnapshotReader() = default;

void SnapshotReader::open_table() {
    rows_.reset();
    statement_.reset();
    current_ = &tables_[next_table_++];
    std::string sql = "SELECT * FROM " + quote_identifier(current_->db) + "." + quote_identifier(current_->name);
    for (std::size_t i = 0; i < current_->primary_key.size(); ++i) {
        sql += i == 0 ? " ORDER BY " : ", ";
        sql += quote_identifier(current_->primary_key[i]);
    }
    statement_.emplace(connection_.prepare(sql));
    rows_.emplace(statement_->execute());
    columns_ = std::make_shared<const std::vector<Column>>(rows_->columns());
}

bool SnapshotReader::next(SnapshotChunk& chunk) {
    for (;;) {
        if (!rows_) {
            if (next_table_ == tables_.size()) {
                statement_.reset();
                connection_.execute("COMMIT");
                return false;
            }
            open_table();
        }
        chunk = SnapshotChunk{};
        chunk.at = position_;
        chunk.db = current_->db;
        chunk.table = current_->name;
        chunk.columns = columns_;
        while (chunk.size() < chunk_rows_) {
            const Row* r = rows_->next();
            if (!r) {
                rows_.reset();
                break;
            }
            chunk.add_row(*r);
        }
        if (chunk.size() > 0) return true;
    }
}

}  // namespace sluice::mariadb::cdc::detail
