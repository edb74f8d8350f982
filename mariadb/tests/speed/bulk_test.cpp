// Native bulk (COM_STMT_BULK_EXECUTE) against MariaDB 10.11: row-wise and
// column-wise, indicators, packet splitting, type changes, the sequential
// fallback, and errors that leave the connection usable.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "server_env.hpp"
#include "sluice/mariadb/bulk.hpp"
#include "sluice/mariadb/mariadb.hpp"

namespace sluice::mariadb {
namespace {

using bulk::Indicator;

class Bulk : public ::testing::Test {
protected:
    void SetUp() override {
        conn.emplace(Connection::connect(test::admin_options()));
        conn->execute("DROP TABLE IF EXISTS speed_bulk");
        conn->execute(
            "CREATE TABLE speed_bulk (id INT AUTO_INCREMENT PRIMARY KEY, n BIGINT, s VARCHAR(2000), d DOUBLE, "
            "note VARCHAR(20) DEFAULT 'dflt')");
    }
    void TearDown() override {
        if (conn && !conn->broken()) conn->execute("DROP TABLE IF EXISTS speed_bulk");
    }
    std::string scalar(const std::string& sql) {
        ResultSet rs = conn->query(sql);
        const Row* r = rs.next();
        std::string v = r && !(*r)[0].is_null() ? r->get<std::string>(0) : "NULL";
        rs.discard();
        return v;
    }
    std::optional<Connection> conn;
};

TEST_F(Bulk, ServerOffersBulkOperations) {
    EXPECT_TRUE(conn->capabilities() & protocol::cap::mariadb_stmt_bulk_operations);
}

TEST_F(Bulk, RowWiseTuplesArriveWithCountsChecksumsAndFirstId) {
    std::vector<std::tuple<std::int64_t, std::string, double, std::optional<std::string>>> rows;
    for (int i = 0; i < 10000; ++i) {
        rows.emplace_back(i * 3 - 7, "row " + std::to_string(i), i / 4.0,
                          i % 5 == 0 ? std::nullopt : std::optional<std::string>("n" + std::to_string(i % 7)));
    }
    Statement ins = conn->prepare("INSERT INTO speed_bulk (n, s, d, note) VALUES (?, ?, ?, ?)");
    BulkResult r = execute_bulk(ins, rows);
    EXPECT_TRUE(r.native);
    EXPECT_EQ(r.rows, 10000u);
    EXPECT_EQ(r.affected_rows, 10000u);
    EXPECT_EQ(r.first_insert_id, 1u);
    EXPECT_EQ(r.commands, 1u);
    std::int64_t sum_n = 0;
    std::size_t sum_len = 0;
    for (const auto& [n, s, d, note] : rows) {
        sum_n += n;
        sum_len += s.size();
    }
    EXPECT_EQ(scalar("SELECT COUNT(*) FROM speed_bulk"), "10000");
    EXPECT_EQ(scalar("SELECT SUM(n) FROM speed_bulk"), std::to_string(sum_n));
    EXPECT_EQ(scalar("SELECT SUM(LENGTH(s)) FROM speed_bulk"), std::to_string(sum_len));
    EXPECT_EQ(scalar("SELECT SUM(d) FROM speed_bulk"), std::to_string(9999 * 10000 / 8));
    EXPECT_EQ(scalar("SELECT COUNT(*) FROM speed_bulk WHERE note IS NULL"), "2000");
    EXPECT_EQ(scalar("SELECT s FROM speed_bulk WHERE id = 4242"), "row 4241");
}

TEST_F(Bulk, IndicatorsNullDefaultIgnoreOnInsertAndUpdate) {
    using Note = bulk::Cell<std::string>;
    std::vector<std::tuple<std::int64_t, Note>> rows{
        {1, bulk::cell(std::string("value"))},
        {2, Note{std::nullopt, Indicator::null}},
        {3, Note{std::nullopt, Indicator::default_}},
        {4, Note{std::nullopt, Indicator::ignore}},
        {5, Note{}},  // no value and no indicator: NULL
    };
    Statement ins = conn->prepare("INSERT INTO speed_bulk (n, note) VALUES (?, ?)");
    EXPECT_EQ(execute_bulk(ins, rows).affected_rows, 5u);
    EXPECT_EQ(scalar("SELECT GROUP_CONCAT(IFNULL(note, 'NULL') ORDER BY n) FROM speed_bulk"),
              "value,NULL,dflt,dflt,NULL");

    // UPDATE: IGNORE leaves the column alone, DEFAULT sets the default.
    std::vector<std::tuple<Indicator, std::int64_t>> marks{{Indicator::ignore, 1}, {Indicator::default_, 2}};
    Statement upd = conn->prepare("UPDATE speed_bulk SET note = ? WHERE n = ?");
    BulkResult u = execute_bulk(upd, marks);
    EXPECT_EQ(u.affected_rows, 1u);  // only row 2 changed
    EXPECT_EQ(scalar("SELECT GROUP_CONCAT(IFNULL(note, 'NULL') ORDER BY n) FROM speed_bulk"),
              "value,dflt,dflt,dflt,NULL");
}

TEST_F(Bulk, ColumnWiseSpansWithIndicatorColumn) {
    std::vector<std::int64_t> ns;
    std::vector<std::string> ss;
    std::vector<std::string> notes;
    std::vector<Indicator> note_ind;
    for (int i = 0; i < 3000; ++i) {
        ns.push_back(i);
        ss.push_back(std::string(static_cast<std::size_t>(i % 50), 'x'));
        notes.push_back("k" + std::to_string(i % 3));
        note_ind.push_back(i % 3 == 0 ? Indicator::default_ : i % 3 == 1 ? Indicator::null : Indicator::none);
    }
    Statement ins = conn->prepare("INSERT INTO speed_bulk (n, s, note) VALUES (?, ?, ?)");
    BulkResult r = execute_bulk_columns(ins, bulk::column(ns), bulk::column(ss),
                                        bulk::column(notes, std::span<const Indicator>(note_ind)));
    EXPECT_EQ(r.affected_rows, 3000u);
    EXPECT_EQ(scalar("SELECT SUM(n) FROM speed_bulk"), std::to_string(2999 * 3000 / 2));
    EXPECT_EQ(scalar("SELECT COUNT(*) FROM speed_bulk WHERE note = 'dflt'"), "1000");
    EXPECT_EQ(scalar("SELECT COUNT(*) FROM speed_bulk WHERE note IS NULL"), "1000");
    EXPECT_EQ(scalar("SELECT COUNT(*) FROM speed_bulk WHERE note = 'k2'"), "1000");

    std::vector<std::int64_t> short_column{1};
    EXPECT_EQ(test::kind_of([&] {
                  execute_bulk_columns(ins, bulk::column(short_column), bulk::column(ss), bulk::column(notes));
              }),
              ErrorKind::usage);
}

TEST_F(Bulk, SplitsIntoPacketsUnderTheLimit) {
    std::vector<std::tuple<int, std::string>> rows;
    for (int i = 0; i < 2000; ++i) rows.emplace_back(i, std::string(100, static_cast<char>('a' + i % 26)));
    Statement ins = conn->prepare("INSERT INTO speed_bulk (n, s) VALUES (?, ?)");
    BulkOptions small;
    small.max_packet_bytes = 4096;
    BulkResult r = execute_bulk(ins, rows, small);
    EXPECT_EQ(r.affected_rows, 2000u);
    EXPECT_GE(r.commands, 2000u * 110u / 4096u);
    EXPECT_EQ(scalar("SELECT COUNT(DISTINCT n) FROM speed_bulk"), "2000");

    // The default limit (max_allowed_packet, capped at 16 MiB): 24 MB of rows.
    rows.clear();
    for (int i = 0; i < 12000; ++i) rows.emplace_back(i, std::string(2000, 'z'));
    BulkResult big = execute_bulk(ins, rows);
    EXPECT_EQ(big.affected_rows, 12000u);
    EXPECT_EQ(big.commands, 2u);
    EXPECT_EQ(scalar("SELECT SUM(LENGTH(s)) FROM speed_bulk WHERE LENGTH(s) = 2000"), "24000000");
}

TEST_F(Bulk, ATypeChangeInAColumnStartsANewPacket) {
    // Through the type-erased core: parameter 1 alternates text and integer.
    BulkRows rows;
    rows.count = 6;
    rows.fill = [](const void*, std::size_t i, std::span<protocol::BulkParam> out) {
        out[0] = bulk::param(static_cast<std::int64_t>(i));
        out[1] = i < 3 ? bulk::param(std::string_view("text")) : bulk::param(static_cast<std::int64_t>(i * 100));
    };
    Statement ins = conn->prepare("INSERT INTO speed_bulk (n, s) VALUES (?, ?)");
    BulkResult r = execute_bulk(ins, rows);
    EXPECT_EQ(r.affected_rows, 6u);
    EXPECT_EQ(r.commands, 2u);
    EXPECT_EQ(scalar("SELECT GROUP_CONCAT(s ORDER BY n) FROM speed_bulk"), "text,text,text,300,400,500");
}

TEST_F(Bulk, SequentialFallbackGivesTheSameRowsAndRefusesIndicatorsItCannotSend) {
    std::vector<std::tuple<int, std::optional<std::string>>> rows{{1, "a"}, {2, std::nullopt}, {3, "c"}};
    Statement ins = conn->prepare("INSERT INTO speed_bulk (n, note) VALUES (?, ?)");
    BulkOptions seq;
    seq.mode = BulkOptions::Mode::sequential;
    BulkResult r = execute_bulk(ins, rows, seq);
    EXPECT_FALSE(r.native);
    EXPECT_EQ(r.commands, 3u);
    EXPECT_EQ(r.affected_rows, 3u);
    EXPECT_EQ(r.first_insert_id, 1u);
    EXPECT_EQ(scalar("SELECT GROUP_CONCAT(IFNULL(note, 'NULL') ORDER BY n) FROM speed_bulk"), "a,NULL,c");

    std::vector<std::tuple<int, Indicator>> with_default{{4, Indicator::default_}};
    EXPECT_EQ(test::kind_of([&] { execute_bulk(ins, with_default, seq); }), ErrorKind::usage);
    EXPECT_EQ(scalar("SELECT COUNT(*) FROM speed_bulk"), "3");
}

TEST_F(Bulk, ErrorsLeaveTheConnectionUsable) {
    Statement ins = conn->prepare("INSERT INTO speed_bulk (id, n) VALUES (?, ?)");
    std::vector<std::tuple<int, int>> dup{{1, 1}, {2, 2}, {1, 3}};
    try {
        execute_bulk(ins, dup);
        FAIL() << "duplicate key accepted";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::server);
        EXPECT_EQ(e.server_code(), 1062);
    }
    BulkOptions tiny;
    tiny.max_packet_bytes = 64;
    Statement ins_s = conn->prepare("INSERT INTO speed_bulk (n, s) VALUES (?, ?)");
    std::vector<std::tuple<int, std::string>> huge{{9, std::string(200, 'h')}};
    EXPECT_EQ(test::kind_of([&] { execute_bulk(ins_s, huge, tiny); }), ErrorKind::usage);
    EXPECT_FALSE(conn->broken());
    std::vector<std::tuple<int, std::string>> ok{{10, "fine"}};
    EXPECT_EQ(execute_bulk(ins_s, ok).affected_rows, 1u);
}

}  // namespace
}  // namespace sluice::mariadb
