// Parameter encoding and field decoding on bytes alone.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "codec.hpp"

using namespace sluice::postgres;
using namespace sluice::postgres::detail;

namespace {

std::string bytes_of(std::initializer_list<int> b) {
    std::string s;
    for (int v : b) s.push_back(static_cast<char>(v));
    return s;
}

ErrorKind kind_of_failure(const std::function<void()>& f) {
    try {
        f();
    } catch (const Error& e) {
        return e.kind();
    }
    ADD_FAILURE() << "expected an Error";
    return ErrorKind::server;
}

}  // namespace

TEST(ParamEncoding, IntFollowsTheServersParameterType) {
    EncodedParam p8 = encode_param(Param(-2), type_oid::int8, 1);
    EXPECT_EQ(p8.format, 1);
    EXPECT_EQ(p8.bytes(), bytes_of({0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe}));
    EncodedParam p4 = encode_param(Param(258), type_oid::int4, 1);
    EXPECT_EQ(p4.bytes(), bytes_of({0, 0, 1, 2}));
    EncodedParam p2 = encode_param(Param(-1), type_oid::int2, 1);
    EXPECT_EQ(p2.bytes(), bytes_of({0xff, 0xff}));
    EncodedParam numeric = encode_param(Param(12345), type_oid::numeric, 1);
    EXPECT_EQ(numeric.format, 0);
    EXPECT_EQ(numeric.bytes(), "12345");
    EncodedParam unprepared = encode_param(Param(7), 0, 1);
    EXPECT_EQ(unprepared.type, type_oid::int8);
}

TEST(ParamEncoding, IntOutOfTheParameterRangeNamesThePosition) {
    try {
        encode_param(Param(std::int64_t{1} << 40), type_oid::int4, 3);
        FAIL() << "accepted";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::conversion);
        EXPECT_NE(std::string(e.what()).find("$3"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("int4"), std::string::npos) << e.what();
    }
    EXPECT_EQ(kind_of_failure([] { encode_param(Param(40000), type_oid::int2, 1); }), ErrorKind::conversion);
}

TEST(ParamEncoding, FloatBoolTextBytesNull) {
    EncodedParam f = encode_param(Param(1.5), type_oid::float8, 1);
    EXPECT_EQ(f.bytes(), bytes_of({0x3f, 0xf8, 0, 0, 0, 0, 0, 0}));
    EncodedParam f4 = encode_param(Param(0.1), type_oid::float4, 1);
    EXPECT_EQ(f4.format, 0);
    EXPECT_EQ(f4.bytes(), "0.1");
    EXPECT_EQ(encode_param(Param(true), type_oid::boolean, 1).bytes(), bytes_of({1}));
    EXPECT_EQ(encode_param(Param(false), type_oid::text, 1).bytes(), "false");
    // Text and bytes are borrowed from the Param, which must outlive them.
    const Param text("héllo");
    EncodedParam t = encode_param(text, type_oid::text, 1);
    EXPECT_EQ(t.format, 0);
    EXPECT_EQ(t.bytes(), "héllo");
    EXPECT_EQ(t.data(), std::get<std::string>(text.value()).data());
    const Param empty_text("");
    EXPECT_NE(encode_param(empty_text, type_oid::text, 1).data(), nullptr);  // empty, not NULL
    const Param bytes(Bytes{0, 0xff});
    EncodedParam b = encode_param(bytes, type_oid::bytea, 1);
    EXPECT_EQ(b.format, 1);
    EXPECT_EQ(b.bytes(), bytes_of({0, 0xff}));
    EncodedParam n = encode_param(Param(std::nullopt), type_oid::int4, 1);
    EXPECT_TRUE(n.is_null);
    EXPECT_EQ(n.data(), nullptr);
    EncodedParam on = encode_param(Param(std::optional<int>{}), type_oid::int4, 1);
    EXPECT_TRUE(on.is_null);
    EncodedParam ov = encode_param(Param(std::optional<int>{5}), type_oid::int4, 1);
    EXPECT_EQ(ov.bytes(), bytes_of({0, 0, 0, 5}));
}

// The encodings made in the parameter's own scratch room, at their longest.
TEST(ParamEncoding, LongestTextEncodingsFitTheScratchRoom) {
    EXPECT_EQ(encode_param(Param(std::numeric_limits<std::int64_t>::min()), type_oid::numeric, 1).bytes(),
              "-9223372036854775808");
    EXPECT_EQ(encode_param(Param(-2.2250738585072014e-308), type_oid::float4, 1).bytes(), "-2.2250738585072014e-308");
    EXPECT_EQ(encode_param(Param(-std::numeric_limits<double>::infinity()), type_oid::numeric, 1).bytes(), "-Infinity");
    EXPECT_EQ(float_text(-1.7976931348623157e308), "-1.7976931348623157e+308");
}

// libpq sends a text-format parameter up to its NUL, whatever its length.
TEST(ParamEncoding, TextFormatValuesAreNulTerminated) {
    const Param text("abc");
    for (const EncodedParam& e : {encode_param(Param(12345), type_oid::numeric, 1),
                                  encode_param(Param(0.25), type_oid::float4, 1),
                                  encode_param(Param(true), type_oid::text, 1), encode_param(text, type_oid::text, 1)}) {
        ASSERT_EQ(e.format, 0);
        EXPECT_EQ(std::string_view(e.data()), e.bytes());
    }
}

TEST(ParamEncoding, RejectsWhatTheServerCouldNotTake) {
    EXPECT_EQ(kind_of_failure([] { encode_param(Param(std::string("a\0b", 3)), type_oid::text, 1); }),
              ErrorKind::conversion);
    EXPECT_EQ(kind_of_failure([] { encode_param(Param(Bytes{1}), type_oid::int4, 1); }), ErrorKind::conversion);
}

TEST(FloatText, RoundTripsAndSpellsSpecialValues) {
    EXPECT_EQ(float_text(0.1), "0.1");
    EXPECT_EQ(float_text(1e21), "1e+21");
    EXPECT_EQ(float_text(std::numeric_limits<double>::infinity()), "Infinity");
    EXPECT_EQ(float_text(-std::numeric_limits<double>::infinity()), "-Infinity");
    EXPECT_EQ(float_text(std::nan("")), "NaN");
    const double x = 0.30000000000000004;
    EXPECT_EQ(std::stod(float_text(x)), x);
}

TEST(FieldDecoding, BinaryIntegersOfEveryWidth) {
    EXPECT_EQ(decode_int(bytes_of({0xff, 0xfe}), type_oid::int2, Format::binary, "c"), -2);
    EXPECT_EQ(decode_int(bytes_of({0x80, 0, 0, 0}), type_oid::int4, Format::binary, "c"),
              std::numeric_limits<std::int32_t>::min());
    EXPECT_EQ(decode_int(bytes_of({0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}), type_oid::int8, Format::binary,
                         "c"),
              std::numeric_limits<std::int64_t>::max());
}

TEST(FieldDecoding, TextIntegersAndFloats) {
    EXPECT_EQ(decode_int("-9223372036854775808", type_oid::int8, Format::text, "c"),
              std::numeric_limits<std::int64_t>::min());
    EXPECT_EQ(decode_float("1.5", type_oid::float8, Format::text, "c"), 1.5);
    EXPECT_TRUE(std::isnan(decode_float("NaN", type_oid::float8, Format::text, "c")));
    EXPECT_EQ(decode_float("-Infinity", type_oid::float8, Format::text, "c"),
              -std::numeric_limits<double>::infinity());
    EXPECT_EQ(decode_float(bytes_of({0x3f, 0xc0, 0, 0}), type_oid::float4, Format::binary, "c"), 1.5);
}

TEST(FieldDecoding, WrongTypeOrMalformedBytesNameTheColumn) {
    try {
        decode_int("1.5", type_oid::float8, Format::text, "column 1 (\"score\", float8)");
        FAIL() << "accepted";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::conversion);
        EXPECT_EQ(std::string(e.what()), "column 1 (\"score\", float8): a float8 cannot be read as an integer");
    }
    EXPECT_EQ(kind_of_failure([] { decode_int(bytes_of({1, 2, 3}), type_oid::int4, Format::binary, "c"); }),
              ErrorKind::conversion);
    EXPECT_EQ(kind_of_failure([] { decode_int("12x", type_oid::int4, Format::text, "c"); }), ErrorKind::conversion);
    EXPECT_EQ(kind_of_failure([] { decode_int("", type_oid::int4, Format::text, "c"); }), ErrorKind::conversion);
    EXPECT_EQ(kind_of_failure([] { decode_bool(bytes_of({2}), type_oid::boolean, Format::binary, "c"); }),
              ErrorKind::conversion);
    EXPECT_EQ(kind_of_failure([] { decode_text("x", type_oid::numeric, Format::binary, "c"); }),
              ErrorKind::conversion);
}

TEST(FieldDecoding, BoolsAndText) {
    EXPECT_TRUE(decode_bool("t", type_oid::boolean, Format::text, "c"));
    EXPECT_FALSE(decode_bool(bytes_of({0}), type_oid::boolean, Format::binary, "c"));
    EXPECT_EQ(decode_text("abc", type_oid::varchar, Format::binary, "c"), "abc");
    EXPECT_EQ(decode_text("12.50", type_oid::numeric, Format::text, "c"), "12.50");
}

TEST(FieldDecoding, ByteaInBinaryHexAndEscapeForms) {
    EXPECT_EQ(decode_bytes(bytes_of({0, 0xff}), type_oid::bytea, Format::binary, "c"), (Bytes{0, 0xff}));
    EXPECT_EQ(decode_bytes("\\x00fF10", type_oid::bytea, Format::text, "c"), (Bytes{0, 0xff, 0x10}));
    EXPECT_EQ(decode_bytes("a\\\\\\000\\377", type_oid::bytea, Format::text, "c"), (Bytes{'a', '\\', 0, 0xff}));
    EXPECT_EQ(kind_of_failure([] { decode_bytes("\\x0", type_oid::bytea, Format::text, "c"); }),
              ErrorKind::conversion);
    EXPECT_EQ(kind_of_failure([] { decode_bytes("\\xzz", type_oid::bytea, Format::text, "c"); }),
              ErrorKind::conversion);
    EXPECT_EQ(kind_of_failure([] { decode_bytes("\\9", type_oid::bytea, Format::text, "c"); }),
              ErrorKind::conversion);
    EXPECT_EQ(kind_of_failure([] { decode_bytes("\\", type_oid::bytea, Format::text, "c"); }),
              ErrorKind::conversion);
}

TEST(Errors, ServerErrorTextCarriesSqlstateDetailAndHint) {
    Error e(ServerDiagnostics{"23505", "duplicate key value violates unique constraint \"t_pkey\"",
                              "Key (id)=(1) already exists.", "", "", 0});
    EXPECT_EQ(e.kind(), ErrorKind::server);
    EXPECT_EQ(e.sqlstate(), "23505");
    EXPECT_EQ(std::string(e.what()),
              "duplicate key value violates unique constraint \"t_pkey\" [23505] (DETAIL: Key (id)=(1) already "
              "exists.)");
    EXPECT_EQ(type_name(type_oid::int8), "int8");
    EXPECT_EQ(type_name(99999), "oid 99999");
}
