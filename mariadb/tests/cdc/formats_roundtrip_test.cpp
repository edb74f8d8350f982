// The CDC line's writer and reader together (cdc/formats): for every column
// type the CDC emits, random values written into a line by the writer
// (ndjson.hpp) and read back by the reader (ndjson_reader.hpp) are the same
// values, as the format defines them (docs/mariadb-cdc.md): integers and
// doubles exactly, a FLOAT as the double of its shortest text (which turns
// back into the same float), DECIMAL and temporal values as their text,
// bytes as base64 of the same bytes, NULL as NULL. The expectations are
// computed here from the values, not by the writer's code, except the text
// of SET/UUID/INET (binlog::append_text, what SELECT shows).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <ctime>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "sluice/mariadb/cdc/ndjson.hpp"
#include "sluice/mariadb/cdc/ndjson_reader.hpp"
#include "sluice/mariadb/error.hpp"

namespace sluice::mariadb::cdc::ndjson {
namespace {

using binlog::ColumnInfo;
using binlog::ColumnType;
using binlog::Value;

// What the reader must give for a value.
struct Expected {
    enum class Kind { null, integer, floating, float_of, text, base64 } kind = Kind::null;
    bool negative = false;  // integer: its sign and magnitude
    std::uint64_t magnitude = 0;
    double d = 0;
    float f = 0;
    std::string text;  // text; base64: the decoded bytes
};

Expected integer(std::int64_t v) {
    Expected e;
    e.kind = Expected::Kind::integer;
    e.negative = v < 0;
    e.magnitude = v < 0 ? std::uint64_t{0} - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v);
    return e;
}
Expected integer(std::uint64_t v) {
    Expected e;
    e.kind = Expected::Kind::integer;
    e.magnitude = v;
    return e;
}

std::string decode_base64(std::string_view s) {
    auto digit = [](char c) -> int {
        if (c >= 'A' && c <= 'Z') return c - 'A';
        if (c >= 'a' && c <= 'z') return c - 'a' + 26;
        if (c >= '0' && c <= '9') return c - '0' + 52;
        if (c == '+') return 62;
        if (c == '/') return 63;
        return -1;
    };
    std::string out;
    std::uint32_t acc = 0;
    int bits = 0;
    for (char c : s) {
        if (c == '=') break;
        const int d = digit(c);
        if (d < 0) return "<not base64>";
        acc = (acc << 6) | static_cast<std::uint32_t>(d);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out.push_back(static_cast<char>((acc >> bits) & 0xFF));
        }
    }
    return out;
}

// One generated cell: its value, column and expectation, and storage the
// value's views point into.
struct Sample {
    ColumnInfo column;
    Value value;
    bool null = false;
    Expected expected;
    std::shared_ptr<std::string> bytes = std::make_shared<std::string>();
    std::shared_ptr<std::vector<std::string>> names = std::make_shared<std::vector<std::string>>();
};

ColumnInfo column_of(ColumnType t, std::uint8_t fsp = 0) {
    ColumnInfo c;
    c.type = t;
    c.binlog_type = t;
    c.fsp = fsp;
    return c;
}

// Random valid UTF-8 with every kind of byte JSON escapes.
std::string utf8_text(std::mt19937_64& rng) {
    static const char* const pieces[] = {"a", "Z", "0", " ", "\"", "\\", "/", "\n", "\t", "\r", "\x01", "\x1f", "\x7f",
                                         "\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80", "\xE2\x80\xA8", "{", "}", ","};
    std::string s;
    const std::size_t n = rng() % 40;
    for (std::size_t i = 0; i < n; ++i) s += pieces[rng() % (sizeof pieces / sizeof pieces[0])];
    return s;
}

std::string digits(std::mt19937_64& rng, std::size_t n) {
    std::string s;
    for (std::size_t i = 0; i < n; ++i) s.push_back(static_cast<char>('0' + rng() % 10));
    return s;
}

// Every column type the CDC emits, each a generator of samples.
std::vector<std::pair<std::string, std::function<void(Sample&, std::mt19937_64&)>>> generators() {
    using K = Expected::Kind;
    return {
        {"TINYINT..BIGINT", [](Sample& s, std::mt19937_64& r) {
             const ColumnType types[] = {ColumnType::tiny, ColumnType::short_, ColumnType::int24, ColumnType::long_,
                                         ColumnType::longlong};
             s.column = column_of(types[r() % 5]);
             const std::int64_t v = r() % 4 == 0 ? std::numeric_limits<std::int64_t>::min() + static_cast<std::int64_t>(r() % 3)
                                                 : static_cast<std::int64_t>(r());
             s.value = v;
             s.expected = integer(v);
         }},
        {"BIGINT UNSIGNED", [](Sample& s, std::mt19937_64& r) {
             s.column = column_of(ColumnType::longlong);
             s.column.is_unsigned = true;
             const std::uint64_t v = r() % 4 == 0 ? std::numeric_limits<std::uint64_t>::max() - r() % 3 : r();
             s.value = v;
             s.expected = integer(v);
         }},
        {"FLOAT", [](Sample& s, std::mt19937_64& r) {
             s.column = column_of(ColumnType::float_);
             float f = 0;
             do {
                 const auto bits = static_cast<std::uint32_t>(r());
                 std::memcpy(&f, &bits, sizeof f);
             } while (!std::isfinite(f));
             if (r() % 8 == 0) f = static_cast<float>(static_cast<std::int32_t>(r() % 100000));  // integral
             s.value = f;
             s.expected.kind = K::float_of;
             s.expected.f = f;
         }},
        {"DOUBLE", [](Sample& s, std::mt19937_64& r) {
             s.column = column_of(ColumnType::double_);
             double d = 0;
             do {
                 const std::uint64_t bits = r();
                 std::memcpy(&d, &bits, sizeof d);
             } while (!std::isfinite(d));
             if (r() % 8 == 0) d = static_cast<double>(static_cast<std::int64_t>(r() % 1000000) - 500000);
             s.value = d;
             s.expected.kind = K::floating;
             s.expected.d = d;
         }},
        {"FLOAT/DOUBLE not finite", [](Sample& s, std::mt19937_64& r) {
             const double values[] = {std::nan(""), HUGE_VAL, -HUGE_VAL};
             const char* const texts[] = {"nan", "inf", "-inf"};
             const std::size_t i = r() % 3;
             if (r() % 2) {
                 s.column = column_of(ColumnType::double_);
                 s.value = values[i];
             } else {
                 s.column = column_of(ColumnType::float_);
                 s.value = static_cast<float>(values[i]);
             }
             s.expected.kind = K::text;
             s.expected.text = texts[i];
         }},
        {"DECIMAL", [](Sample& s, std::mt19937_64& r) {
             const std::size_t scale = r() % 10, integer = 1 + r() % 30;
             std::string t = (r() % 2 ? "-" : "") + digits(r, integer) + (scale ? "." + digits(r, scale) : "");
             s.column = column_of(ColumnType::newdecimal);
             s.column.precision = static_cast<std::uint8_t>(integer + scale);
             s.column.scale = static_cast<std::uint8_t>(scale);
             s.value = Decimal::from_string(t);
             s.expected.kind = K::text;
             s.expected.text = Decimal::from_string(t).to_string();
         }},
        {"DATE", [](Sample& s, std::mt19937_64& r) {
             s.column = column_of(ColumnType::date);
             Date d{static_cast<std::uint16_t>(r() % 10000), static_cast<std::uint8_t>(1 + r() % 12),
                    static_cast<std::uint8_t>(1 + r() % 28)};
             s.value = d;
             char buf[16];
             std::snprintf(buf, sizeof buf, "%04u-%02u-%02u", d.year, d.month, d.day);
             s.expected.kind = K::text;
             s.expected.text = buf;
         }},
        {"TIME(fsp)", [](Sample& s, std::mt19937_64& r) {
             const auto fsp = static_cast<std::uint8_t>(r() % 7);
             s.column = column_of(ColumnType::time2, fsp);
             Time t{r() % 2 == 0, static_cast<std::uint32_t>(r() % 839), static_cast<std::uint8_t>(r() % 60),
                    static_cast<std::uint8_t>(r() % 60), 0};
             std::uint32_t scale = 1;
             for (int i = fsp; i < 6; ++i) scale *= 10;
             t.microseconds = static_cast<std::uint32_t>(r() % 1000000) / scale * scale;
             if (t.hours == 0 && t.minutes == 0 && t.seconds == 0 && t.microseconds == 0) t.negative = false;
             s.value = t;
             char buf[32];
             int n = std::snprintf(buf, sizeof buf, "%s%02u:%02u:%02u", t.negative ? "-" : "", t.hours, t.minutes,
                                   t.seconds);
             if (fsp) {
                 char frac[8];
                 std::snprintf(frac, sizeof frac, "%06u", t.microseconds);
                 n += std::snprintf(buf + n, sizeof buf - static_cast<std::size_t>(n), ".%.*s", fsp, frac);
             }
             s.expected.kind = K::text;
             s.expected.text = buf;
         }},
        {"DATETIME(fsp)", [](Sample& s, std::mt19937_64& r) {
             const auto fsp = static_cast<std::uint8_t>(r() % 7);
             s.column = column_of(ColumnType::datetime2, fsp);
             std::uint32_t scale = 1;
             for (int i = fsp; i < 6; ++i) scale *= 10;
             DateTime t{static_cast<std::uint16_t>(1000 + r() % 9000), static_cast<std::uint8_t>(1 + r() % 12),
                        static_cast<std::uint8_t>(1 + r() % 28), static_cast<std::uint8_t>(r() % 24),
                        static_cast<std::uint8_t>(r() % 60), static_cast<std::uint8_t>(r() % 60),
                        static_cast<std::uint32_t>(r() % 1000000) / scale * scale};
             s.value = t;
             char buf[40];
             int n = std::snprintf(buf, sizeof buf, "%04u-%02u-%02u %02u:%02u:%02u", t.year, t.month, t.day, t.hour,
                                   t.minute, t.second);
             if (fsp) {
                 char frac[8];
                 std::snprintf(frac, sizeof frac, "%06u", t.microsecond);
                 std::snprintf(buf + n, sizeof buf - static_cast<std::size_t>(n), ".%.*s", fsp, frac);
             }
             s.expected.kind = K::text;
             s.expected.text = buf;
         }},
        {"TIMESTAMP(fsp)", [](Sample& s, std::mt19937_64& r) {
             const auto fsp = static_cast<std::uint8_t>(r() % 7);
             s.column = column_of(ColumnType::timestamp2, fsp);
             std::uint32_t scale = 1;
             for (int i = fsp; i < 6; ++i) scale *= 10;
             const binlog::Timestamp ts{static_cast<std::int64_t>(1 + r() % 2147483647),
                                        static_cast<std::uint32_t>(r() % 1000000) / scale * scale};
             s.value = ts;
             // In UTC (gmtime), the column's fsp digits.
             const std::time_t secs = static_cast<std::time_t>(ts.seconds);
             std::tm tm{};
             gmtime_r(&secs, &tm);
             char buf[40];
             int n = static_cast<int>(std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm));
             if (fsp) {
                 char frac[8];
                 std::snprintf(frac, sizeof frac, "%06u", ts.microseconds);
                 std::snprintf(buf + n, sizeof buf - static_cast<std::size_t>(n), ".%.*s", fsp, frac);
             }
             s.expected.kind = K::text;
             s.expected.text = buf;
         }},
        {"YEAR", [](Sample& s, std::mt19937_64& r) {
             s.column = column_of(ColumnType::year);
             const auto y = static_cast<std::uint16_t>(r() % 2 ? 0 : 1901 + r() % 255);
             s.value = binlog::Year{y};
             s.expected = integer(std::uint64_t{y});
         }},
        {"BIT(n)", [](Sample& s, std::mt19937_64& r) {
             const auto width = static_cast<std::uint8_t>(1 + r() % 64);
             s.column = column_of(ColumnType::bit);
             s.column.bit_width = width;
             const std::uint64_t v = width == 64 ? r() : r() & ((std::uint64_t{1} << width) - 1);
             s.value = binlog::Bit{v, width};
             s.expected = integer(v);
         }},
        {"CHAR/VARCHAR/TEXT", [](Sample& s, std::mt19937_64& r) {
             s.column = column_of(ColumnType::varchar);
             *s.bytes = utf8_text(r);
             s.value = binlog::Text{*s.bytes};
             s.expected.kind = K::text;
             s.expected.text = *s.bytes;
         }},
        {"JSON", [](Sample& s, std::mt19937_64& r) {
             s.column = column_of(ColumnType::blob);
             s.column.schema_type = binlog::SchemaType::json;
             *s.bytes = "{\"k\":\"" + utf8_text(r) + "\",\"n\":" + digits(r, 3) + "}";
             s.value = binlog::Json{*s.bytes};
             s.expected.kind = K::text;
             s.expected.text = *s.bytes;
         }},
        {"ENUM", [](Sample& s, std::mt19937_64& r) {
             s.column = column_of(ColumnType::enum_);
             *s.bytes = utf8_text(r);
             s.value = binlog::Enum{static_cast<std::uint16_t>(1 + r() % 5), *s.bytes};
             s.expected.kind = K::text;
             s.expected.text = *s.bytes;
         }},
        {"SET", [](Sample& s, std::mt19937_64& r) {
             s.column = column_of(ColumnType::set);
             *s.names = {"red", "green", "blue", "x y"};
             s.column.set_values = *s.names;
             s.value = binlog::Set{r() % 16, *s.names};
             s.expected.kind = K::text;
             s.expected.text = binlog::to_text(s.value, s.column);
         }},
        {"BINARY/VARBINARY/BLOB", [](Sample& s, std::mt19937_64& r) {
             s.column = column_of(r() % 2 ? ColumnType::blob : ColumnType::string);
             const std::size_t n = r() % 50;
             for (std::size_t i = 0; i < n; ++i) s.bytes->push_back(static_cast<char>(r() % 256));
             const std::size_t padding = s.column.type == ColumnType::string ? r() % 4 : 0;  // BINARY(n)
             const auto* data = reinterpret_cast<const std::uint8_t*>(s.bytes->data());
             s.value = binlog::Blob{binlog::Bytes(data, n), static_cast<std::uint32_t>(n + padding)};
             s.expected.kind = K::base64;
             s.expected.text = *s.bytes + std::string(padding, '\0');
         }},
        {"GEOMETRY", [](Sample& s, std::mt19937_64& r) {
             s.column = column_of(ColumnType::geometry);
             const std::size_t n = 4 + r() % 40;
             for (std::size_t i = 0; i < n; ++i) s.bytes->push_back(static_cast<char>(r() % 256));
             s.value = binlog::Geometry{binlog::Bytes(reinterpret_cast<const std::uint8_t*>(s.bytes->data()), n)};
             s.expected.kind = K::base64;
             s.expected.text = *s.bytes;
         }},
        {"UUID/INET6/INET4", [](Sample& s, std::mt19937_64& r) {
             s.column = column_of(ColumnType::string);
             switch (r() % 3) {
                 case 0: {
                     binlog::Uuid u;
                     for (auto& b : u.bytes) b = static_cast<std::uint8_t>(r());
                     s.column.schema_type = binlog::SchemaType::uuid;
                     s.value = u;
                     break;
                 }
                 case 1: {
                     binlog::Inet6 a;
                     for (auto& b : a.bytes) b = r() % 3 ? 0 : static_cast<std::uint8_t>(r());
                     s.column.schema_type = binlog::SchemaType::inet6;
                     s.value = a;
                     break;
                 }
                 default: {
                     binlog::Inet4 a;
                     for (auto& b : a.bytes) b = static_cast<std::uint8_t>(r());
                     s.column.schema_type = binlog::SchemaType::inet4;
                     s.value = a;
                 }
             }
             s.expected.kind = K::text;
             s.expected.text = binlog::to_text(s.value, s.column);
         }},
    };
}

::testing::AssertionResult same(const LineValue& got, const Expected& want) {
    using K = Expected::Kind;
    using LK = LineValue::Kind;
    auto as_integer = [&](Expected& out) {
        if (got.kind == LK::signed_integer) out = integer(got.i);
        else if (got.kind == LK::unsigned_integer) out = integer(got.u);
        else return false;
        return true;
    };
    // A number as the reader gives it, as a double (an integral float or
    // double is written without a point, and read as an integer).
    auto as_double = [&](double& out) {
        Expected i;
        if (got.kind == LK::floating) out = got.d;
        else if (as_integer(i)) out = (i.negative ? -1.0 : 1.0) * static_cast<double>(i.magnitude);
        else return false;
        return true;
    };
    switch (want.kind) {
        case K::null:
            return got.kind == LK::null ? ::testing::AssertionSuccess() : ::testing::AssertionFailure() << "not NULL";
        case K::integer: {
            Expected i;
            if (as_integer(i) && i.negative == want.negative && i.magnitude == want.magnitude)
                return ::testing::AssertionSuccess();
            return ::testing::AssertionFailure() << "not the integer " << (want.negative ? "-" : "") << want.magnitude;
        }
        case K::floating: {
            double d = 0;
            if (as_double(d) && d == want.d) return ::testing::AssertionSuccess();
            return ::testing::AssertionFailure() << "not the double " << want.d << " (got " << d << ")";
        }
        case K::float_of: {
            double d = 0;
            if (!as_double(d)) return ::testing::AssertionFailure() << "not a number";
            if (d != float_value_as_read(want.f))
                return ::testing::AssertionFailure() << d << " is not float_value_as_read(" << want.f << ")";
            if (static_cast<float>(d) != want.f) return ::testing::AssertionFailure() << d << " is not the float " << want.f;
            return ::testing::AssertionSuccess();
        }
        case K::text:
            if (got.kind == LK::text && got.text == want.text) return ::testing::AssertionSuccess();
            return ::testing::AssertionFailure() << "not the text \"" << want.text << "\" (got \"" << got.text << "\")";
        case K::base64:
            if (got.kind == LK::text && decode_base64(got.text) == want.text) return ::testing::AssertionSuccess();
            return ::testing::AssertionFailure() << "not base64 of the bytes (got \"" << got.text << "\")";
    }
    return ::testing::AssertionFailure();
}

// Rows of random cells of every type (some NULL), written as a transaction
// line and a snapshot-like image, read back: the same values.
TEST(CdcFormatsRoundTrip, EveryColumnTypeReadsBackAsWritten) {
    std::mt19937_64 rng(30);
    const auto gens = generators();
    std::size_t checked = 0;
    for (int round = 0; round < 300; ++round) {
        std::vector<Sample> samples;
        binlog::TableMap table;
        table.db = "d\"b";
        table.table = "t\\1";
        std::vector<PickedColumn> picked;
        for (std::size_t g = 0; g < gens.size(); ++g) {
            Sample s;
            gens[g].second(s, rng);
            s.null = rng() % 10 == 0;
            if (s.null) s.expected = {};
            s.column.name = "c" + std::to_string(g) + (g % 3 == 0 ? " \xC3\xA9\"" : "");
            s.column.has_name = true;
            picked.push_back({s.column.name, gens[g].first});
            table.columns.push_back(s.column);
            samples.push_back(std::move(s));
        }
        std::vector<binlog::Cell> before(samples.size()), after(samples.size());
        for (std::size_t i = 0; i < samples.size(); ++i) {
            after[i] = {true, samples[i].null, samples[i].value};
            before[i] = {true, true, {}};
        }
        // {"op":"update",...,"before":{all NULL},"after":{the samples}}, as the writer frames a change.
        std::string line = R"({"gtid":"0-1-)" + std::to_string(round + 1) +
                           R"(","server_id":1,"ts":1764576000,"changes":[{"op":"update","db":"d\"b","table":"t\\1","before":)";
        append_image(line, before, table);
        line += ",\"after\":";
        append_image(line, after, table);
        line += "}]}";
        LineReader reader(picked, table.db, table.table);
        const Line* parsed = nullptr;
        try {
            parsed = &reader.parse(line, "round " + std::to_string(round));
        } catch (const Error& e) {
            FAIL() << e.what() << "\n" << line;
        }
        const Line& l = *parsed;
        ASSERT_EQ(l.kind, LineKind::transaction);
        ASSERT_EQ(l.gtid, "0-1-" + std::to_string(round + 1));
        ASSERT_EQ(l.changes.size(), 1U);
        const LineChange& c = l.changes[0];
        ASSERT_EQ(c.op, RowOp::update);
        ASSERT_EQ(c.after.size(), samples.size());
        ASSERT_EQ(c.before.size(), samples.size());
        for (std::size_t i = 0; i < samples.size(); ++i) {
            EXPECT_TRUE(same(c.after[i], samples[i].expected)) << gens[i].first << ", round " << round << "\n" << line;
            EXPECT_EQ(c.before[i].kind, LineValue::Kind::null) << gens[i].first;
            ++checked;
        }
    }
    EXPECT_EQ(checked, 300 * gens.size());
}

// A value the writer writes one way only: FLOAT's text is its shortest
// form, so the reader's double is that decimal's, not the float's binary
// value, and turning it back into a float loses nothing.
TEST(CdcFormatsRoundTrip, AFloatReadsAsTheDoubleOfItsShortestText) {
    EXPECT_EQ(float_value_as_read(0.1F), 0.1);
    EXPECT_NE(float_value_as_read(0.1F), static_cast<double>(0.1F));
    EXPECT_EQ(float_value_as_read(16777216.0F), 16777216.0);
    EXPECT_EQ(float_value_as_read(3.4028235e38F), 3.4028235e38);
    EXPECT_EQ(float_value_as_read(-0.0F), 0.0);
    EXPECT_TRUE(std::isnan(float_value_as_read(std::nanf(""))));
}

// A DOUBLE of 2^64 and above can be written without an exponent (its
// shortest form): an integer literal wider than 64 bits, which JSON allows
// and the reader reads as that double (found by the round trip above: the
// stream workers stopped on such a line as "malformed JSON").
TEST(CdcFormatsRoundTrip, ADoubleWrittenAsAWideIntegerReadsAsThatDouble) {
    LineReader reader({{"v", ""}, {"s", ""}}, "shop", "ev");
    for (double d : {150916611789446217728.0, -150916611789446217728.0, 18446744073709551616.0, 1e21}) {
        binlog::TableMap t;
        t.columns.resize(2);
        t.columns[0].type = ColumnType::double_;
        t.columns[0].name = "v";
        t.columns[1].type = ColumnType::varchar;
        t.columns[1].name = "s";
        const std::vector<binlog::Cell> cells = {{true, false, d}, {true, false, binlog::Text{"12345678901234567890123"}}};
        std::string line = R"({"gtid":"0-1-1","ts":1,"changes":[{"op":"insert","db":"shop","table":"ev","after":)";
        append_image(line, cells, t);
        line += "}]}";
        const Line& l = reader.parse(line, "line");
        ASSERT_EQ(l.changes.size(), 1U);
        EXPECT_EQ(l.changes[0].after[0].kind, LineValue::Kind::floating) << line;
        EXPECT_EQ(l.changes[0].after[0].d, d) << line;
        EXPECT_EQ(l.changes[0].after[1].text, "12345678901234567890123") << "a string's digits stay as they are";
    }
    // Unsigned and signed 64-bit integers are integers still.
    const Line& edge = reader.parse(R"({"gtid":"0-1-1","ts":1,"changes":[{"op":"insert","db":"shop","table":"ev",)"
                                    R"("after":{"v":18446744073709551615,"s":-9223372036854775808}}]})",
                                    "line");
    EXPECT_EQ(edge.changes[0].after[0].kind, LineValue::Kind::unsigned_integer);
    EXPECT_EQ(edge.changes[0].after[1].kind, LineValue::Kind::signed_integer);
}

// The reader's errors: Error{protocol}, naming the place and, for a picked
// column an image lacks, the column, its label and the server setting.
TEST(CdcFormatsRoundTrip, AMissingPickedColumnNamesItsLabelAndTheSetting) {
    LineReader reader({{"id", "--id"}, {"v", ""}}, "shop", "ev");
    auto error_of = [&](std::string_view line) {
        try {
            reader.parse(line, "line 3");
        } catch (const Error& e) {
            EXPECT_EQ(e.kind(), ErrorKind::protocol);
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_EQ(error_of(R"({"gtid":"0-1-1","ts":1,"changes":[{"op":"insert","db":"shop","table":"ev","after":{"v":1}}]})"),
              "line 3, change 0: the after image of a row of shop.ev lacks column \"id\" (--id; set binlog_row_image=FULL)");
    EXPECT_EQ(error_of(R"({"gtid":"0-1-1","ts":1,"changes":[{"op":"delete","db":"shop","table":"ev","before":{"id":1}}]})"),
              "line 3, change 0: the before image of a row of shop.ev lacks column \"v\" (set binlog_row_image=FULL)");
    EXPECT_EQ(error_of(R"({"snapshot":{"gtid":"0-1-1","db":"shop","table":"ev"},"rows":[{"id":1,"v":2},{"v":3}]})"),
              "line 3, row 1: a snapshot row of shop.ev lacks column \"id\" (--id)");
    EXPECT_EQ(error_of("{\"gtid\":").rfind("line 3: malformed JSON: ", 0), 0U);
    EXPECT_NE(error_of("[1]").find("line 3: not a JSON object (not a sluice-mariadb cdc line?)"), std::string::npos);
    // Another table's rows, and DDL, are not ours: no error, no changes.
    EXPECT_TRUE(reader.parse(R"({"gtid":"0-1-1","ts":1,"changes":[{"op":"insert","db":"shop","table":"x","after":{}}]})", "l")
                    .changes.empty());
    EXPECT_EQ(reader.parse(R"({"gtid":"0-1-2","server_id":1,"ts":1,"db":"shop","ddl":"DROP TABLE x"})", "l").kind,
              LineKind::ddl);
}

}  // namespace
// A JetStream worker reads a huge transaction's first part at the full line
// bound (8 MiB) and the parts after it at 1 MiB: the reader gives the large
// line's parser and value buffers back at a far smaller line, and reads
// every line the same before and after (it kept ~120 MiB for 8 MiB lines
// ever after: the worker's peak was 2.3x the single process's).
TEST(CdcFormatsRoundTrip, AReaderGivesBackTheMemoryOfAFarLargerLine) {
    LineReader reader({{"id", ""}, {"v", ""}}, "shop", "ev");
    auto line_of = [](std::size_t rows, std::size_t first) {
        std::string line = R"({"gtid":"0-1-7","ts":9,"part":1,"changes":[)";
        for (std::size_t i = 0; i < rows; ++i) {
            if (i) line += ',';
            line += R"({"op":"insert","db":"shop","table":"ev","after":{"id":)" + std::to_string(first + i) +
                    R"(,"v":"row )" + std::to_string(first + i) + R"("}})";
        }
        return line + "]}";
    };
    auto check = [&](std::size_t rows, std::size_t first) {
        const std::string text = line_of(rows, first);
        const Line& l = reader.parse(text, "line");
        EXPECT_EQ(l.changes.size(), rows);
        for (std::size_t i = 0; i < l.changes.size(); i += rows / 7 + 1) {
            EXPECT_EQ(l.changes[i].after[0].i, static_cast<std::int64_t>(first + i));
            EXPECT_EQ(l.changes[i].after[1].text, "row " + std::to_string(first + i));
        }
        return text.size();
    };
    const std::size_t big = check(60000, 0);  // ~4.6 MiB
    ASSERT_GT(big, std::size_t{4} << 20);
    const std::size_t held_big = reader.held_bytes();
    EXPECT_GT(held_big, 8 * big) << "the parser is sized for the large line";
    const std::size_t small = check(1000, 100000);
    EXPECT_LT(reader.held_bytes(), 20 * small + (std::size_t{1} << 20))
        << "a line under a quarter of the largest gives its buffers back (held " << reader.held_bytes() << " after "
        << held_big << ")";
    check(60000, 200000);  // large again: sized again, read the same
    EXPECT_GT(reader.held_bytes(), 8 * big);
    check(20000, 300000);  // over a quarter of it: kept
    EXPECT_GT(reader.held_bytes(), 8 * big);
    check(10, 400000);
    EXPECT_LT(reader.held_bytes(), std::size_t{2} << 20);
}

}  // namespace
