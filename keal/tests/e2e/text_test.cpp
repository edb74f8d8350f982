// Text and char: Keal against PostgreSQL's text functions over 5,000
// generated strings with one- to four-byte UTF-8 characters and empty text.
#include "keal_database.hpp"
#include "sql_compare.hpp"

#include <gtest/gtest.h>

namespace keal::e2e {
namespace {

// Needles for the substring tests: empty, ASCII, two-, three- and four-byte
// characters, a pair, and one that never occurs.
constexpr const char* kNeedles =
    "(VALUES (''), ('a'), ('e'), ('é'), ('中'), ('😀'), ('ab'), (' '), ('xyzzy')) AS needles(p)";

class Text : public ::testing::Test {
protected:
    void SetUp() override {
        KealDatabase::get().deploy("text.keal");
        ensure_samples(db());
    }
    PgConnection& db() { return KealDatabase::get().sql(); }

    void expect_same_over_samples(const std::string& keal, const std::string& sql) {
        const Comparison c = compare(db(), "samples", "id || ':' || s", keal, sql);
        EXPECT_EQ(c.rows, 5000);
        EXPECT_EQ(c.mismatches, 0) << keal << " vs " << sql << ":\n" << c.examples;
    }
    void expect_same_over_needles(const std::string& keal, const std::string& sql) {
        const Comparison c =
            compare(db(), std::string("samples, ") + kNeedles, "id || ':' || s || ' / ' || p", keal, sql);
        EXPECT_EQ(c.rows, 5000 * 9);
        EXPECT_EQ(c.mismatches, 0) << keal << " vs " << sql << ":\n" << c.examples;
    }
};

TEST_F(Text, SamplesCoverEmptyAndMultibyteText) {
    const Rows r = db().query(
        "SELECT count(*) FILTER (WHERE s = ''), count(*) FILTER (WHERE s ~ '[é中😀]'), "
        "count(*) FILTER (WHERE octet_length(s) >= char_length(s) + 3) FROM samples");
    EXPECT_GT(std::stoi(r[0][0].value()), 100);
    EXPECT_GT(std::stoi(r[0][1].value()), 1000);
    EXPECT_GT(std::stoi(r[0][2].value()), 1000);
}

TEST_F(Text, VowelsMatchTheTranslateFormula) {
    expect_same_over_samples("vowels(s)", "length(s) - length(translate(s, 'aeiouAEIOU', ''))");
}

TEST_F(Text, IterationAndLenCountCharactersNotBytes) {
    expect_same_over_samples("chars_iterated(s)", "char_length(s)");
    expect_same_over_samples("chars_len(s)", "char_length(s)");
}

TEST_F(Text, IterationDecodesEveryCodePoint) {
    expect_same_over_samples("code_point_sum(s)",
                             "(SELECT coalesce(sum(ascii(ch)), 0) FROM regexp_split_to_table(s, '') AS ch)");
}

TEST_F(Text, CharsRebuildTextInReverse) {
    expect_same_over_samples("reversed(s)", "reverse(s)");
}

TEST_F(Text, LongCompressedAndToastedTextIsReadWhole) {
    // From 2 kB (inline, compressed) to 2 MB (out of line, TOAST): the
    // function reads the whole detoasted value, and builds long results.
    db().exec("CREATE TABLE IF NOT EXISTS long_texts AS "
              "SELECT k, repeat((SELECT string_agg(s, '' ORDER BY id) FROM samples WHERE id < 40), k) AS s "
              "FROM unnest(ARRAY[3, 30, 300, 3000]) AS k");
    const Rows sizes = db().query("SELECT min(octet_length(s)), max(octet_length(s)), "
                                  "max(pg_column_size(s)) FILTER (WHERE k = 3000) FROM long_texts");
    ASSERT_LT(std::stoll(sizes[0][0].value()), 4000);
    ASSERT_GT(std::stoll(sizes[0][1].value()), 1000000);
    ASSERT_LT(std::stoll(sizes[0][2].value()), std::stoll(sizes[0][1].value()));  // stored compressed
    for (const char* check : {"vowels(s) = length(s) - length(translate(s, 'aeiouAEIOU', ''))",
                              "chars_len(s) = char_length(s)", "k_find(s, 'xyzzy') = -1",
                              "k_upper(s) = translate(s, 'abcdefghijklmnopqrstuvwxyz', 'ABCDEFGHIJKLMNOPQRSTUVWXYZ')",
                              "k_replace(s, 'é', 'E') = replace(s, 'é', 'E')"}) {
        EXPECT_EQ(db().scalar(std::string("SELECT count(*) FILTER (WHERE NOT (") + check + ")) FROM long_texts"),
                  "0")
            << check;
    }
}

TEST_F(Text, CharInNonAsciiText) {
    expect_same_over_samples("accented(s)", "length(s) - length(translate(s, 'éÉüßñ中😀', ''))");
}

TEST_F(Text, CharsCompareByCodePoint) {
    expect_same_over_samples(
        "max_char(s)", "coalesce((SELECT max(ch COLLATE \"C\") FROM regexp_split_to_table(s, '') AS ch), '')");
}

TEST_F(Text, TextComparesByteWiseLikeCollateC) {
    const Comparison c =
        compare(db(), "samples AS a JOIN samples AS b ON b.id = (a.id * 7 + 3) % 5000",
                "a.s || ' ? ' || b.s", "k_compare(a.s, b.s)",
                "CASE WHEN a.s < b.s COLLATE \"C\" THEN -1 WHEN a.s > b.s COLLATE \"C\" THEN 1 ELSE 0 END");
    EXPECT_EQ(c.rows, 5000);
    EXPECT_EQ(c.mismatches, 0) << c.examples;
}

TEST_F(Text, ConcatenationMatchesSql) {
    expect_same_over_needles("k_concat(s, p)", "s || '|' || p");
}

TEST_F(Text, SubstringTestMatchesStrpos) {
    expect_same_over_needles("k_contains(s, p)", "strpos(s, p) > 0");
}

TEST_F(Text, FindIsZeroBasedCharacterPositionOrMinusOne) {
    expect_same_over_needles("k_find(s, p)", "strpos(s, p) - 1");
}

TEST_F(Text, ReplaceMatchesSql) {
    expect_same_over_needles("k_replace(s, p, '<>')", "CASE WHEN p = '' THEN s ELSE replace(s, p, '<>') END");
}

TEST_F(Text, StartsAndEndsWithMatchSql) {
    expect_same_over_needles("k_starts_with(s, p)", "starts_with(s, p)");
    expect_same_over_needles("k_ends_with(s, p)", "right(s, char_length(p)) = p OR p = ''");
}

TEST_F(Text, SubstrTakesZeroBasedStartAndCountInCharacters) {
    const Comparison c =
        compare(db(), "samples, generate_series(0, 40, 3) AS st, generate_series(0, 12, 4) AS n",
                "s || ' ' || st || ' ' || n", "k_substr(s, st, n)", "substr(s, st + 1, n)");
    EXPECT_EQ(c.rows, 5000 * 14 * 4);
    EXPECT_EQ(c.mismatches, 0) << c.examples;
    // A negative start counts from the beginning; a negative count is an error.
    EXPECT_EQ(db().scalar("SELECT k_substr('héllo', -2, 3)"), "hél");
    EXPECT_EQ(db().expect_error("SELECT k_substr('héllo', 1, -1)").sqlstate, "22011");
}

TEST_F(Text, CaseMappingIsAsciiOnly) {
    // upper/lower map A-Z and a-z only; é, ü, ß, 中 stay as they are.
    expect_same_over_samples("k_upper(s)",
                             "translate(s, 'abcdefghijklmnopqrstuvwxyz', 'ABCDEFGHIJKLMNOPQRSTUVWXYZ')");
    expect_same_over_samples("k_lower(s)",
                             "translate(s, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')");
}

TEST_F(Text, TrimRemovesSurroundingWhitespace) {
    const Comparison c =
        compare(db(), "samples, (VALUES (''), (' '), (E'\\t '), (E' \\n\\r')) AS pad(w)",
                "quote_literal(w || s || w)", "k_trim(w || s || w)",
                "btrim(w || s || w, E' \\t\\n\\r\\f\\v')");
    EXPECT_EQ(c.rows, 5000 * 4);
    EXPECT_EQ(c.mismatches, 0) << c.examples;
}

TEST_F(Text, CharFromCodePointMatchesChr) {
    const Comparison c = compare(
        db(), "(SELECT n FROM generate_series(1, 70000) AS n WHERE n NOT BETWEEN 55296 AND 57343 "
              "UNION ALL SELECT 1114111) AS cp",
        "n", "k_char_at(n)", "chr(n)");
    EXPECT_EQ(c.rows, 70000 - 2048 + 1);
    EXPECT_EQ(c.mismatches, 0) << c.examples;
}

}  // namespace
}  // namespace keal::e2e
