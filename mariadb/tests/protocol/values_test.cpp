#include "sluice/mariadb/values.hpp"

#include <gtest/gtest.h>

#include "sluice/mariadb/error.hpp"

namespace sluice::mariadb {
namespace {

TEST(Decimal, KeepsAll65DigitsAndTheScale) {
    std::string max65(65, '9');
    auto d = Decimal::parse(max65);
    ASSERT_TRUE(d);
    EXPECT_EQ(d->text(), max65);
    std::string frac = "-" + std::string(35, '9') + "." + std::string(30, '9');
    EXPECT_EQ(Decimal::from_string(frac).text(), frac);
    EXPECT_EQ(Decimal::from_string("1.50").text(), "1.50");
    EXPECT_EQ(Decimal::from_string(".5").text(), "0.5");
    EXPECT_EQ(Decimal::from_string("+7").text(), "7");
    EXPECT_TRUE(Decimal::from_string("1.50").has_fraction());
    EXPECT_FALSE(Decimal::from_string("12.000").has_fraction());
    EXPECT_EQ(Decimal::from_string("-12.000").integer_digits(), "12");
}

TEST(Decimal, RejectsMalformedAndTooLong) {
    for (std::string_view bad : {"", "-", "1.", "1.2.3", "1e5", "abc", " 1", "--1"}) {
        EXPECT_FALSE(Decimal::parse(bad)) << bad;
    }
    EXPECT_FALSE(Decimal::parse(std::string(66, '1')));
    EXPECT_THROW(Decimal::from_string("x"), Error);
}

TEST(Temporal, ParsesAndFormatsTheServersTextForms) {
    EXPECT_EQ(parse_date("0000-00-00"), (Date{0, 0, 0}));
    EXPECT_EQ(to_string(Date{9999, 12, 31}), "9999-12-31");
    auto t = parse_time("-838:59:59.000001");
    ASSERT_TRUE(t);
    EXPECT_EQ(*t, (Time{true, 838, 59, 59, 1}));
    EXPECT_EQ(to_string(*t), "-838:59:59.000001");
    EXPECT_EQ(parse_time("25:00:00"), (Time{false, 25, 0, 0, 0}));
    auto dt = parse_datetime("2024-02-29 23:59:59.5");
    ASSERT_TRUE(dt);
    EXPECT_EQ(dt->microsecond, 500000u);
    EXPECT_EQ(to_string(*dt), "2024-02-29 23:59:59.500000");
    EXPECT_EQ(to_string(*dt, 2), "2024-02-29 23:59:59.50");
    EXPECT_EQ(to_string(DateTime{}, 0), "0000-00-00 00:00:00");
}

TEST(Temporal, RejectsMalformedText) {
    EXPECT_FALSE(parse_date("2024-13-01"));
    EXPECT_FALSE(parse_date("2024-1-01"));
    EXPECT_FALSE(parse_time("12:60:00"));
    EXPECT_FALSE(parse_time("12:00"));
    EXPECT_FALSE(parse_datetime("2024-01-01 24:00:00"));
    EXPECT_FALSE(parse_datetime("2024-01-01 10:00:00.1234567"));
}

}  // namespace
}  // namespace sluice::mariadb
