// Grouping decoded events into transactions, on hand-built events (no
// server, no bytes): where the position moves and what is delivered.
#include <gtest/gtest.h>

#include "../../src/cdc/transaction_assembler.hpp"
#include "sluice/mariadb/error.hpp"

namespace sluice::mariadb::cdc::detail {
namespace {

using Outcome = TransactionAssembler::Outcome;

binlog::Event event(binlog::EventBody body, std::uint32_t ts = 100, std::uint32_t server = 1) {
    binlog::Event e;
    e.header.timestamp = ts;
    e.header.server_id = server;
    e.body = std::move(body);
    return e;
}

binlog::Event gtid(std::uint64_t seq, std::uint8_t flags = binlog::gtid_flag::transactional, std::uint32_t domain = 0) {
    binlog::Gtid g;
    g.domain_id = domain;
    g.seq_no = seq;
    g.flags = flags;
    return event(g);
}

binlog::Event query(std::string_view sql, std::string_view schema = "shop", std::uint32_t ts = 100) {
    binlog::Query q;
    q.sql = sql;
    q.schema = schema;
    return event(q, ts);
}

std::shared_ptr<const binlog::TableMap> table(std::string db, std::string name) {
    auto t = std::make_shared<binlog::TableMap>();
    t->db = std::move(db);
    t->table = std::move(name);
    return t;
}

const std::uint8_t row_bytes[] = {1, 2, 3};

binlog::Event rows(std::shared_ptr<const binlog::TableMap> t) {
    binlog::Rows r;
    r.table = std::move(t);
    r.rows = binlog::Bytes(row_bytes, sizeof row_bytes);
    return event(r);
}

binlog::Event xid(std::uint32_t ts = 101) { return event(binlog::Xid{7}, ts); }

TEST(Assembler, PositionMovesOnlyWhenTheGroupCompletes) {
    TransactionAssembler a(TableFilter{}, GtidState::parse("0-1-4"));
    EXPECT_EQ(a.feed(gtid(5)), Outcome::none);
    EXPECT_TRUE(a.in_group());
    EXPECT_EQ(a.position().to_string(), "0-1-4");  // not at the GTID event
    EXPECT_EQ(a.feed(query("BEGIN")), Outcome::none);
    EXPECT_EQ(a.feed(rows(table("shop", "orders"))), Outcome::none);
    EXPECT_EQ(a.feed(rows(table("shop", "items"))), Outcome::none);
    EXPECT_EQ(a.position().to_string(), "0-1-4");
    ASSERT_EQ(a.feed(xid(123)), Outcome::transaction);
    EXPECT_EQ(a.position().to_string(), "0-1-5");
    Transaction t = a.take_transaction();
    EXPECT_EQ(t.gtid, (GtidPosition{0, 1, 5}));
    EXPECT_EQ(t.timestamp, 123U);  // the commit's time
    EXPECT_EQ(t.rows_events(), 2U);
}

TEST(Assembler, ACutOffGroupIsDroppedAndReadAgain) {
    TransactionAssembler a(TableFilter{}, GtidState{});
    a.feed(gtid(1));
    a.feed(rows(table("shop", "orders")));
    a.drop_partial_group();  // the connection died here
    EXPECT_TRUE(a.position().empty());
    a.feed(gtid(1));
    a.feed(rows(table("shop", "orders")));
    ASSERT_EQ(a.feed(xid()), Outcome::transaction);
    EXPECT_EQ(a.take_transaction().rows_events(), 1U);  // once, not twice
}

TEST(Assembler, RollbackDeliversNothingButMovesThePosition) {
    TransactionAssembler a(TableFilter{}, GtidState{});
    a.feed(gtid(3, 0));
    a.feed(query("BEGIN"));
    a.feed(rows(table("shop", "myisam_log")));
    EXPECT_EQ(a.feed(query("ROLLBACK")), Outcome::skipped);
    EXPECT_EQ(a.position().to_string(), "0-1-3");
    // ROLLBACK TO SAVEPOINT does not end the group.
    a.feed(gtid(4));
    a.feed(query("SAVEPOINT s1"));
    a.feed(rows(table("shop", "orders")));
    EXPECT_EQ(a.feed(query("ROLLBACK TO SAVEPOINT s1")), Outcome::none);
    EXPECT_EQ(a.feed(query("COMMIT")), Outcome::transaction);
}

TEST(Assembler, FilteredTablesAreLeftOutAndEmptyGroupsSkipped) {
    TransactionAssembler a(TableFilter::parse("shop.orders"), GtidState{});
    a.feed(gtid(1));
    a.feed(rows(table("shop", "items")));
    EXPECT_EQ(a.feed(xid()), Outcome::skipped);
    EXPECT_EQ(a.position().to_string(), "0-1-1");  // still advanced
    a.feed(gtid(2));
    a.feed(rows(table("shop", "items")));
    a.feed(rows(table("shop", "orders")));
    ASSERT_EQ(a.feed(xid()), Outcome::transaction);
    EXPECT_EQ(a.take_transaction().rows_events(), 1U);
}

TEST(Assembler, DdlIsItsOwnEventForSelectedDatabases) {
    TransactionAssembler a(TableFilter::parse("shop.*"), GtidState{});
    a.feed(gtid(1, binlog::gtid_flag::standalone | binlog::gtid_flag::ddl));
    ASSERT_EQ(a.feed(query("ALTER TABLE orders ADD c INT", "shop", 77)), Outcome::ddl);
    Ddl d = a.take_ddl();
    EXPECT_EQ(d.sql, "ALTER TABLE orders ADD c INT");
    EXPECT_EQ(d.db, "shop");
    EXPECT_EQ(d.timestamp, 77U);
    EXPECT_EQ(a.position().to_string(), "0-1-1");
    a.feed(gtid(2, binlog::gtid_flag::standalone | binlog::gtid_flag::ddl));
    EXPECT_EQ(a.feed(query("CREATE TABLE x (a INT)", "other")), Outcome::skipped);
    EXPECT_EQ(a.position().to_string(), "0-1-2");
}

TEST(Assembler, DomainsAdvanceIndependently) {
    TransactionAssembler a(TableFilter{}, GtidState::parse("0-1-10"));
    a.feed(gtid(3, binlog::gtid_flag::transactional, 2));
    a.feed(rows(table("d", "t")));
    a.feed(xid());
    EXPECT_EQ(a.position().to_string(), "0-1-10,2-1-3");
}

TEST(Assembler, XaRowsWaitForXaCommitAndVanishOnXaRollback) {
    TransactionAssembler a(TableFilter{}, GtidState{});
    auto xa_gtid = [](std::uint64_t seq, std::uint8_t flag, const char* gtrid) {
        binlog::Gtid g;
        g.seq_no = seq;
        g.flags = flag;
        g.xa_xid = binlog::XaXid{1, gtrid, ""};
        return event(g);
    };
    a.feed(xa_gtid(1, binlog::gtid_flag::prepared_xa, "x1"));
    a.feed(query("XA START 'x1'"));
    a.feed(rows(table("d", "t")));
    a.feed(query("XA END 'x1'"));
    binlog::XaPrepare p;
    p.xid = binlog::XaXid{1, "x1", ""};
    EXPECT_EQ(a.feed(event(p)), Outcome::skipped);
    EXPECT_EQ(a.position().to_string(), "0-1-1");
    a.feed(xa_gtid(2, binlog::gtid_flag::completed_xa, "x1"));
    ASSERT_EQ(a.feed(query("XA COMMIT 'x1'")), Outcome::transaction);
    Transaction t = a.take_transaction();
    EXPECT_EQ(t.gtid.seq_no, 2U);
    EXPECT_EQ(t.rows_events(), 1U);

    a.feed(xa_gtid(3, binlog::gtid_flag::prepared_xa, "x2"));
    a.feed(rows(table("d", "t")));
    a.feed(event(binlog::XaPrepare{false, binlog::XaXid{1, "x2", ""}}));
    a.feed(xa_gtid(4, binlog::gtid_flag::completed_xa, "x2"));
    EXPECT_EQ(a.feed(query("XA ROLLBACK 'x2'")), Outcome::skipped);
    EXPECT_EQ(a.position().to_string(), "0-1-4");
}

TEST(Assembler, AnIncidentStopsTheStreamWithItsMessage) {
    TransactionAssembler a(TableFilter{}, GtidState{});
    binlog::Incident i;
    i.code = 1;
    i.message = "error writing to the binary log";
    try {
        a.feed(event(i));
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("error writing to the binary log"), std::string::npos);
    }
}

}  // namespace
}  // namespace sluice::mariadb::cdc::detail
