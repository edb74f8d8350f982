// End to end against the private MariaDB 10.11: write every column type
// (fixtures/every_type.sql on a table of its own), read the binlog files
// the server wrote under $SLUICE_MARIADB_BINLOG_DIR up to the position SHOW
// MASTER STATUS gives after the writes (complete events only, and no FLUSH
// that would rotate the binlog under tests running beside this one),
// decode them and compare each decoded value with what SELECT returns.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "../client/server_env.hpp"
#include "fixture.hpp"
#include "sluice/mariadb/mariadb.hpp"

namespace sluice::mariadb::binlog {
namespace {

constexpr std::string_view table_name = "binlog_file_e2e";

std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// SHOW MASTER STATUS: the current binlog file and the end of its last event.
std::pair<std::string, std::uint64_t> master_status(Connection& c) {
    auto rs = c.query("SHOW MASTER STATUS");
    const Row* r = rs.next();
    if (!r) throw std::runtime_error("SHOW MASTER STATUS returned no row (binlog off?)");
    std::pair<std::string, std::uint64_t> out{(*r)[0].to_string(), r->get<std::uint64_t>(1)};
    rs.discard();
    return out;
}

bool is_bytes_column(const Column& c) {
    return c.is_binary() && c.type != ColumnType::bit && !c.is_enum() && !c.is_set() &&
           (c.type == ColumnType::string || c.type == ColumnType::var_string || c.type == ColumnType::varchar ||
            c.type == ColumnType::blob || c.type == ColumnType::tiny_blob || c.type == ColumnType::medium_blob ||
            c.type == ColumnType::long_blob || c.type == ColumnType::geometry);
}

TEST(BinlogFileServer, EveryTypeDecodedFromTheServersBinlogMatchesSelect) {
    Connection c = Connection::connect(mariadb::test::admin_options());
    c.execute("SET time_zone = '+00:00'");
    c.execute("DROP TABLE IF EXISTS sluice." + std::string(table_name));
    auto [first_file, first_end] = master_status(c);  // events after this are ours
    std::string sql = read_text(std::string(SLUICE_BINLOG_FIXTURES) + "/every_type.sql");
    for (std::size_t at = sql.find("sluice.every_type"); at != std::string::npos; at = sql.find("sluice.every_type"))
        sql.replace(at, 17, "sluice." + std::string(table_name));
    c.execute(sql);
    auto [last_file, last_end] = master_status(c);

    // The schema hints, as a CDC session learns them.
    TableSchema schema;
    {
        auto rs = c.query("SELECT COLUMN_NAME, DATA_TYPE, IFNULL(DATETIME_PRECISION, -1) FROM information_schema.COLUMNS "
                          "WHERE TABLE_SCHEMA = 'sluice' AND TABLE_NAME = '" + std::string(table_name) +
                          "' ORDER BY ORDINAL_POSITION");
        for (const Row& r : rs)
            schema.columns.push_back({r.get<std::string>(0), r.get<std::string>(1), r.get<int>(2)});
    }
    std::vector<Column> select_columns;
    std::map<std::string, std::vector<std::optional<std::string>>> selected;  // id -> column texts
    {
        auto rs = c.query("SELECT * FROM sluice." + std::string(table_name) + " ORDER BY id");
        select_columns = rs.columns();
        for (const Row& r : rs) {
            auto& row = selected[r[0].to_string()];
            for (std::size_t i = 0; i < r.size(); ++i) {
                if (r[i].is_null()) row.emplace_back(std::nullopt);
                else row.emplace_back(std::string(protocol::as_text(r[i].raw())));
            }
        }
    }
    ASSERT_EQ(schema.columns.size(), select_columns.size());
    for (std::size_t i = 0; i < select_columns.size(); ++i)
        if (select_columns[i].is_json()) schema.columns[i].data_type = "json";

    // Every binlog file from the first one written to the last (other
    // tests may rotate the binlog meanwhile).
    std::vector<std::string> files;
    {
        auto rs = c.query("SHOW BINARY LOGS");
        bool on = false;
        for (const Row& r : rs) {
            std::string f = r[0].to_string();
            if (f == first_file) on = true;
            if (on) files.push_back(f);
            if (f == last_file) on = false;
        }
    }
    ASSERT_FALSE(files.empty());
    ASSERT_EQ(files.back(), last_file);

    std::string dir = mariadb::test::env().require("SLUICE_MARIADB_BINLOG_DIR");
    Decoder dec;
    dec.set_schema("sluice", table_name, schema);
    std::map<std::string, std::vector<std::string>> decoded;  // id -> texts of the last after image
    std::size_t changes = 0;
    std::vector<std::vector<std::uint8_t>> contents;
    for (const std::string& f : files) {
        std::string bytes = read_text(dir + "/" + f);
        // The file still being written: only up to the end of the events
        // SHOW MASTER STATUS counted (later ones may be half written).
        if (f == last_file) {
            ASSERT_GE(bytes.size(), last_end);
            bytes.resize(static_cast<std::size_t>(last_end));
        }
        contents.emplace_back(bytes.begin(), bytes.end());
        dec.set_position(f, 4);
        EventSplitter split(contents.back());
        for (auto ev_bytes = split.next(); !ev_bytes.empty(); ev_bytes = split.next()) {
            Event ev = dec.decode(ev_bytes);  // all of them: the FORMAT_DESCRIPTION, the maps
            auto* rows = std::get_if<Rows>(&ev.body);
            if (!rows || rows->table->table != table_name) continue;
            if (f == first_file && ev.header.next_position <= first_end) continue;  // an earlier run's
            RowReader reader(*rows);
            RowChange ch;
            while (reader.next(ch)) {
                ++changes;
                if (!ch.before.empty()) decoded.erase(to_text(ch.before[0].value, rows->table->columns[0]));
                if (ch.after.empty()) continue;
                std::vector<std::string> texts;
                for (std::size_t i = 0; i < ch.after.size(); ++i) {
                    const Cell& cell = ch.after[i];
                    EXPECT_TRUE(cell.present);
                    texts.push_back(cell.null ? "\x01NULL" : to_text(cell.value, rows->table->columns[i]));
                }
                decoded[texts[0]] = std::move(texts);
            }
        }
    }
    EXPECT_EQ(changes, 7u);  // 4 inserted rows, 2 updates, 1 delete
    ASSERT_EQ(decoded.size(), selected.size());
    for (auto& [id, want] : selected) {
        ASSERT_TRUE(decoded.count(id)) << "row " << id;
        const auto& got = decoded[id];
        ASSERT_EQ(got.size(), want.size());
        for (std::size_t i = 0; i < want.size(); ++i) {
            const Column& col = select_columns[i];
            SCOPED_TRACE("row " + id + " column " + col.name);
            if (!want[i]) {
                EXPECT_EQ(got[i], "\x01NULL");
                continue;
            }
            if (col.type == ColumnType::float_) {
                // The server prints FLOAT with 6 significant digits
                // (-3.40282e38 for -3.4028235e38): compare at that precision.
                char six[32];
                std::snprintf(six, sizeof six, "%.6g", double{std::strtof(got[i].c_str(), nullptr)});
                EXPECT_EQ(std::strtod(six, nullptr), std::strtod(want[i]->c_str(), nullptr)) << got[i];
            } else if (col.type == ColumnType::double_) {
                EXPECT_EQ(std::strtod(got[i].c_str(), nullptr), std::strtod(want[i]->c_str(), nullptr));
            } else if (col.type == ColumnType::bit) {
                // SELECT sends BIT as its bytes; the decoder's text is the number.
                std::uint64_t v = 0;
                for (char ch : *want[i]) v = (v << 8) | static_cast<unsigned char>(ch);
                EXPECT_EQ(got[i], std::to_string(v));
            } else {
                EXPECT_EQ(got[i], *want[i]) << (is_bytes_column(col) ? "(bytes)" : "");
            }
        }
    }
    c.execute("DROP TABLE sluice." + std::string(table_name));
}

}  // namespace
}  // namespace sluice::mariadb::binlog
