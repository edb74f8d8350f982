// Transactions handed out in parts (TransactionAssembler with part_bytes),
// on hand-built events: where parts split, where the position moves, and
// how a group cut off after some parts resumes at the next part.
#include <gtest/gtest.h>

#include "../../src/cdc/transaction_assembler.hpp"
#include "sluice/mariadb/error.hpp"

namespace sluice::mariadb::cdc::detail {
namespace {

using Outcome = TransactionAssembler::Outcome;

binlog::Event event(binlog::EventBody body, std::uint32_t ts = 100) {
    binlog::Event e;
    e.header.timestamp = ts;
    e.header.server_id = 1;
    e.body = std::move(body);
    return e;
}

binlog::Event gtid(std::uint64_t seq, std::uint32_t ts = 100, std::uint8_t flags = binlog::gtid_flag::transactional) {
    binlog::Gtid g;
    g.seq_no = seq;
    g.flags = flags;
    return event(g, ts);
}

std::shared_ptr<const binlog::TableMap> table(std::string name) {
    auto t = std::make_shared<binlog::TableMap>();
    t->db = "shop";
    t->table = std::move(name);
    return t;
}

// Each Rows event holds 4 bytes of row images.
std::uint8_t row_bytes[16][4];

binlog::Event rows(std::uint8_t tag, std::shared_ptr<const binlog::TableMap> t = table("orders")) {
    row_bytes[tag][0] = tag;
    binlog::Rows r;
    r.table = std::move(t);
    r.rows = binlog::Bytes(row_bytes[tag], 4);
    return event(r);
}

binlog::Event xid(std::uint32_t ts = 101) { return event(binlog::Xid{7}, ts); }

binlog::Event query(std::string_view sql) {
    binlog::Query q;
    q.sql = sql;
    q.schema = "shop";
    return event(q);
}

TEST(AssemblerParts, ATransactionOverTheBoundComesInPartsAndThePositionMovesAtTheLast) {
    TransactionAssembler a(TableFilter{}, GtidState::parse("0-1-4"), 8);  // two Rows events a part
    a.feed(gtid(5, 90));
    EXPECT_EQ(a.feed(rows(1)), Outcome::none);
    ASSERT_EQ(a.feed(rows(2)), Outcome::part);
    TransactionPart p1 = a.take_part();
    EXPECT_EQ(p1.part, 1U);
    EXPECT_TRUE(p1.first());
    EXPECT_FALSE(p1.last);
    EXPECT_EQ(p1.changes.rows_events(), 2U);
    EXPECT_EQ(p1.changes.gtid, (GtidPosition{0, 1, 5}));
    EXPECT_EQ(p1.changes.timestamp, 90U);  // the GTID event's: known at part 1
    EXPECT_EQ(a.position().to_string(), "0-1-4");  // not before the last part
    EXPECT_EQ(a.feed(rows(3)), Outcome::none);
    ASSERT_EQ(a.feed(rows(4)), Outcome::part);
    EXPECT_EQ(a.take_part().part, 2U);
    EXPECT_EQ(a.feed(rows(5)), Outcome::none);
    EXPECT_EQ(a.position().to_string(), "0-1-4");
    ASSERT_EQ(a.feed(xid(120)), Outcome::part);
    TransactionPart last = a.take_part();
    EXPECT_EQ(last.part, 3U);
    EXPECT_TRUE(last.last);
    EXPECT_FALSE(last.rolled_back);
    EXPECT_EQ(last.changes.rows_events(), 1U);
    EXPECT_EQ(last.changes.timestamp, 90U);  // every part the same
    EXPECT_EQ(a.position().to_string(), "0-1-5");
}

TEST(AssemblerParts, ASmallTransactionIsOnePartThatIsFirstAndLast) {
    TransactionAssembler a(TableFilter{}, GtidState{}, 1 << 20);
    a.feed(gtid(1));
    a.feed(rows(1));
    ASSERT_EQ(a.feed(xid()), Outcome::part);
    TransactionPart p = a.take_part();
    EXPECT_TRUE(p.first());
    EXPECT_TRUE(p.last);
    EXPECT_EQ(p.changes.rows_events(), 1U);
    // Nothing selected: no part at all, as without parts.
    TransactionAssembler f(TableFilter::parse("shop.orders"), GtidState{}, 1 << 20);
    f.feed(gtid(1));
    f.feed(rows(1, table("items")));
    EXPECT_EQ(f.feed(xid()), Outcome::skipped);
}

TEST(AssemblerParts, ARollbackAfterPartsWentOutEndsWithARolledBackLastPart) {
    TransactionAssembler a(TableFilter{}, GtidState{}, 4);
    a.feed(gtid(3, 100, 0));
    a.feed(query("BEGIN"));
    ASSERT_EQ(a.feed(rows(1)), Outcome::part);
    a.take_part();
    a.feed(rows(2));  // a part of its own too
    a.take_part();
    EXPECT_EQ(a.feed(rows(3)), Outcome::part);
    a.take_part();
    ASSERT_EQ(a.feed(query("ROLLBACK")), Outcome::part);
    TransactionPart p = a.take_part();
    EXPECT_TRUE(p.last);
    EXPECT_TRUE(p.rolled_back);
    EXPECT_EQ(p.part, 4U);
    EXPECT_TRUE(p.changes.empty());  // nothing of it applies
    EXPECT_EQ(a.position().to_string(), "0-1-3");
    // Rolled back before a part was full: nothing at all.
    a.feed(gtid(4, 100, 0));
    a.feed(query("BEGIN"));
    EXPECT_EQ(a.feed(query("ROLLBACK")), Outcome::skipped);
}

TEST(AssemblerParts, AGroupCutOffAfterPartsResumesAtTheNextPart) {
    TransactionAssembler a(TableFilter{}, GtidState{}, 8);
    a.feed(gtid(1));
    a.feed(rows(1));
    ASSERT_EQ(a.feed(rows(2)), Outcome::part);
    a.take_part();
    a.feed(rows(3));      // read but not yet handed out
    a.drop_partial_group();  // the connection died here
    EXPECT_TRUE(a.position().empty());
    // Read again from the position: the same group from its GTID.
    a.feed(gtid(1));
    EXPECT_EQ(a.feed(rows(1)), Outcome::none);  // skipped: in part 1
    EXPECT_EQ(a.feed(rows(2)), Outcome::none);
    EXPECT_EQ(a.feed(rows(3)), Outcome::none);
    a.drop_partial_group();  // and died again, before part 2
    a.feed(gtid(1));
    a.feed(rows(1));
    a.feed(rows(2));
    a.feed(rows(3));
    ASSERT_EQ(a.feed(rows(4)), Outcome::part);
    TransactionPart p2 = a.take_part();
    EXPECT_EQ(p2.part, 2U);  // numbering continues
    EXPECT_EQ(p2.changes.rows_events(), 2U);  // events 3 and 4 only
    ASSERT_EQ(a.feed(xid()), Outcome::part);
    TransactionPart p3 = a.take_part();
    EXPECT_EQ(p3.part, 3U);
    EXPECT_TRUE(p3.last);
    EXPECT_TRUE(p3.changes.empty());
    EXPECT_EQ(a.position().to_string(), "0-1-1");
    // The next group starts numbering afresh.
    a.feed(gtid(2));
    a.feed(rows(5));
    ASSERT_EQ(a.feed(xid()), Outcome::part);
    EXPECT_EQ(a.take_part().part, 1U);
}

TEST(AssemblerParts, ADifferentGroupAfterAResumePointIsAnError) {
    TransactionAssembler a(TableFilter{}, GtidState{}, 4);
    a.feed(gtid(1));
    ASSERT_EQ(a.feed(rows(1)), Outcome::part);
    a.take_part();
    a.drop_partial_group();
    try {
        a.feed(gtid(2));
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("continued with group 0-1-2, not with 0-1-1 whose first 1 parts were already returned"),
                  std::string::npos)
            << e.what();
    }
}

TEST(AssemblerParts, AGroupThatNeverCompletesAfterPartsIsAnError) {
    TransactionAssembler a(TableFilter{}, GtidState{}, 4);
    a.feed(gtid(1));
    ASSERT_EQ(a.feed(rows(1)), Outcome::part);
    a.take_part();
    EXPECT_THROW(a.feed(gtid(2)), Error);
}

TEST(AssemblerParts, XaPreparedRowsAreHeldWholeAndReturnedAsOnePartAtXaCommit) {
    TransactionAssembler a(TableFilter{}, GtidState{}, 4);
    auto xa_gtid = [](std::uint64_t seq, std::uint8_t flag) {
        binlog::Gtid g;
        g.seq_no = seq;
        g.flags = flag;
        g.xa_xid = binlog::XaXid{1, "x1", ""};
        return event(g);
    };
    a.feed(xa_gtid(1, binlog::gtid_flag::prepared_xa));
    EXPECT_EQ(a.feed(rows(1)), Outcome::none);  // over the bound, but held
    EXPECT_EQ(a.feed(rows(2)), Outcome::none);
    EXPECT_EQ(a.feed(event(binlog::XaPrepare{false, binlog::XaXid{1, "x1", ""}})), Outcome::skipped);
    a.feed(xa_gtid(2, binlog::gtid_flag::completed_xa));
    ASSERT_EQ(a.feed(query("XA COMMIT 'x1'")), Outcome::part);
    TransactionPart p = a.take_part();
    EXPECT_TRUE(p.first());
    EXPECT_TRUE(p.last);
    EXPECT_EQ(p.changes.rows_events(), 2U);
    EXPECT_EQ(p.changes.gtid.seq_no, 2U);
}

}  // namespace
}  // namespace sluice::mariadb::cdc::detail
