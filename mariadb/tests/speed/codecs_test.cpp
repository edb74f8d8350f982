// The speed features' sans-I/O pieces on byte vectors: the bulk packet
// encoder, the column count with the metadata-follows byte, the LOCAL
// INFILE request, COM_STMT_FETCH, and SQL literal escaping.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "sluice/mariadb/error.hpp"
#include "sluice/mariadb/protocol/bulk.hpp"
#include "sluice/mariadb/protocol/result_head.hpp"
#include "sluice/mariadb/statement.hpp"
#include "sluice/mariadb/text_batch.hpp"

namespace sluice::mariadb {
namespace {

using namespace std::string_literals;
using protocol::BulkPacket;
using protocol::BulkParam;
using protocol::Indicator;
using Bytes = std::vector<std::uint8_t>;

BulkParam value_of(const protocol::ParamValue& v, Indicator i = Indicator::none) { return BulkParam{v, i}; }

template <class F>
ErrorKind kind_of(F&& f) {
    try {
        f();
    } catch (const Error& e) {
        return e.kind();
    }
    return ErrorKind::broken;  // "no error" never matches the expectations below
}

TEST(BulkPacket, HeaderTypesIndicatorsAndValues) {
    Bytes out;
    BulkPacket p(out, 0x01020304, 3);
    EXPECT_EQ(out, (Bytes{0xFA, 0x04, 0x03, 0x02, 0x01, 0x80, 0x00, 253, 0, 253, 0, 253, 0}));
    const BulkParam row1[] = {value_of(bind::value(std::int64_t{7})), value_of(bind::value("ab")),
                              value_of(bind::null(), Indicator::default_)};
    ASSERT_EQ(p.append(row1, 1000), BulkPacket::Append::added);
    const BulkParam row2[] = {value_of(bind::null()), value_of(bind::value("c")),
                              value_of(bind::value(std::uint64_t{1}))};
    ASSERT_EQ(p.append(row2, 1000), BulkPacket::Append::added);
    EXPECT_EQ(p.rows(), 2u);
    const Bytes expected{
        0xFA, 0x04, 0x03, 0x02, 0x01, 0x80, 0x00,
        8, 0x00,    // BIGINT
        253, 0x00,  // VAR_STRING
        8, 0x80,    // BIGINT UNSIGNED (typed by row 2)
        0, 7, 0, 0, 0, 0, 0, 0, 0, 0, 2, 'a', 'b', 2,  // row 1: 7, "ab", DEFAULT
        1, 0, 1, 'c', 0, 1, 0, 0, 0, 0, 0, 0, 0,        // row 2: NULL, "c", 1
    };
    EXPECT_EQ(out, expected);
}

TEST(BulkPacket, ATypeChangeOrAnOverflowLeavesThePacketUntouched) {
    Bytes out;
    BulkPacket p(out, 1, 1);
    const BulkParam number[] = {value_of(bind::value(1))};
    const BulkParam text[] = {value_of(bind::value("x"))};
    const BulkParam unsigned_number[] = {value_of(bind::value(1u))};
    const BulkParam ignore[] = {value_of(bind::null(), Indicator::ignore)};
    ASSERT_EQ(p.append(number, 100), BulkPacket::Append::added);
    const Bytes before = out;
    EXPECT_EQ(p.append(text, 100), BulkPacket::Append::type_change);
    EXPECT_EQ(p.append(unsigned_number, 100), BulkPacket::Append::type_change);
    EXPECT_EQ(out, before);
    EXPECT_EQ(p.append(ignore, 100), BulkPacket::Append::added);  // no value: any type
    EXPECT_EQ(out.back(), 3);
    EXPECT_EQ(p.append(number, out.size() + 8), BulkPacket::Append::too_large);  // needs 9
    EXPECT_EQ(p.rows(), 2u);
    EXPECT_EQ(p.append(number, out.size() + 9), BulkPacket::Append::added);
}

TEST(ResultHead, MetadataFollowsByte) {
    auto head = [](Bytes b, bool cache) { return protocol::parse_column_count_head(b, cache); };
    EXPECT_EQ(head({5}, false).columns, 5u);
    EXPECT_TRUE(head({5}, false).metadata_follows);
    EXPECT_FALSE(head({5, 0}, true).metadata_follows);
    EXPECT_TRUE(head({0xFC, 0x2C, 0x01, 1}, true).metadata_follows);
    EXPECT_EQ(head({0xFC, 0x2C, 0x01, 1}, true).columns, 300u);
    EXPECT_EQ(kind_of([&] { head({5}, true); }), ErrorKind::protocol);        // byte missing
    EXPECT_EQ(kind_of([&] { head({5, 2}, true); }), ErrorKind::protocol);     // not 0/1
    EXPECT_EQ(kind_of([&] { head({5, 0}, false); }), ErrorKind::protocol);    // trailing byte
    EXPECT_EQ(kind_of([&] { head({0, 1}, true); }), ErrorKind::protocol);     // zero columns
    EXPECT_EQ(kind_of([&] { head({}, true); }), ErrorKind::protocol);
}

TEST(ResultHead, LocalInfileRequestAndFetch) {
    const Bytes req{0xFB, '/', 'e', 't', 'c', '/', 'p', 'a', 's', 's', 'w', 'd'};
    EXPECT_TRUE(protocol::is_local_infile_request(req));
    EXPECT_EQ(protocol::parse_local_infile_request(req), "/etc/passwd");
    EXPECT_EQ(protocol::parse_local_infile_request(Bytes{0xFB}), "");
    EXPECT_FALSE(protocol::is_local_infile_request(Bytes{}));
    EXPECT_EQ(kind_of([] { protocol::parse_local_infile_request(Bytes{}); }), ErrorKind::protocol);
    Bytes out;
    protocol::Writer w(out);
    protocol::write_stmt_fetch(w, 9, 512);
    EXPECT_EQ(out, (Bytes{0x1C, 9, 0, 0, 0, 0x00, 0x02, 0, 0}));
}

TEST(Literals, StringsUnderBothEscapingModes) {
    auto lit = [](std::string_view s, bool nbe) {
        std::string out;
        append_string_literal(out, s, nbe);
        return out;
    };
    EXPECT_EQ(lit("it's", false), "'it\\'s'");
    EXPECT_EQ(lit("it's", true), "'it''s'");
    EXPECT_EQ(lit("a\\b", false), "'a\\\\b'");
    EXPECT_EQ(lit("a\\b", true), "'a\\b'");
    EXPECT_EQ(lit("\0\n\r\x1a\""s, false), "'\\0\\n\\r\\Z\\\"'");
    EXPECT_EQ(lit("\0\n\r\x1a\""s, true), "'\0\n\r\x1a\"'"s);
    EXPECT_EQ(lit("\xF0\x9F\x98\x80'", false), "'\xF0\x9F\x98\x80\\''");
    EXPECT_EQ(lit("", true), "''");
}

TEST(Literals, ValuesOfEveryKind) {
    auto lit = [](const protocol::ParamValue& v) {
        std::string out;
        append_literal(out, v, false);
        return out;
    };
    EXPECT_EQ(lit(bind::null()), "NULL");
    EXPECT_EQ(lit(bind::value(std::numeric_limits<std::int64_t>::min())), "-9223372036854775808");
    EXPECT_EQ(lit(bind::value(std::numeric_limits<std::uint64_t>::max())), "18446744073709551615");
    EXPECT_EQ(lit(bind::value(0.1)), "0.1");
    EXPECT_EQ(lit(bind::value(1e300)), "1e+300");
    EXPECT_EQ(lit(bind::value(std::vector<std::uint8_t>{0x00, 0xAB, 0xFF})), "X'00ABFF'");
    EXPECT_EQ(lit(bind::value(Decimal::from_string("-12.50"))), "-12.50");
    EXPECT_EQ(lit(bind::value(Date{2024, 2, 29})), "'2024-02-29'");
    EXPECT_EQ(lit(bind::value(DateTime{2024, 2, 29, 1, 2, 3, 450000})), "'2024-02-29 01:02:03.450000'");
    EXPECT_EQ(lit(bind::value(Time{true, 100, 2, 3, 0})), "'-100:02:03'");
    EXPECT_EQ(kind_of([&] { lit(bind::value(std::nan(""))); }), ErrorKind::usage);
    EXPECT_EQ(kind_of([&] { lit(bind::value(-std::numeric_limits<double>::infinity())); }), ErrorKind::usage);
}

}  // namespace
}  // namespace sluice::mariadb
