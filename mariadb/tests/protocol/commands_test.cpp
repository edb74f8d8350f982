#include "sluice/mariadb/protocol/commands.hpp"

#include <gtest/gtest.h>

#include "bytes.hpp"

namespace sluice::mariadb::protocol {
namespace {

TEST(Commands, SimpleCommandsAreTheCommandByteAndArgument) {
    std::vector<std::uint8_t> out;
    Writer w(out);
    write_command(w, Command::query, "SELECT 1");
    EXPECT_EQ(out.front(), 0x03);
    EXPECT_EQ(as_text(Bytes(out).subspan(1)), "SELECT 1");
    out.clear();
    write_command(w, Command::ping);
    EXPECT_EQ(out, std::vector<std::uint8_t>{0x0e});
    out.clear();
    write_statement_command(w, Command::stmt_close, 0x01020304);
    EXPECT_EQ(out, (std::vector<std::uint8_t>{0x19, 4, 3, 2, 1}));
    out.clear();
    std::vector<std::uint8_t> chunk{9, 9};
    write_send_long_data(w, 7, 2, chunk);
    EXPECT_EQ(out, (std::vector<std::uint8_t>{0x18, 7, 0, 0, 0, 2, 0, 9, 9}));
}

TEST(Commands, PrepareOkParsesAndRejectsTruncation) {
    test::PacketBuilder p;
    p.u8(0).u32(5).u16(3).u16(2).u8(0).u16(1);
    PrepareOk ok = parse_prepare_ok(p.bytes);
    EXPECT_EQ(ok.statement_id, 5u);
    EXPECT_EQ(ok.columns, 3);
    EXPECT_EQ(ok.params, 2);
    EXPECT_EQ(ok.warnings, 1);
    std::vector<std::uint8_t> cut(p.bytes.begin(), p.bytes.begin() + 6);
    EXPECT_THROW(parse_prepare_ok(cut), Error);
}

TEST(Commands, ExecuteEncodesNullBitmapTypesUnsignedFlagAndValues) {
    std::vector<ParamValue> params(4);
    params[0].kind = ParamValue::Kind::int64;
    params[0].i = -2;
    params[1].kind = ParamValue::Kind::null;
    params[2].kind = ParamValue::Kind::uint64;
    params[2].u = 0xFFFFFFFFFFFFFFFFull;
    std::string text = "hi";
    params[3].kind = ParamValue::Kind::text;
    params[3].bytes = as_bytes(text);
    std::vector<std::uint8_t> out;
    Writer w(out);
    write_stmt_execute(w, 9, params);
    Reader r(out, "execute");
    EXPECT_EQ(r.u8("cmd"), 0x17);
    EXPECT_EQ(r.u32("id"), 9u);
    EXPECT_EQ(r.u8("flags"), 0);
    EXPECT_EQ(r.u32("iterations"), 1u);
    EXPECT_EQ(r.u8("null bitmap"), 0x02);
    EXPECT_EQ(r.u8("bound"), 1);
    EXPECT_EQ(r.u16("t0"), 8);
    EXPECT_EQ(r.u16("t1"), 6);
    EXPECT_EQ(r.u16("t2"), 8 | 0x8000);
    EXPECT_EQ(r.u16("t3"), 253);
    EXPECT_EQ(static_cast<std::int64_t>(r.u64("v0")), -2);
    EXPECT_EQ(r.u64("v2"), 0xFFFFFFFFFFFFFFFFull);
    EXPECT_EQ(r.lenenc_text("v3"), "hi");
    EXPECT_TRUE(r.at_end());
}

TEST(Commands, ExecuteTemporalEncodingsAndLongDataOmission) {
    std::vector<ParamValue> params(3);
    params[0].kind = ParamValue::Kind::time;
    params[0].time = Time{true, 838, 59, 59, 0};
    params[1].kind = ParamValue::Kind::datetime;
    params[1].datetime = DateTime{2024, 2, 29, 1, 2, 3, 4};
    std::string big = "long";
    params[2].kind = ParamValue::Kind::blob;
    params[2].bytes = as_bytes(big);
    params[2].long_data = true;
    std::vector<std::uint8_t> out;
    Writer w(out);
    write_stmt_execute(w, 1, params);
    Reader r(out, "execute");
    r.skip(10, "header");
    r.skip(1 + 1 + 6, "bitmap, bound, types");
    EXPECT_EQ(r.u8("time len"), 8);
    EXPECT_EQ(r.u8("neg"), 1);
    EXPECT_EQ(r.u32("days"), 34u);
    EXPECT_EQ(r.u8("h"), 22);
    r.skip(2, "m s");
    EXPECT_EQ(r.u8("dt len"), 11);
    r.skip(11, "dt");
    EXPECT_TRUE(r.at_end());  // the long-data value is not repeated
}

}  // namespace
}  // namespace sluice::mariadb::protocol
