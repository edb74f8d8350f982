#include "sluice/mariadb/protocol/responses.hpp"

#include <gtest/gtest.h>

#include "bytes.hpp"
#include "sluice/mariadb/protocol/column.hpp"
#include "sluice/mariadb/protocol/constants.hpp"

namespace sluice::mariadb::protocol {
namespace {

using test::PacketBuilder;

TEST(Ok, PlainOkWithInfoToTheEnd) {
    PacketBuilder p;
    p.u8(0).raw({0xFC, 0x10, 0x27}).u8(7).u16(status::autocommit).u16(2).text("Records: 3  Duplicates: 0");
    OkPacket ok = parse_ok(p.bytes, cap::protocol_41);
    EXPECT_EQ(ok.affected_rows, 10000u);
    EXPECT_EQ(ok.last_insert_id, 7u);
    EXPECT_EQ(ok.status_flags, status::autocommit);
    EXPECT_EQ(ok.warnings, 2);
    EXPECT_EQ(ok.info, "Records: 3  Duplicates: 0");
}

TEST(Ok, SessionTrackingInfoAndStateChangesAreTolerated) {
    PacketBuilder p;
    p.u8(0).u8(0).u8(0).u16(status::autocommit | status::session_state_changed).u16(0);
    p.lenenc("");
    p.u8(10).raw({0x00, 0x08, 0x0a, 'a', 'u', 't', 'o', 'c', 'o', 'm'});  // system variable change
    OkPacket ok = parse_ok(p.bytes, cap::protocol_41 | cap::session_track);
    EXPECT_EQ(ok.info, "");
    EXPECT_EQ(ok.session_state.size(), 10u);
}

TEST(Ok, TruncatedOkIsProtocolErrorAtEveryLength) {
    PacketBuilder p;
    p.u8(0).u8(1).u8(0).u16(2).u16(0);
    for (std::size_t n = 0; n < p.bytes.size(); ++n) {
        std::vector<std::uint8_t> cut(p.bytes.begin(), p.bytes.begin() + static_cast<long>(n));
        EXPECT_EQ(test::kind_of_error([&] { parse_ok(cut, 0); }), ErrorKind::protocol) << n;
    }
}

TEST(Err, CarriesCodeSqlstateAndMessage) {
    PacketBuilder p;
    p.u8(0xFF).u16(1045).text("#28000").text("Access denied for user 'x'@'localhost'");
    ErrPacket e = parse_err(p.bytes);
    EXPECT_EQ(e.code, 1045);
    EXPECT_EQ(e.sqlstate, "28000");
    EXPECT_EQ(e.message, "Access denied for user 'x'@'localhost'");
    try {
        throw_server_error(p.bytes);
    } catch (const Error& err) {
        EXPECT_EQ(err.kind(), ErrorKind::server);
        EXPECT_EQ(err.server_code(), 1045);
        EXPECT_EQ(err.sqlstate(), "28000");
    }
}

TEST(Err, WithoutSqlstateDefaultsToHY000AndProgressIsRejected) {
    PacketBuilder p;
    p.u8(0xFF).u16(1152).text("Aborted");
    EXPECT_EQ(parse_err(p.bytes).sqlstate, "HY000");
    PacketBuilder progress;
    progress.u8(0xFF).u16(0xFFFF).u8(1).u8(1).raw({0, 0, 0}).lenenc("x");
    EXPECT_THROW(parse_err(progress.bytes), Error);
}

TEST(Eof, EndOfRowsIsDistinguishedFromA0xFERow) {
    PacketBuilder eof;
    eof.u8(0xFE).u16(0).u16(status::more_results_exist);
    EXPECT_TRUE(is_end_of_rows(eof.bytes, false));
    EXPECT_EQ(end_of_rows_status(eof.bytes, false, 0), status::more_results_exist);
    // A text row whose first field has an 8-byte length also starts with 0xFE.
    std::vector<std::uint8_t> row(9, 0);
    row[0] = 0xFE;
    EXPECT_FALSE(is_end_of_rows(row, false));
}

TEST(ColumnDefinition, ParsesNamesTypeFlagsAndExtendedFormat) {
    PacketBuilder p;
    p.lenenc("def").lenenc("sluice").lenenc("t").lenenc("t0").lenenc("doc").lenenc("doc");
    p.u8(6).raw({0x01, 4}).text("json");
    p.u8(12).u16(45).u32(0xFFFFFFFF).u8(252).u16(column_flag::blob).u8(0).u16(0);
    ColumnDefinition c = parse_column_definition(p.bytes, cap::mariadb_extended_metadata);
    EXPECT_EQ(c.schema, "sluice");
    EXPECT_EQ(c.table, "t");
    EXPECT_EQ(c.org_table, "t0");
    EXPECT_EQ(c.name, "doc");
    EXPECT_EQ(c.extended_format, "json");
    EXPECT_EQ(c.type, ColumnType::blob);
    EXPECT_EQ(c.collation, 45);
    EXPECT_EQ(c.length, 0xFFFFFFFFu);
    // Without the capability the same bytes are misaligned: an error, not garbage.
    EXPECT_THROW(parse_column_definition(p.bytes, 0), Error);
}

TEST(ColumnDefinition, UnknownTypeIsRejected) {
    PacketBuilder p;
    p.lenenc("def").lenenc("").lenenc("").lenenc("").lenenc("x").lenenc("");
    p.u8(12).u16(63).u32(1).u8(100).u16(0).u8(0).u16(0);
    EXPECT_THROW(parse_column_definition(p.bytes, 0), Error);
}

TEST(ColumnCount, RejectsZeroAndImplausibleCounts) {
    std::vector<std::uint8_t> three{3};
    EXPECT_EQ(parse_column_count(three), 3u);
    std::vector<std::uint8_t> zero{0};
    EXPECT_THROW(parse_column_count(zero), Error);
    std::vector<std::uint8_t> huge{0xFE, 0, 0, 0, 0, 1, 0, 0, 0};
    EXPECT_THROW(parse_column_count(huge), Error);
}

}  // namespace
}  // namespace sluice::mariadb::protocol
