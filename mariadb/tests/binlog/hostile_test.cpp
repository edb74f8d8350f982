// Hostile and broken input: every error is an Error{protocol} naming the
// event, the binlog file and offset (and for rows the table, row and
// column), never a crash, a hang or a silently wrong row; and a failed
// decode() leaves the decoder able to go on.
#include <gtest/gtest.h>

#include <string>

#include "fixture.hpp"
#include "sluice/mariadb/error.hpp"

namespace sluice::mariadb::binlog {
namespace {

using test::EventBuilder;
using test::TestColumn;

// The message of the Error that f throws (fails the test if none).
template <class F>
std::string error_of(F&& f) {
    try {
        f();
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::protocol);
        return e.what();
    }
    ADD_FAILURE() << "no Error thrown";
    return "";
}

void expect_contains(const std::string& text, const std::string& part) {
    EXPECT_NE(text.find(part), std::string::npos) << "'" << part << "' not in: " << text;
}

// A decoder that has seen a FORMAT_DESCRIPTION and a TABLE_MAP of
// db.t (id 7: INT, VARCHAR(300) named id, name).
Decoder ready_decoder() {
    Decoder dec;
    dec.set_position("binlog.000042", 4);
    dec.decode(test::format_description());
    std::vector<std::uint8_t> names = {2, 'i', 'd', 4, 'n', 'a', 'm', 'e'};
    dec.decode(test::table_map_event(7, "db", "t", {{ColumnType::long_, {}}, {ColumnType::varchar, {0x2C, 0x01}}},
                                     {{4, names}}));
    return dec;
}

TEST(BinlogHostile, BadChecksumNamesEventAndPositionAndIsNotFatal) {
    auto file = test::load_fixture("every_type");
    auto events = test::split_events(file);
    Decoder dec;
    dec.set_position("mariadb-bin.000005", 4);
    dec.decode(events[0]);  // FORMAT_DESCRIPTION
    auto bad = events[1];
    bad[bad.size() - 6] ^= 0x01;
    std::string msg = error_of([&] { dec.decode(bad); });
    expect_contains(msg, "GTID_LIST_EVENT");
    expect_contains(msg, "mariadb-bin.000005:256");
    expect_contains(msg, "checksum mismatch");
    // The decoder goes on with the good copy.
    Event ev = dec.decode(events[1]);
    EXPECT_TRUE(std::holds_alternative<GtidList>(ev.body));
    // With verification off the damaged bytes are taken as they are.
    Decoder lax(DecoderOptions{false});
    lax.decode(events[0]);
    EXPECT_NO_THROW(lax.decode(bad));
}

TEST(BinlogHostile, DamagedRowEventCrcIsCaughtBeforeAnyRowIsRead) {
    auto file = test::load_fixture("every_type");
    auto events = test::split_events(file);
    Decoder dec;
    dec.set_position("mariadb-bin.000005", 4);
    for (auto& e : events) {
        auto type = static_cast<EventType>(e[4]);
        if (type == EventType::write_rows_v1) {
            auto bad = e;
            bad[40] ^= 0x80;  // inside the first row image
            std::string msg = error_of([&] { dec.decode(bad); });
            expect_contains(msg, "WRITE_ROWS_EVENT_V1 at mariadb-bin.000005:");
            expect_contains(msg, "checksum mismatch");
            return;
        }
        dec.decode(e);
    }
    FAIL() << "no WRITE_ROWS in the fixture";
}

TEST(BinlogHostile, TruncatedEventAndShortHeader) {
    Decoder dec = ready_decoder();
    auto ev = EventBuilder(EventType::xid, 500).u64(9).finish();
    auto cut = ev;
    cut.resize(cut.size() - 3);
    std::string msg = error_of([&] { dec.decode(cut); });
    expect_contains(msg, "XID_EVENT");
    expect_contains(msg, "the header says 31 bytes, the event has 28");
    std::vector<std::uint8_t> tiny(ev.begin(), ev.begin() + 10);
    expect_contains(error_of([&] { dec.decode(tiny); }), "truncated");
    // A body shorter than its fields (length consistent, CRC right).
    auto short_xid = EventBuilder(EventType::xid, 500).raw({1, 2, 3}).finish();
    expect_contains(error_of([&] { dec.decode(short_xid); }), "field 'xid'");
    // Good events still decode.
    EXPECT_EQ(std::get<Xid>(dec.decode(ev).body).xid, 9u);
}

TEST(BinlogHostile, LyingLengthInsideARowNamesTableRowAndColumn) {
    Decoder dec = ready_decoder();
    // Row: id = 1, name claims 200 bytes, has 3.
    auto rows = test::rows_event(EventType::write_rows_v1, 7, 2, {0x03}, {0x00, 1, 0, 0, 0, 200, 0, 'a', 'b', 'c'});
    Event ev = dec.decode(rows);
    const Rows& r = std::get<Rows>(ev.body);
    RowReader reader(r);
    RowChange ch;
    std::string msg = error_of([&] { reader.next(ch); });
    expect_contains(msg, "WRITE_ROWS_EVENT_V1 at binlog.000042:");
    expect_contains(msg, "table db.t, id 7");
    expect_contains(msg, "row change 1");
    expect_contains(msg, "column 2 'name'");
    expect_contains(msg, "truncated");
}

TEST(BinlogHostile, LengthOverTheColumnMaximum) {
    Decoder dec = ready_decoder();
    std::vector<std::uint8_t> image = {0x00, 1, 0, 0, 0, 0x2D, 0x01};  // 301 bytes in a VARCHAR of 300
    image.insert(image.end(), 301, 'x');
    auto bytes = test::rows_event(EventType::write_rows_v1, 7, 2, {0x03}, image);
    Event ev = dec.decode(bytes);
    RowReader reader(std::get<Rows>(ev.body));
    RowChange ch;
    expect_contains(error_of([&] { reader.next(ch); }), "301 bytes in a column of 300");
}

TEST(BinlogHostile, RowsForAnUnknownTableId) {
    Decoder dec = ready_decoder();
    auto rows = test::rows_event(EventType::write_rows_v1, 8, 2, {0x03}, {0x00, 1, 0, 0, 0, 0});
    std::string msg = error_of([&] { dec.decode(rows); });
    expect_contains(msg, "rows for table id 8 with no TABLE_MAP_EVENT");
    expect_contains(msg, "binlog.000042:");
}

TEST(BinlogHostile, ColumnCountOverTheTableMaps) {
    Decoder dec = ready_decoder();
    auto rows = test::rows_event(EventType::write_rows_v1, 7, 3, {0x07}, {0x00, 1, 0, 0, 0, 0, 0});
    expect_contains(error_of([&] { dec.decode(rows); }), "rows of 3 columns for table db.t whose TABLE_MAP_EVENT has 2");
}

TEST(BinlogHostile, BitmapShorterThanTheColumnCount) {
    Decoder dec = ready_decoder();
    // Width 2 needs a 1-byte bitmap; the event ends before it.
    EventBuilder b(EventType::write_rows_v1);
    b.u48(7).u16(1).u8(2);
    expect_contains(error_of([&] { dec.decode(b.finish()); }), "present columns (after image)");
    // A Rows struct assembled by a caller with a short bitmap.
    auto bytes = test::rows_event(EventType::write_rows_v1, 7, 2, {0x03}, {0x00, 1, 0, 0, 0, 0});
    Event ev = dec.decode(bytes);
    Rows r = std::get<Rows>(ev.body);
    r.columns_after = {};
    expect_contains(error_of([&] { RowReader reader(r); }), "after-image bitmap is shorter than the column count");
    // A reader reset() onto the bad event after a good one reads nothing more.
    RowReader reused(std::get<Rows>(ev.body));
    EXPECT_THROW(reused.reset(r), Error);
    RowChange none;
    EXPECT_FALSE(reused.next(none));
}

TEST(BinlogHostile, RowChangeOfNoColumnsDoesNotLoopForever) {
    Decoder dec = ready_decoder();
    auto bytes = test::rows_event(EventType::write_rows_v1, 7, 2, {0x00}, {0x00, 0x00});
    Event ev = dec.decode(bytes);
    RowReader reader(std::get<Rows>(ev.body));
    RowChange ch;
    expect_contains(error_of([&] { reader.next(ch); }), "no columns with bytes left");
}

TEST(BinlogHostile, TableMapLies) {
    Decoder dec = ready_decoder();
    // 200 columns announced, 2 type bytes present.
    EventBuilder b(EventType::table_map);
    b.u48(9).u16(1).u8(2).text("db").u8(0).u8(1).text("x").u8(0).u8(200).raw({3, 3});
    expect_contains(error_of([&] { dec.decode(b.finish()); }), "200 columns");
    // Unknown column type code.
    expect_contains(error_of([&] { dec.decode(test::table_map_event(9, "db", "x", {{static_cast<ColumnType>(100), {}}})); }),
                    "unknown type code 100");
    // DECIMAL over 65 digits.
    expect_contains(error_of([&] { dec.decode(test::table_map_event(9, "db", "x", {{ColumnType::newdecimal, {66, 2}}})); }),
                    "DECIMAL(66,2) out of range");
    // Column names for more columns than the table has.
    std::vector<std::uint8_t> names = {1, 'a', 1, 'b'};
    expect_contains(error_of([&] { dec.decode(test::table_map_event(9, "db", "x", {{ColumnType::long_, {}}}, {{4, names}})); }),
                    "more names than columns");
    // The failed maps were not stored; the good one still is.
    EXPECT_EQ(dec.table(9), nullptr);
    EXPECT_NE(dec.table(7), nullptr);
}

TEST(BinlogHostile, GtidListCountBeyondTheEventAllocatesNothing) {
    Decoder dec = ready_decoder();
    auto ev = EventBuilder(EventType::gtid_list).u32(0x0fffffff).u32(0).u32(1).u64(1).finish();
    expect_contains(error_of([&] { dec.decode(ev); }), "268435455 GTIDs need");
}

TEST(BinlogHostile, CompressedEventClaimingTooMuch) {
    Decoder dec = ready_decoder();
    // QUERY_COMPRESSED whose statement claims 4 GiB - 1 from 2 bytes.
    EventBuilder b(EventType::query_compressed);
    b.u32(1).u32(0).u8(2).u16(0).u16(0).text("db").u8(0).raw({0x84, 0xFF, 0xFF, 0xFF, 0xFF, 0x78, 0x9C});
    expect_contains(error_of([&] { dec.decode(b.finish()); }), "claims 4294967295 inflated bytes from 2");
    // Corrupt zlib data of a plausible length.
    EventBuilder c(EventType::query_compressed);
    c.u32(1).u32(0).u8(2).u16(0).u16(0).text("db").u8(0).raw({0x81, 0x05, 1, 2, 3, 4, 5, 6, 7});
    expect_contains(error_of([&] { dec.decode(c.finish()); }), "does not inflate");
}

TEST(BinlogHostile, UnknownEventsAreSkippedByTheirLength) {
    Decoder dec = ready_decoder();
    auto ev = EventBuilder(static_cast<EventType>(200), 777).raw({1, 2, 3, 4, 5}).finish();
    Event e = dec.decode(ev);  // (ev outlives e: its body views ev)
    ASSERT_TRUE(std::holds_alternative<Unknown>(e.body));
    EXPECT_EQ(e.header.type, EventType::unknown);
    EXPECT_EQ(e.header.type_code, 200);
    EXPECT_EQ(std::get<Unknown>(e.body).body.size(), 5u);
    EXPECT_EQ(dec.position().offset, 777u);
    // Statement-based events the CDC stream does not use: skipped too.
    Event iv = dec.decode(EventBuilder(EventType::intvar, 800).u8(2).u64(5).finish());
    EXPECT_TRUE(std::holds_alternative<Unknown>(iv.body));
}

TEST(BinlogHostile, ArtificialRotateBeforeTheFormatDescription) {
    // With a CRC (the session set @master_binlog_checksum) and without.
    for (bool crc : {true, false}) {
        Decoder dec;
        auto ev = EventBuilder(EventType::rotate, 0, header_flag::artificial, 1, 0).u64(4).text("mariadb-bin.000003").finish(crc);
        Event e = dec.decode(ev);
        const Rotate& r = std::get<Rotate>(e.body);
        EXPECT_TRUE(r.artificial);
        EXPECT_EQ(r.next_file, "mariadb-bin.000003") << crc;
        EXPECT_EQ(dec.position().file, "mariadb-bin.000003");
        EXPECT_EQ(dec.position().offset, 4u);
    }
    // The session can say which: then a bad CRC is an error, not "no CRC".
    Decoder dec;
    dec.expect_checksum(Checksum::crc32);
    auto ev = EventBuilder(EventType::rotate, 0, header_flag::artificial, 1, 0).u64(4).text("f.000001").finish();
    ev[25] ^= 1;
    expect_contains(error_of([&] { dec.decode(ev); }), "checksum mismatch");
}

TEST(BinlogHostile, HeartbeatStopIncidentAnnotate) {
    Decoder dec = ready_decoder();
    auto hb_bytes = EventBuilder(EventType::heartbeat, 9999, header_flag::artificial, 1, 0).text("binlog.000042").finish();
    Event hb = dec.decode(hb_bytes);
    EXPECT_EQ(std::get<Heartbeat>(hb.body).log_file, "binlog.000042");
    EXPECT_EQ(hb.header.next_position, 9999u);
    Event stop = dec.decode(EventBuilder(EventType::stop, 1200).finish());
    EXPECT_TRUE(std::holds_alternative<Stop>(stop.body));
    auto inc_bytes = EventBuilder(EventType::incident, 1300).u16(1).u8(4).text("lost").finish();
    Event inc = dec.decode(inc_bytes);
    EXPECT_EQ(std::get<Incident>(inc.body).code, 1);
    EXPECT_EQ(std::get<Incident>(inc.body).message, "lost");
    auto an_bytes = EventBuilder(EventType::annotate_rows, 1400).text("INSERT INTO t VALUES (1)").finish();
    Event an = dec.decode(an_bytes);
    EXPECT_EQ(std::get<AnnotateRows>(an.body).sql, "INSERT INTO t VALUES (1)");
    EXPECT_EQ(dec.position().offset, 1400u);
}

TEST(BinlogHostile, QueryWithUnterminatedSchema) {
    Decoder dec = ready_decoder();
    EventBuilder b(EventType::query, 2000);
    b.u32(1).u32(0).u8(2).u16(0).u16(0).text("db").u8('X').text("BEGIN");
    expect_contains(error_of([&] { dec.decode(b.finish()); }), "schema name not NUL-terminated");
    EventBuilder ok(EventType::query, 2000);
    ok.u32(1).u32(0).u8(2).u16(0).u16(5).raw({0, 0, 0, 0x40, 0}).text("db").u8(0).text("BEGIN");
    auto ok_bytes = ok.finish();
    Event qe = dec.decode(ok_bytes);
    const Query& q = std::get<Query>(qe.body);
    EXPECT_EQ(q.sql, "BEGIN");
    EXPECT_EQ(q.schema, "db");
    ASSERT_TRUE(q.flags2.has_value());
    EXPECT_EQ(*q.flags2, 0x00400000u);
}

TEST(BinlogHostile, SplitterRejectsLyingLengths) {
    std::vector<std::uint8_t> file = {0xFE, 'b', 'i', 'n'};
    auto ev = EventBuilder(EventType::stop, 100).finish();
    ev[9] = 0xFF;  // claims far more than the file holds
    file.insert(file.end(), ev.begin(), ev.end());
    EventSplitter split(file);
    expect_contains(error_of([&] { split.next(); }), "the event at offset 4 claims");
    std::vector<std::uint8_t> not_binlog = {1, 2, 3, 4};
    expect_contains(error_of([&] { EventSplitter s(not_binlog); }), "not a binlog file");
}

}  // namespace
}  // namespace sluice::mariadb::binlog

namespace sluice::mariadb::binlog {
namespace {

TEST(BinlogHostile, DummyRowsEventEndingAStatementHasNoRows) {
    // Table id 0x00ffffff with nothing after the post-header: the server's
    // statement-end marker when every row was filtered out.
    Decoder dec;
    dec.decode(test::format_description());
    auto ev = test::EventBuilder(EventType::write_rows_v1).u48(0x00ffffff).u16(1).finish();
    Event e = dec.decode(ev);
    const Rows& r = std::get<Rows>(e.body);
    EXPECT_EQ(r.table, nullptr);
    EXPECT_TRUE(r.end_of_statement());
    RowReader reader(r);
    RowChange ch;
    EXPECT_FALSE(reader.next(ch));
}

}  // namespace
}  // namespace sluice::mariadb::binlog

namespace sluice::mariadb::binlog {
namespace {

TEST(BinlogHostile, FormatDescriptionOfAnOpenBinlogFile) {
    // The file the server is writing has LOG_EVENT_BINLOG_IN_USE_F set in
    // its FORMAT_DESCRIPTION's flags, under a CRC computed with the flag
    // clear (found reading the private server's current binlog).
    auto events = test::split_events(test::load_fixture("every_type"));
    auto fd = events[0];
    ASSERT_EQ(fd[17] & header_flag::binlog_in_use, 0);
    fd[17] = static_cast<std::uint8_t>(fd[17] | header_flag::binlog_in_use);
    Decoder dec;
    Event e = dec.decode(fd);
    EXPECT_TRUE(e.header.flags & header_flag::binlog_in_use);
    EXPECT_EQ(dec.checksum(), Checksum::crc32);
    // Any other damage still fails.
    fd[30] ^= 1;
    EXPECT_THROW(Decoder().decode(fd), Error);
}

}  // namespace
}  // namespace sluice::mariadb::binlog
