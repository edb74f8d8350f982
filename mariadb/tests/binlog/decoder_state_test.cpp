// What the decoder keeps between events: table maps (re-sent identical
// maps reuse the parsed one; a changed map replaces it), schema hints
// applied to maps already known, positions across ROTATE, a reader reused
// across events, and events far over 16 MiB.
#include <gtest/gtest.h>

#include "fixture.hpp"
#include "sluice/mariadb/error.hpp"

namespace sluice::mariadb::binlog {
namespace {

using test::TestColumn;

TEST(BinlogDecoderState, IdenticalTableMapIsReusedAChangedOneReplaces) {
    Decoder dec;
    dec.decode(test::format_description());
    auto tm = test::table_map_event(7, "db", "t", {{ColumnType::long_, {}}, {ColumnType::varchar, {20, 0}}});
    auto first = std::get<TableMapEvent>(dec.decode(tm).body).table;
    auto again = std::get<TableMapEvent>(dec.decode(tm).body).table;
    EXPECT_EQ(first.get(), again.get());
    // Same id, other columns (a DDL the server re-used the id for).
    auto changed = test::table_map_event(7, "db", "t", {{ColumnType::longlong, {}}});
    auto replaced = std::get<TableMapEvent>(dec.decode(changed).body).table;
    EXPECT_NE(replaced.get(), first.get());
    ASSERT_EQ(replaced->columns.size(), 1u);
    EXPECT_EQ(replaced->columns[0].type, ColumnType::longlong);
    EXPECT_EQ(dec.table(7).get(), replaced.get());
    // The old map a consumer kept is intact.
    EXPECT_EQ(first->columns.size(), 2u);
}

TEST(BinlogDecoderState, SchemaHintReachesKnownMapsAndClears) {
    Decoder dec;
    dec.decode(test::format_description());
    auto tm = test::table_map_event(7, "db", "t", {{ColumnType::string, {0xFE, 16}}});
    auto before = std::get<TableMapEvent>(dec.decode(tm).body).table;
    EXPECT_EQ(before->columns[0].schema_type, SchemaType::none);
    dec.set_schema("db", "t", TableSchema{{{"u", "uuid"}}});
    EXPECT_EQ(dec.table(7)->columns[0].schema_type, SchemaType::uuid);
    EXPECT_EQ(dec.table(7)->columns[0].name, "u");
    EXPECT_TRUE(dec.table(7)->schema_applied);
    EXPECT_EQ(before->columns[0].schema_type, SchemaType::none);  // handed-out maps do not change under a reader
    // The identical map re-sent keeps the hint.
    EXPECT_EQ(std::get<TableMapEvent>(dec.decode(tm).body).table->columns[0].schema_type, SchemaType::uuid);
    dec.clear_schema("db", "t");
    EXPECT_EQ(dec.table(7)->columns[0].schema_type, SchemaType::none);
    EXPECT_FALSE(dec.table(7)->schema_applied);
}

TEST(BinlogDecoderState, ReaderResetAcrossEvents) {
    Decoder dec;
    dec.decode(test::format_description());
    dec.decode(test::table_map_event(7, "db", "t", {{ColumnType::long_, {}}}));
    auto a = test::rows_event(EventType::write_rows_v1, 7, 1, {0x01}, {0x00, 1, 0, 0, 0, 0x00, 2, 0, 0, 0});
    auto b = test::rows_event(EventType::delete_rows_v1, 7, 1, {0x01}, {0x00, 3, 0, 0, 0});
    Event ea = dec.decode(a);
    Rows ra = std::get<Rows>(ea.body);
    Event eb = dec.decode(b);
    Rows rb = std::get<Rows>(eb.body);
    RowReader reader;
    RowChange ch;
    EXPECT_FALSE(reader.next(ch));
    reader.reset(ra);
    std::vector<std::string> seen;
    while (reader.next(ch)) seen.push_back("+" + to_text(ch.after[0].value, ra.table->columns[0]));
    reader.reset(rb);
    while (reader.next(ch)) {
        EXPECT_TRUE(ch.after.empty());
        seen.push_back("-" + to_text(ch.before[0].value, rb.table->columns[0]));
    }
    EXPECT_EQ(seen, (std::vector<std::string>{"+1", "+2", "-3"}));
    EXPECT_EQ(reader.count(), 1u);
}

TEST(BinlogDecoderState, SeventeenMebibyteValue) {
    // Events over 16 MiB come split across packets; joined, the decoder
    // takes them like any other (a LONGBLOB of 17 MiB).
    Decoder dec;
    dec.decode(test::format_description());
    dec.decode(test::table_map_event(7, "db", "t", {{ColumnType::blob, {4}}}));
    const std::uint32_t n = 17u << 20;
    std::vector<std::uint8_t> image = {0x00, static_cast<std::uint8_t>(n), static_cast<std::uint8_t>(n >> 8),
                                       static_cast<std::uint8_t>(n >> 16), static_cast<std::uint8_t>(n >> 24)};
    image.resize(image.size() + n, 0xAB);
    image.back() = 0xCD;
    auto ev = test::rows_event(EventType::write_rows_v1, 7, 1, {0x01}, image);
    Event e = dec.decode(ev);
    RowReader reader(std::get<Rows>(e.body));
    RowChange ch;
    ASSERT_TRUE(reader.next(ch));
    const Blob& blob = std::get<Blob>(ch.after[0].value);
    EXPECT_EQ(blob.size(), n);
    EXPECT_EQ(blob[0], 0xAB);
    EXPECT_EQ(blob[n - 1], 0xCD);
    EXPECT_FALSE(reader.next(ch));
}

TEST(BinlogDecoderState, RealRotateForgetsTableMapsArtificialDoesNot) {
    Decoder dec;
    dec.decode(test::format_description());
    dec.decode(test::table_map_event(7, "db", "t", {{ColumnType::long_, {}}}));
    auto fake = test::EventBuilder(EventType::rotate, 0, header_flag::artificial, 1, 0).u64(4).text("b.000002").finish();
    dec.decode(fake);
    EXPECT_NE(dec.table(7), nullptr);
    auto real = test::EventBuilder(EventType::rotate, 5000).u64(4).text("b.000003").finish();
    dec.decode(real);
    EXPECT_EQ(dec.table(7), nullptr);
    EXPECT_EQ(dec.position().file, "b.000003");
    EXPECT_EQ(dec.position().offset, 4u);
}

}  // namespace
}  // namespace sluice::mariadb::binlog

namespace sluice::mariadb::binlog {
namespace {

TEST(BinlogDecoderState, StreamWithoutChecksums) {
    // binlog_checksum=NONE: the FORMAT_DESCRIPTION says OFF (and still
    // carries its 4 checksum bytes); later events end without a CRC.
    Decoder dec;
    dec.decode(test::format_description(0));
    EXPECT_EQ(dec.checksum(), Checksum::off);
    auto xid = test::EventBuilder(EventType::xid, 900).u64(77).finish(false);
    EXPECT_EQ(std::get<Xid>(dec.decode(xid).body).xid, 77u);
    // Nothing is stripped: the last 4 bytes are the statement's.
    auto q = test::EventBuilder(EventType::query, 950).u32(1).u32(0).u8(0).u16(0).u16(0).u8(0).text("COMMIT").finish(false);
    Event qe = dec.decode(q);
    EXPECT_EQ(std::get<Query>(qe.body).sql, "COMMIT");
}

TEST(BinlogDecoderState, GtidPositionText) {
    auto ev = test::EventBuilder(EventType::gtid, 500, 0, 3).u64(42).u32(7).u8(gtid_flag::transactional).raw({0, 0, 0, 0, 0, 0}).finish();
    Decoder dec;
    dec.decode(test::format_description());
    Gtid g = std::get<Gtid>(dec.decode(ev).body);
    EXPECT_EQ(to_string(g.position()), "7-3-42");
    EXPECT_TRUE(g.transactional());
    EXPECT_FALSE(g.standalone());
    EXPECT_FALSE(g.commit_id.has_value());
}

}  // namespace
}  // namespace sluice::mariadb::binlog

namespace sluice::mariadb::binlog {
namespace {

// A v2 rows event: post-header of 10 bytes (table id, flags, extra data
// length counting itself), the extra data, then as v1.
std::vector<std::uint8_t> rows_v2(EventType type, const std::vector<std::uint8_t>& extra,
                                  const std::vector<std::uint8_t>& rest) {
    test::EventBuilder b(type);
    b.u48(7).u16(1).u16(static_cast<std::uint16_t>(extra.size() + 2)).bytes_of(extra).bytes_of(rest);
    return b.finish();
}

TEST(BinlogDecoderState, RowsV2WithExtraDataAndCompressedV2) {
    Decoder dec;
    dec.decode(test::format_description());
    dec.decode(test::table_map_event(7, "db", "t", {{ColumnType::long_, {}}, {ColumnType::varchar, {20, 0}}}));
    // UPDATE v2: width 2, two bitmaps, before (1,'a') after (1,'bb').
    auto upd = rows_v2(EventType::update_rows_v2, {0x00, 0x01, 0x02},
                       {2, 0x03, 0x03, 0x00, 1, 0, 0, 0, 1, 'a', 0x00, 1, 0, 0, 0, 2, 'b', 'b'});
    Event e = dec.decode(upd);
    const Rows& r = std::get<Rows>(e.body);
    EXPECT_EQ(r.version, 2);
    EXPECT_EQ(r.kind, RowsKind::update);
    EXPECT_EQ(r.extra_data.size(), 3u);
    RowReader reader(r);
    RowChange ch;
    ASSERT_TRUE(reader.next(ch));
    EXPECT_EQ(to_text(ch.before[1].value, r.table->columns[1]), "a");
    EXPECT_EQ(to_text(ch.after[1].value, r.table->columns[1]), "bb");
    EXPECT_FALSE(reader.next(ch));
    // WRITE_ROWS_COMPRESSED (v2 layout): width and bitmap plain, images deflated.
    std::vector<std::uint8_t> image = {0x00, 5, 0, 0, 0, 3, 'x', 'y', 'z'};
    std::vector<std::uint8_t> z(compressBound(static_cast<uLong>(image.size())));
    uLongf zlen = static_cast<uLongf>(z.size());
    ASSERT_EQ(compress(z.data(), &zlen, image.data(), static_cast<uLong>(image.size())), Z_OK);
    z.resize(zlen);
    std::vector<std::uint8_t> rest = {2, 0x03, 0x81, static_cast<std::uint8_t>(image.size())};
    rest.insert(rest.end(), z.begin(), z.end());
    auto zipped = rows_v2(EventType::write_rows_compressed, {}, rest);
    Event ze = dec.decode(zipped);
    const Rows& zr = std::get<Rows>(ze.body);
    EXPECT_TRUE(zr.compressed);
    EXPECT_EQ(zr.version, 2);
    RowReader zreader(zr);
    ASSERT_TRUE(zreader.next(ch));
    EXPECT_EQ(to_text(ch.after[0].value, zr.table->columns[0]), "5");
    EXPECT_EQ(to_text(ch.after[1].value, zr.table->columns[1]), "xyz");
    // An extra-data length shorter than itself.
    test::EventBuilder bad(EventType::write_rows_v2);
    bad.u48(7).u16(1).u16(1).u8(2).u8(0x03);
    EXPECT_THROW(dec.decode(bad.finish()), Error);
}

}  // namespace
}  // namespace sluice::mariadb::binlog
