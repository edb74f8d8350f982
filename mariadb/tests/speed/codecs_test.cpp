// The speed features' sans-I/O pieces on byte vectors: the bulk packet
// encoder, the column count with the metadata-follows byte, the LOCAL
// INFILE request, COM_STMT_FETCH, SQL literal escaping, and the binary row
// decoder's fast path (cursor and prepared rows) against its checked path,
// and the binary integer read's fast path at every boundary.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "sluice/mariadb/error.hpp"
#include "sluice/mariadb/protocol/bulk.hpp"
#include "sluice/mariadb/protocol/commands.hpp"
#include "sluice/mariadb/protocol/result_head.hpp"
#include "sluice/mariadb/protocol/rows.hpp"
#include "sluice/mariadb/row.hpp"
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

// append() sizes rows of numbers, text, blobs and decimals first and
// stores them through a pointer; temporal values go through the Writer.
// Both must give the bytes write_param_value gives, and the same verdicts.
TEST(BulkPacket, TheSizedFastPathWritesWhatTheWriterWrites) {
    std::mt19937 rng(20261130);  // 32-bit results: the casts below are exact
    const std::string long_text(70000, 'z');  // a 4-byte length (0xFD)
    const std::string mid_text(300, 'y');     // a 3-byte length (0xFC)
    const std::vector<std::uint8_t> blob{0, 0xFB, 0xFF, 7};
    const Decimal decimal = Decimal::from_string("-12345.678");
    // Values point at their bytes: every text and blob outlives the rows.
    const std::string shorts[] = {"", "a", "abc", "0123456789abcdefghi"};
    auto random_param = [&](std::size_t column) -> BulkParam {
        switch ((rng() + column) % 13) {
            case 0: return value_of(bind::value(static_cast<std::int64_t>(rng()) - (1ll << 31)));
            case 1: return value_of(bind::value(std::uint64_t{rng()} << 32 | std::uint64_t{rng()}));
            case 2: return value_of(bind::value(static_cast<double>(rng()) / 7.0));
            case 3: return value_of(bind::value(static_cast<float>(rng() % 1000) / 3.0f));
            case 4: return value_of(bind::value(shorts[rng() % 4]));
            case 5: return value_of(bind::value(rng() % 2 ? mid_text : long_text));
            case 6: return value_of(bind::value(std::span<const std::uint8_t>(blob)));
            case 7: return value_of(bind::value(decimal));
            case 8: return value_of(bind::null());
            case 9: return value_of(bind::null(), static_cast<Indicator>(1 + rng() % 3));
            case 10: return value_of(bind::value(DateTime{2026, 11, 30, 20, 15, 1, rng() % 2 ? 0u : 123456u}));
            case 11: return value_of(bind::value(Date{1999, 12, 31}));
            default: return value_of(bind::value(Time{rng() % 2 == 0, static_cast<std::uint32_t>(rng() % 900), 59, 58, rng() % 2 ? 0u : 7u}));
        }
    };
    for (int trial = 0; trial < 5000; ++trial) {
        const std::size_t width = 1 + rng() % 4;
        std::vector<BulkParam> row;
        for (std::size_t c = 0; c < width; ++c) row.push_back(random_param(c));
        // The reference: indicator byte, then the value as COM_STMT_EXECUTE writes it.
        Bytes expected;
        protocol::Writer w(expected);
        for (const BulkParam& p : row) {
            const bool value = p.indicator == Indicator::none && p.value.kind != protocol::ParamValue::Kind::null;
            w.u8(static_cast<std::uint8_t>(!value && p.indicator == Indicator::none ? Indicator::null : p.indicator));
            if (value) protocol::write_param_value(w, p.value);
        }
        Bytes out;
        BulkPacket packet(out, 9, width);
        const std::size_t header = out.size();
        // One byte short of room: refused and untouched; exactly enough: added.
        const Bytes empty = out;
        ASSERT_EQ(packet.append(row, header + expected.size() - 1), BulkPacket::Append::too_large) << trial;
        ASSERT_EQ(out, empty) << trial;
        ASSERT_EQ(packet.append(row, header + expected.size()), BulkPacket::Append::added) << trial;
        ASSERT_EQ(Bytes(out.begin() + static_cast<std::ptrdiff_t>(header), out.end()), expected) << trial;
    }
}

// A packet fixes each parameter's type with the first value bound to it;
// a later value of another kind is a type change exactly when its announced
// (type, unsigned flag) differs, which for the value kinds is one to one.
TEST(BulkPacket, ATypeChangeIsExactlyAChangeOfAnnouncedType) {
    const std::string text = "t";
    const std::vector<std::uint8_t> blob{1, 2};
    const Decimal decimal = Decimal::from_string("1.5");
    const protocol::ParamValue kinds[] = {
        bind::value(std::int64_t{-1}), bind::value(std::uint64_t{1}), bind::value(1.5f), bind::value(2.5),
        bind::value(text), bind::value(std::span<const std::uint8_t>(blob)), bind::value(decimal),
        bind::value(Date{2026, 1, 2}), bind::value(Time{false, 1, 2, 3, 0}),
        bind::value(DateTime{2026, 1, 2, 3, 4, 5, 0}),
    };
    for (const protocol::ParamValue& first : kinds) {
        for (const protocol::ParamValue& second : kinds) {
            Bytes out;
            BulkPacket packet(out, 1, 1);
            const BulkParam a[] = {value_of(first)};
            const BulkParam b[] = {value_of(second)};
            ASSERT_EQ(packet.append(a, 1000), BulkPacket::Append::added);
            const bool same_announcement = first.wire_type() == second.wire_type() &&
                                           (first.kind == protocol::ParamValue::Kind::uint64) ==
                                               (second.kind == protocol::ParamValue::Kind::uint64);
            EXPECT_EQ(packet.append(b, 1000),
                      same_announcement ? BulkPacket::Append::added : BulkPacket::Append::type_change);
        }
    }
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

// A binary row: header, NULL bitmap, then each value as given (already
// encoded, length prefix included).
Bytes binary_row(std::size_t columns, const std::vector<std::size_t>& nulls, const std::vector<Bytes>& values) {
    Bytes row{0x00};
    Bytes bitmap(protocol::binary_row_null_bitmap_size(columns), 0);
    for (std::size_t i : nulls) bitmap[(i + 2) / 8] |= static_cast<std::uint8_t>(1u << ((i + 2) % 8));
    row.insert(row.end(), bitmap.begin(), bitmap.end());
    for (const Bytes& v : values) row.insert(row.end(), v.begin(), v.end());
    return row;
}

Bytes lenenc_value(std::size_t n, std::uint8_t fill) {
    Bytes v;
    if (n < 0xFB) {
        v.push_back(static_cast<std::uint8_t>(n));
    } else if (n < (1u << 16)) {
        v = {0xFC, static_cast<std::uint8_t>(n), static_cast<std::uint8_t>(n >> 8)};
    } else if (n < (1u << 24)) {
        v = {0xFD, static_cast<std::uint8_t>(n), static_cast<std::uint8_t>(n >> 8), static_cast<std::uint8_t>(n >> 16)};
    } else {
        v = {0xFE};
        for (int k = 0; k < 8; ++k) v.push_back(static_cast<std::uint8_t>(n >> (8 * k)));
    }
    v.insert(v.end(), n, fill);
    return v;
}

TEST(BinaryRowDecoder, EveryLengthFormAndTypeDecodesToTheRightSlices) {
    using protocol::ColumnType;
    const std::vector<ColumnType> types{ColumnType::longlong, ColumnType::var_string, ColumnType::tiny,
                                        ColumnType::blob,     ColumnType::datetime,   ColumnType::time,
                                        ColumnType::blob,     ColumnType::var_string, ColumnType::double_,
                                        ColumnType::var_string};
    const std::vector<std::size_t> lengths{250, 251, 70000, 0};
    for (std::size_t len : lengths) {
        const Bytes row = binary_row(types.size(), {2, 9},
                                     {Bytes{1, 2, 3, 4, 5, 6, 7, 8}, lenenc_value(len, 'a'), lenenc_value(3, 'b'),
                                      Bytes{7, 0xE8, 0x07, 2, 29, 23, 59, 58}, Bytes{0}, lenenc_value(300, 'c'),
                                      lenenc_value(0, 'd'), Bytes{0, 0, 0, 0, 0, 0, 0xF0, 0x3F}});
        std::vector<protocol::FieldSlice> out(types.size());
        protocol::decode_binary_row(row, types, out);
        EXPECT_EQ(out[0].bytes.size(), 8u);
        EXPECT_EQ(out[0].bytes[7], 8);
        EXPECT_EQ(out[1].bytes.size(), len);
        EXPECT_TRUE(out[2].null);
        EXPECT_EQ(protocol::as_text(out[3].bytes), "bbb");
        EXPECT_EQ(protocol::decode_binary_datetime(out[4].bytes), (DateTime{2024, 2, 29, 23, 59, 58, 0}));
        EXPECT_TRUE(out[5].bytes.empty());
        EXPECT_FALSE(out[5].null);
        EXPECT_EQ(out[6].bytes.size(), 300u);
        EXPECT_EQ(out[6].bytes[299], 'c');
        EXPECT_TRUE(out[7].bytes.empty());
        EXPECT_EQ(out[8].bytes[7], 0x3F);
        EXPECT_TRUE(out[9].null);
        // Every truncation, and one byte too many, is a protocol error.
        for (std::size_t n = 0; n < row.size(); n += (n < 400 ? 1 : 997)) {
            const Bytes cut(row.begin(), row.begin() + static_cast<std::ptrdiff_t>(n));
            EXPECT_EQ(kind_of([&] { protocol::decode_binary_row(cut, types, out); }), ErrorKind::protocol)
                << len << " cut at " << n;
        }
        Bytes longer = row;
        longer.push_back(0);
        EXPECT_EQ(kind_of([&] { protocol::decode_binary_row(longer, types, out); }), ErrorKind::protocol);
    }
}

TEST(BinaryRowDecoder, RowsTheFastPathDeclinesAreDecodedOrRefusedByTheCheckedPath) {
    using protocol::ColumnType;
    std::vector<protocol::FieldSlice> out(1);
    const std::vector<ColumnType> text{ColumnType::var_string};
    // An 8-byte length prefix (0xFE): decoded.
    const Bytes eight = binary_row(1, {}, {lenenc_value(1u << 24, 'z')});
    protocol::decode_binary_row(eight, text, out);
    EXPECT_EQ(out[0].bytes.size(), 1u << 24);
    // 0xFB and 0xFF are no lengths; a NULL-typed column must be NULL; a
    // DATETIME length of 5 does not exist; the header must be 0x00.
    EXPECT_EQ(kind_of([&] { protocol::decode_binary_row(binary_row(1, {}, {Bytes{0xFB}}), text, out); }),
              ErrorKind::protocol);
    EXPECT_EQ(kind_of([&] { protocol::decode_binary_row(binary_row(1, {}, {Bytes{0xFF}}), text, out); }),
              ErrorKind::protocol);
    const std::vector<ColumnType> null_type{ColumnType::null};
    EXPECT_EQ(kind_of([&] { protocol::decode_binary_row(binary_row(1, {}, {}), null_type, out); }),
              ErrorKind::protocol);
    protocol::decode_binary_row(binary_row(1, {0}, {}), null_type, out);
    EXPECT_TRUE(out[0].null);
    const std::vector<ColumnType> dt{ColumnType::datetime};
    EXPECT_EQ(kind_of([&] { protocol::decode_binary_row(binary_row(1, {}, {Bytes{5, 1, 2, 3, 4, 5}}), dt, out); }),
              ErrorKind::protocol);
    Bytes bad_header = binary_row(1, {0}, {});
    bad_header[0] = 0x01;
    EXPECT_EQ(kind_of([&] { protocol::decode_binary_row(bad_header, dt, out); }), ErrorKind::protocol);
}

// Either the error message, or every slice as (null, offset, length).
std::string decode_outcome(void (*decode)(protocol::Bytes, std::span<const ColumnType>, std::span<protocol::FieldSlice>),
                           const Bytes& row, const std::vector<ColumnType>& types) {
    std::vector<protocol::FieldSlice> out(types.size());
    try {
        decode(row, types, out);
    } catch (const Error& e) {
        return std::string(to_string(e.kind())) + ": " + e.what();
    }
    std::string s;
    for (const protocol::FieldSlice& f : out) {
        s += f.null ? "N" : std::to_string(f.bytes.data() - row.data()) + "+" + std::to_string(f.bytes.size());
        s += ' ';
    }
    return s;
}

TEST(BinaryRowDecoder, FastAndCheckedPathsAgreeOnMutatedRows) {
    // Valid rows of every value form, then 20,000 deterministic mutations
    // (byte flips, truncations, insertions): both decoders give the same
    // slices or the same error, message included.
    const std::vector<ColumnType> types{ColumnType::longlong, ColumnType::var_string, ColumnType::tiny,
                                        ColumnType::datetime, ColumnType::time,       ColumnType::blob,
                                        ColumnType::short_,   ColumnType::null,       ColumnType::float_,
                                        ColumnType::date};
    std::vector<Bytes> seeds;
    seeds.push_back(binary_row(types.size(), {7}, {Bytes(8, 1), lenenc_value(5, 'x'), Bytes{9}, Bytes{4, 0xE8, 7, 1, 2},
                                                   Bytes{8, 1, 2, 0, 0, 0, 3, 4, 5}, lenenc_value(300, 'y'), Bytes{1, 2},
                                                   Bytes{0, 0, 0x80, 0x3F}, Bytes{0}}));
    seeds.push_back(binary_row(types.size(), {1, 3, 5, 7, 9}, {Bytes(8, 0xFF), Bytes{7}, Bytes{0}, Bytes{3, 4}, Bytes(4, 0)}));
    seeds.push_back(binary_row(types.size(), {7}, {Bytes(8, 2), lenenc_value(70000, 'z'), Bytes{1},
                                                   Bytes{11, 0xE8, 7, 1, 2, 3, 4, 5, 1, 0, 0, 0}, Bytes{0},
                                                   lenenc_value(0, 'q'), Bytes{0, 0}, Bytes(4, 0), Bytes{4, 1, 1, 1, 1}}));
    std::uint64_t state = 0x9E3779B97F4A7C15ull;
    auto next = [&state] {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        return state;
    };
    std::size_t agreed_errors = 0, agreed_rows = 0;
    for (int i = 0; i < 20000; ++i) {
        Bytes row = seeds[static_cast<std::size_t>(i) % seeds.size()];
        const int edits = 1 + static_cast<int>(next() % 3);
        for (int e = 0; e < edits && !row.empty(); ++e) {
            const std::size_t at = next() % row.size();
            switch (next() % 4) {
                case 0: row[at] = static_cast<std::uint8_t>(next()); break;
                case 1: row.resize(at); break;
                case 2: row.insert(row.begin() + static_cast<std::ptrdiff_t>(at), static_cast<std::uint8_t>(next())); break;
                default: row[at] = static_cast<std::uint8_t>(row[at] ^ (1u << (next() % 8))); break;
            }
        }
        const std::string fast = decode_outcome(&protocol::decode_binary_row, row, types);
        const std::string checked = decode_outcome(&protocol::decode_binary_row_checked, row, types);
        ASSERT_EQ(fast, checked) << "mutation " << i;
        ++(fast.rfind("protocol: ", 0) == 0 ? agreed_errors : agreed_rows);
    }
    // Both outcomes were exercised.
    EXPECT_GT(agreed_errors, 500u);
    EXPECT_GT(agreed_rows, 500u);
}

// A binary-protocol field of an integer column holding `value` in `width`
// little-endian bytes.
struct BinaryInt {
    Column column;
    Bytes bytes;
    BinaryInt(ColumnType type, bool is_unsigned, std::uint64_t value, std::size_t width) {
        column.name = "n";
        column.type = type;
        column.flags = is_unsigned ? protocol::column_flag::unsigned_ : 0;
        for (std::size_t i = 0; i < width; ++i) bytes.push_back(static_cast<std::uint8_t>(value >> (8 * i)));
    }
    Field field() const { return Field(column, protocol::FieldSlice{bytes, false}, true); }
};

TEST(BinaryIntegerRead, EveryWidthSignednessAndTargetBoundary) {
    using L = std::numeric_limits<std::int64_t>;
    // Signed columns: sign-extended from their width.
    EXPECT_EQ(BinaryInt(ColumnType::tiny, false, 0x80, 1).field().get<std::int8_t>(), -128);
    EXPECT_EQ(BinaryInt(ColumnType::tiny, false, 0x7F, 1).field().get<std::int64_t>(), 127);
    EXPECT_EQ(BinaryInt(ColumnType::short_, false, 0x8000, 2).field().get<std::int16_t>(), -32768);
    EXPECT_EQ(BinaryInt(ColumnType::int24, false, 0xFF800000u, 4).field().get<std::int32_t>(), -8388608);
    EXPECT_EQ(BinaryInt(ColumnType::long_, false, 0x80000000u, 4).field().get<std::int64_t>(), -2147483648LL);
    EXPECT_EQ(BinaryInt(ColumnType::longlong, false, 0x8000000000000000ull, 8).field().get<std::int64_t>(), L::min());
    EXPECT_EQ(BinaryInt(ColumnType::longlong, false, 0x7FFFFFFFFFFFFFFFull, 8).field().get<std::int64_t>(), L::max());
    EXPECT_EQ(BinaryInt(ColumnType::longlong, false, 5, 8).field().get<std::uint8_t>(), 5u);
    // Unsigned columns and YEAR: zero-extended.
    EXPECT_EQ(BinaryInt(ColumnType::tiny, true, 0xFF, 1).field().get<std::uint8_t>(), 255u);
    EXPECT_EQ(BinaryInt(ColumnType::tiny, true, 0xFF, 1).field().get<std::int16_t>(), 255);
    EXPECT_EQ(BinaryInt(ColumnType::longlong, true, ~0ull, 8).field().get<std::uint64_t>(), ~0ull);
    EXPECT_EQ(BinaryInt(ColumnType::year, false, 2155, 2).field().get<std::uint16_t>(), 2155u);
    EXPECT_EQ(BinaryInt(ColumnType::year, false, 2155, 2).field().get<std::int16_t>(), 2155);
    // Out of the target's range: Error{conversion}, never a wrap.
    EXPECT_EQ(kind_of([] { BinaryInt(ColumnType::tiny, false, 0x80, 1).field().get<std::uint64_t>(); }),
              ErrorKind::conversion);
    EXPECT_EQ(kind_of([] { BinaryInt(ColumnType::short_, false, 128, 2).field().get<std::int8_t>(); }),
              ErrorKind::conversion);
    EXPECT_EQ(kind_of([] { BinaryInt(ColumnType::longlong, true, ~0ull, 8).field().get<std::int64_t>(); }),
              ErrorKind::conversion);
    EXPECT_EQ(kind_of([] { BinaryInt(ColumnType::long_, true, 0x10000, 4).field().get<std::uint16_t>(); }),
              ErrorKind::conversion);
    EXPECT_EQ(kind_of([] { BinaryInt(ColumnType::year, false, 2155, 2).field().get<std::int8_t>(); }),
              ErrorKind::conversion);
    // Not an integer column, or bytes of another width: the general path.
    BinaryInt dbl(ColumnType::double_, false, 0x4014000000000000ull, 8);  // 5.0
    EXPECT_EQ(dbl.field().get<int>(), 5);
    BinaryInt narrow(ColumnType::longlong, false, 0xFE, 1);  // a 1-byte value in a BIGINT column
    EXPECT_EQ(narrow.field().get<std::int64_t>(), -2);
}

}  // namespace
}  // namespace sluice::mariadb
