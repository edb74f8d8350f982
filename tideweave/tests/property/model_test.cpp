// The brute-force model against expectations written by hand from the
// contract, so the model is trusted before it judges the engines.
#include "model.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace sluice::tideweave::model {
namespace {

Mutation insert(std::string id, std::string key, std::int64_t ts, double value) {
    Mutation m;
    m.kind = Mutation::Kind::insert;
    m.event = {std::move(id), std::move(key), ts, value};
    return m;
}

Mutation retract(std::string id, std::string key, std::int64_t ts) {
    Mutation m;
    m.kind = Mutation::Kind::retract;
    m.event = {std::move(id), std::move(key), ts, 0};
    return m;
}

Mutation retract_valued(std::string id, std::string key, std::int64_t ts, double value) {
    Mutation m = retract(std::move(id), std::move(key), ts);
    m.event.value = value;
    m.value_given = true;
    return m;
}

Line tx(std::vector<Mutation> mutations) {
    Line l;
    l.kind = Line::Kind::tx;
    l.mutations = std::move(mutations);
    return l;
}

Line watermark(std::int64_t w) {
    Line l;
    l.kind = Line::Kind::watermark;
    l.watermark = w;
    return l;
}

Line simple(Line::Kind kind) {
    Line l;
    l.kind = kind;
    return l;
}

// Feeds lines numbered from 1 and returns the last verdict.
class ModelRules : public ::testing::Test {
protected:
    Expected feed(const Line& l) { return model.apply(l, ++line_no); }
    std::string exact(const Line& l) {
        const auto e = feed(l);
        EXPECT_EQ(e.kind, Expected::Kind::exact);
        return e.bytes;
    }
    Model model{Config{10, 20}};
    std::int64_t line_no = 0;
};

TEST_F(ModelRules, AGapOfExactlyGapJoins) {
    EXPECT_EQ(exact(tx({insert("e1", "a", 0, 1), insert("e2", "a", 10, 2)})),
              R"({"version":1,"before":[],"after":[{"key":"a","start":0,"end":20,"count":2,"sum":3,"min":1,"max":2,"final":false}],"late":[]})"
              "\n");
}

TEST_F(ModelRules, AGapOfMoreThanGapSplits) {
    EXPECT_EQ(exact(tx({insert("e1", "a", 0, 1), insert("e2", "a", 11, 2)})),
              R"({"version":1,"before":[],"after":[{"key":"a","start":0,"end":10,"count":1,"sum":1,"min":1,"max":1,"final":false},{"key":"a","start":11,"end":21,"count":1,"sum":2,"min":2,"max":2,"final":false}],"late":[]})"
              "\n");
}

TEST_F(ModelRules, ARetractionSplitsAndAnInsertBridges) {
    exact(tx({insert("e1", "a", 0, 1), insert("e2", "a", 10, 2), insert("e3", "a", 20, 4)}));
    EXPECT_EQ(exact(tx({retract("e2", "a", 10)})),
              R"({"version":2,"before":[{"key":"a","start":0,"end":30,"count":3,"sum":7,"min":1,"max":4,"final":false}],"after":[{"key":"a","start":0,"end":10,"count":1,"sum":1,"min":1,"max":1,"final":false},{"key":"a","start":20,"end":30,"count":1,"sum":4,"min":4,"max":4,"final":false}],"late":[]})"
              "\n");
    EXPECT_EQ(exact(tx({insert("e4", "a", 10, -0.5)})),
              R"({"version":3,"before":[{"key":"a","start":0,"end":10,"count":1,"sum":1,"min":1,"max":1,"final":false},{"key":"a","start":20,"end":30,"count":1,"sum":4,"min":4,"max":4,"final":false}],"after":[{"key":"a","start":0,"end":30,"count":3,"sum":4.5,"min":-0.5,"max":4,"final":false}],"late":[]})"
              "\n");
}

TEST_F(ModelRules, SumsAreExactThroughCancellation) {
    exact(tx({insert("e1", "a", 0, 1e16), insert("e2", "a", 1, 1), insert("e3", "a", 2, -1e16)}));
    const auto rows = model.rows();
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0].sum, 1.0);
    EXPECT_EQ(format_row(rows[0]),
              R"({"key":"a","start":0,"end":12,"count":3,"sum":1,"min":-1e+16,"max":1e+16,"final":false})");
    // Retracting the big terms leaves exactly the small one, with no drift.
    exact(tx({retract("e1", "a", 0), retract("e3", "a", 2), insert("e4", "a", 3, 0.1), insert("e5", "a", 4, 0.2)}));
    EXPECT_EQ(model.rows()[0].sum, 1.3);
}

TEST_F(ModelRules, KeysAreSeparateAndSortedByBytes) {
    EXPECT_EQ(exact(tx({insert("e1", "b", 0, 1), insert("e2", "\xC3\xA9", 0, 1), insert("e3", "a", 5, 1)})),
              "{\"version\":1,\"before\":[],\"after\":["
              R"({"key":"a","start":5,"end":15,"count":1,"sum":1,"min":1,"max":1,"final":false},)"
              R"({"key":"b","start":0,"end":10,"count":1,"sum":1,"min":1,"max":1,"final":false},)"
              "{\"key\":\"\xC3\xA9\",\"start\":0,\"end\":10,\"count\":1,\"sum\":1,\"min\":1,\"max\":1,\"final\":false}"
              "],\"late\":[]}\n");
}

TEST_F(ModelRules, LateInsertsAreReportedNotApplied) {
    EXPECT_EQ(exact(watermark(50)), R"({"version":0,"watermark":50,"finalized":[]})" "\n");
    // H = 50 - 20 = 30: ts 29 is late, ts 30 is not.
    EXPECT_EQ(exact(tx({insert("e1", "a", 29, 1), insert("e2", "a", 30, 2)})),
              R"({"version":1,"before":[],"after":[{"key":"a","start":30,"end":40,"count":1,"sum":2,"min":2,"max":2,"final":false}],"late":[{"index":0,"id":"e1","key":"a","ts":29}]})"
              "\n");
}

TEST_F(ModelRules, ASealedEventsRetractionIsLateWhileItsSessionIsOpen) {
    exact(tx({insert("e1", "a", 25, 1), insert("e2", "a", 33, 2)}));
    exact(watermark(50));  // H = 30: e1 is sealed; the session ends at 43, not final
    EXPECT_EQ(exact(tx({retract("e1", "a", 25)})),
              R"({"version":2,"before":[],"after":[],"late":[{"index":0,"id":"e1","key":"a","ts":25}]})" "\n");
    // A sealed event's id may be reused by a new event.
    EXPECT_EQ(exact(tx({insert("e1", "a", 40, 4)})),
              R"({"version":3,"before":[{"key":"a","start":25,"end":43,"count":2,"sum":3,"min":1,"max":2,"final":false}],"after":[{"key":"a","start":25,"end":50,"count":3,"sum":7,"min":1,"max":4,"final":false}],"late":[]})"
              "\n");
}

TEST_F(ModelRules, FinalityIsStrictlyBeforeTheHorizon) {
    exact(tx({insert("e1", "a", 0, 1), insert("e2", "b", 1, 1)}));  // ends 10 and 11
    EXPECT_EQ(exact(watermark(30)), R"({"version":1,"watermark":30,"finalized":[]})" "\n");  // H = 10
    EXPECT_EQ(exact(watermark(31)),
              R"({"version":1,"watermark":31,"finalized":[{"key":"a","start":0,"end":10,"count":1,"sum":1,"min":1,"max":1,"final":true}]})"
              "\n");
    EXPECT_EQ(exact(watermark(31)), R"({"version":1,"watermark":31,"finalized":[]})" "\n");
    EXPECT_EQ(exact(simple(Line::Kind::snapshot)),
              R"({"version":1,"watermark":31,"rows":[{"key":"a","start":0,"end":10,"count":1,"sum":1,"min":1,"max":1,"final":true},{"key":"b","start":1,"end":11,"count":1,"sum":1,"min":1,"max":1,"final":false}]})"
              "\n");
    const auto forget = feed(simple(Line::Kind::forget));
    EXPECT_EQ(forget.kind, Expected::Kind::prefix);
    EXPECT_EQ(forget.bytes, R"({"version":1,"forgotten":1)");
    EXPECT_EQ(exact(simple(Line::Kind::snapshot)),
              R"({"version":1,"watermark":31,"rows":[{"key":"b","start":1,"end":11,"count":1,"sum":1,"min":1,"max":1,"final":false}]})"
              "\n");
}

TEST_F(ModelRules, AWatermarkThatGoesBackIsAnError) {
    exact(watermark(10));
    const auto e = feed(watermark(9));
    EXPECT_EQ(e.kind, Expected::Kind::error);
    EXPECT_EQ(e.line, 2);
    EXPECT_FALSE(e.index.has_value());
    EXPECT_EQ(model.watermark(), 10);
}

TEST_F(ModelRules, ErrorsRejectTheWholeTransaction) {
    exact(tx({insert("e1", "a", 0, 1)}));
    // A duplicate unsealed id at index 1: e2 is not applied either.
    auto e = feed(tx({insert("e2", "a", 3, 1), insert("e1", "b", 0, 1)}));
    EXPECT_EQ(e.kind, Expected::Kind::error);
    EXPECT_EQ(e.index, 1u);
    EXPECT_EQ(model.version(), 1);
    EXPECT_EQ(model.events().size(), 1u);
    // Retractions that do not match: key, ts, value, unknown id.
    for (const auto& m : {retract("e1", "b", 0), retract("e1", "a", 1), retract_valued("e1", "a", 0, 2),
                          retract("nope", "a", 0)}) {
        e = feed(tx({m}));
        EXPECT_EQ(e.kind, Expected::Kind::error);
        EXPECT_EQ(e.index, 0u);
    }
    // A matching retraction with its value, then an update in one transaction.
    exact(tx({retract_valued("e1", "a", 0, 1), insert("e1", "a", 0, 5)}));
    EXPECT_EQ(model.rows().at(0).sum, 5.0);
    EXPECT_EQ(model.version(), 2);
}

TEST_F(ModelRules, ShapeIsCheckedBeforeLatenessAndLatenessBeforeIdentity) {
    exact(watermark(100));  // H = 80
    Mutation broken = insert("e1", "a", 0, 1);
    broken.shape_error = true;
    auto e = feed(tx({insert("e0", "a", 0, 1), broken}));
    EXPECT_EQ(e.kind, Expected::Kind::error);
    EXPECT_EQ(e.index, 1u);
    // A late retraction of an event that never existed is late, not an error.
    EXPECT_EQ(exact(tx({retract("ghost", "a", 1)})),
              R"({"version":1,"before":[],"after":[],"late":[{"index":0,"id":"ghost","key":"a","ts":1}]})" "\n");
}

TEST_F(ModelRules, ASumBeyondTheDoubleRangeRejectsTheTransactionWithoutIndex) {
    exact(tx({insert("e1", "a", 0, 1.7976931348623157e308)}));
    const auto e = feed(tx({insert("e2", "b", 0, 1), insert("e3", "a", 5, 1e308)}));
    EXPECT_EQ(e.kind, Expected::Kind::error);
    EXPECT_FALSE(e.index.has_value());
    EXPECT_EQ(model.version(), 1);
    EXPECT_EQ(model.events().size(), 1u);
    // Far enough apart to be separate sessions, both fit.
    exact(tx({insert("e3", "a", 50, 1e308)}));
    EXPECT_EQ(model.version(), 2);
}

TEST_F(ModelRules, EmptyLinesGiveNothingAndBadLinesAnErrorWithoutIndex) {
    EXPECT_EQ(feed(simple(Line::Kind::empty)).kind, Expected::Kind::none);
    const auto e = feed(simple(Line::Kind::bad));
    EXPECT_EQ(e.kind, Expected::Kind::error);
    EXPECT_EQ(e.line, 2);
    EXPECT_FALSE(e.index.has_value());
    EXPECT_EQ(exact(simple(Line::Kind::snapshot)), R"({"version":0,"watermark":null,"rows":[]})" "\n");
    const auto c = feed(simple(Line::Kind::checkpoint));
    EXPECT_EQ(c.kind, Expected::Kind::checkpoint);
    EXPECT_EQ(c.version, 0);
}

TEST(ModelFormatting, NumbersRoundTripAndIntegersPrintAsIntegers) {
    EXPECT_EQ(format_number(0), "0");
    EXPECT_EQ(format_number(-5), "-5");
    EXPECT_EQ(format_number(1e15), "1000000000000000");
    EXPECT_EQ(format_number(9007199254740991.0), "9007199254740991");
    EXPECT_EQ(format_number(0.1), "0.1");
    EXPECT_EQ(format_number(0.30000000000000004), "0.30000000000000004");
    EXPECT_EQ(format_number(1e16), "1e+16");
    EXPECT_EQ(format_number(5e-324), "5e-324");
    EXPECT_EQ(format_number(-1.5e300), "-1.5e+300");
    EXPECT_EQ(format_number(9007199254740992.0), "9007199254740992");
    EXPECT_EQ(format_number(-9007199254740992.0), "-9007199254740992");
    EXPECT_EQ(format_number(9007199254740994.0), "9.007199254740994e+15");
    EXPECT_EQ(format_number(123456789012345680000.0), "1.2345678901234568e+20");
    EXPECT_EQ(format_number(1e-7), "1e-07");
    EXPECT_EQ(format_number(0.000123), "0.000123");
}

TEST(ModelFormatting, StringsEscapeWhatJsonRequires) {
    EXPECT_EQ(format_string("a\"b\\c"), R"("a\"b\\c")");
    EXPECT_EQ(format_string("\t\n\x01"), R"("\t\n\u0001")");
    EXPECT_EQ(format_string("\xC3\xA9/"), "\"\xC3\xA9/\"");
}

}  // namespace
}  // namespace sluice::tideweave::model
