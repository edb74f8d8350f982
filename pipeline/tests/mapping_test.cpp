// Row cells -> events: every range of the contract, and the reason text a
// NAME_rejected row carries.
#include <gtest/gtest.h>

#include "sluice/pipeline/mapping.hpp"

namespace sluice::pipeline {
namespace {

using V = SourceValue;

const ColumnNames names{"rid", "sensor", "t", "v"};

Mapped map(V id, V key, V ts, V value) {
    static StringArena arena;
    return map_event(names, id, key, ts, value, arena);
}

std::string reason(const Mapped& m) {
    if (const auto* r = std::get_if<Rejection>(&m)) return r->reason;
    return "(an event)";
}

TEST(Mapping, IntegerIdAndTextKeyMakeAnEvent) {
    Mapped m = map(V::of_signed(-42), V::of_text("k1"), V::of_signed(7), V::of_double(1.5));
    ASSERT_TRUE(std::holds_alternative<Event>(m)) << reason(m);
    const Event& e = std::get<Event>(m);
    EXPECT_EQ(e.id, "-42");
    EXPECT_EQ(e.key, "k1");
    EXPECT_EQ(e.ts, 7);
    EXPECT_EQ(e.value, 1.5);
}

TEST(Mapping, UnsignedDecimalTextAndFloatValues) {
    auto value_of = [](V v) {
        Mapped m = map(V::of_text("a"), V::of_text(""), V::of_unsigned(3), v);
        EXPECT_TRUE(std::holds_alternative<Event>(m)) << reason(m);
        return std::holds_alternative<Event>(m) ? std::get<Event>(m).value : -1.0;
    };
    EXPECT_EQ(value_of(V::of_text("12.50")), 12.5);
    EXPECT_EQ(value_of(V::of_text("-0.001")), -0.001);
    EXPECT_EQ(value_of(V::of_text("9007199254740992")), 9007199254740992.0);
    EXPECT_EQ(value_of(V::of_unsigned(9007199254740992ULL)), 9007199254740992.0);
    EXPECT_EQ(value_of(V::of_double(-2.25)), -2.25);
    // A float id prints in its shortest form.
    Mapped f = map(V::of_double(0.1), V::of_text("k"), V::of_signed(0), V::of_signed(0));
    ASSERT_TRUE(std::holds_alternative<Event>(f));
    EXPECT_EQ(std::get<Event>(f).id, "0.1");
}

TEST(Mapping, NullsAreRejectedNamingTheColumn) {
    EXPECT_EQ(reason(map(V::null_value(), V::of_text("k"), V::of_signed(0), V::of_signed(0))), "id column \"rid\": NULL");
    EXPECT_EQ(reason(map(V::of_text("a"), V::null_value(), V::of_signed(0), V::of_signed(0))), "key column \"sensor\": NULL");
    EXPECT_EQ(reason(map(V::of_text("a"), V::of_text("k"), V::null_value(), V::of_signed(0))), "ts column \"t\": NULL");
    EXPECT_EQ(reason(map(V::of_text("a"), V::of_text("k"), V::of_signed(0), V::null_value())), "value column \"v\": NULL");
}

TEST(Mapping, OutOfRangeIdsKeysTimestampsAndValues) {
    const V k = V::of_text("k"), zero = V::of_signed(0);
    EXPECT_EQ(reason(map(V::of_text(""), k, zero, zero)), "id column \"rid\": empty (an id must be non-empty)");
    const std::string long_id(257, 'x');
    EXPECT_EQ(reason(map(V::of_text(long_id), k, zero, zero)), "id column \"rid\": 257 bytes (at most 256)");
    EXPECT_EQ(reason(map(V::of_text(std::string(256, 'x')), k, zero, zero)), "(an event)");
    EXPECT_EQ(reason(map(V::of_text("a"), V::of_text(long_id), zero, zero)), "key column \"sensor\": 257 bytes (at most 256)");
    EXPECT_EQ(reason(map(V::of_text("\xff"), k, zero, zero)), "id column \"rid\": not valid UTF-8");
    EXPECT_EQ(reason(map(V::of_text("a"), V::of_text("\xc3("), zero, zero)), "key column \"sensor\": not valid UTF-8");
    const std::int64_t two60 = std::int64_t{1} << 60;
    EXPECT_EQ(reason(map(V::of_text("a"), k, V::of_signed(two60), zero)), "(an event)");
    EXPECT_EQ(reason(map(V::of_text("a"), k, V::of_signed(-two60), zero)), "(an event)");
    EXPECT_EQ(reason(map(V::of_text("a"), k, V::of_signed(two60 + 1), zero)),
              "ts column \"t\": 1152921504606846977 is outside [-2^60, 2^60]");
    EXPECT_EQ(reason(map(V::of_text("a"), k, V::of_unsigned(18446744073709551615ULL), zero)),
              "ts column \"t\": 18446744073709551615 is outside [-2^60, 2^60]");
    EXPECT_EQ(reason(map(V::of_text("a"), k, V::of_text("12x"), zero)), "ts column \"t\": \"12x\" is not an integer");
    EXPECT_EQ(reason(map(V::of_text("a"), k, V::of_double(1.5), zero)), "ts column \"t\": 1.5 is not an integer");
    EXPECT_EQ(reason(map(V::of_text("a"), k, zero, V::of_signed(9007199254740993LL))),
              "value column \"v\": integer 9007199254740993 beyond 2^53 in magnitude");
    EXPECT_EQ(reason(map(V::of_text("a"), k, zero, V::of_text("-9007199254740993"))),
              "value column \"v\": integer \"-9007199254740993\" beyond 2^53 in magnitude");
    EXPECT_EQ(reason(map(V::of_text("a"), k, zero, V::of_text("1e400"))),
              "value column \"v\": \"1e400\" is beyond the double range");
    EXPECT_EQ(reason(map(V::of_text("a"), k, zero, V::of_text("abc"))), "value column \"v\": \"abc\" is not a number");
    EXPECT_EQ(reason(map(V::of_text("a"), k, zero, V::of_double(std::numeric_limits<double>::infinity()))),
              "value column \"v\": not a finite number");
}

TEST(Mapping, Utf8Validation) {
    EXPECT_TRUE(valid_utf8("h\xc3\xa9llo \xe2\x82\xac \xf0\x9f\x98\x80"));
    EXPECT_FALSE(valid_utf8("\xc0\x80"));          // overlong NUL
    EXPECT_FALSE(valid_utf8("\xed\xa0\x80"));      // a surrogate
    EXPECT_FALSE(valid_utf8("\xf4\x90\x80\x80"));  // beyond U+10FFFF
    EXPECT_FALSE(valid_utf8("\xe2\x82"));          // truncated
}

TEST(Mapping, ArenaKeepsEarlierStringsWhenItGrows) {
    StringArena arena;
    std::vector<std::string_view> views;
    for (int i = 0; i < 20000; ++i) views.push_back(arena.store("id-" + std::to_string(i)));
    for (int i = 0; i < 20000; ++i) ASSERT_EQ(views[static_cast<std::size_t>(i)], "id-" + std::to_string(i));
    arena.clear();
    EXPECT_EQ(arena.store("again"), "again");
}

}  // namespace
}  // namespace sluice::pipeline
