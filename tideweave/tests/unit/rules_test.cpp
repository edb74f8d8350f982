// One test per rule of the contract (docs/tideweave.md, "The contract"),
// each run on both engines, asserting exact output bytes.
#include <gtest/gtest.h>

#include "driver.hpp"

namespace sluice::tideweave::testing {
namespace {

class Rules : public ::testing::TestWithParam<EngineKind> {
protected:
    Driver d{GetParam()};
};

INSTANTIATE_TEST_SUITE_P(Engines, Rules, ::testing::Values(EngineKind::incremental, EngineKind::naive), engine_name);

TEST_P(Rules, AGapOfExactlyGapJoins) {
    EXPECT_EQ(d.feed(tx({ins("a", "k", 0, "1"), ins("b", "k", 10, "2")})),
              changes(1, {}, {row("k", 0, 20, 2, "3", "1", "2")}));
    // One more than the gap does not join.
    EXPECT_EQ(d.feed(tx({ins("c", "k", 31, "4")})), changes(2, {}, {row("k", 31, 41, 1, "4", "4", "4")}));
}

TEST_P(Rules, ARetractionSplits) {
    d.feed(tx({ins("a", "k", 0, "1"), ins("b", "k", 10, "2"), ins("c", "k", 20, "3")}));
    EXPECT_EQ(d.feed(tx({ret("b", "k", 10)})),
              changes(2, {row("k", 0, 30, 3, "6", "1", "3")},
                      {row("k", 0, 10, 1, "1", "1", "1"), row("k", 20, 30, 1, "3", "3", "3")}));
    EXPECT_EQ(d.stream().row_count(), 2U);
    EXPECT_EQ(d.stream().active_events(), 2U);
}

TEST_P(Rules, ARetractionShrinksOrEmptiesASession) {
    d.feed(tx({ins("a", "k", 0, "1"), ins("b", "k", 5, "2")}));
    EXPECT_EQ(d.feed(tx({ret("a", "k", 0)})),
              changes(2, {row("k", 0, 15, 2, "3", "1", "2")}, {row("k", 5, 15, 1, "2", "2", "2")}));
    EXPECT_EQ(d.feed(tx({ret("b", "k", 5)})), changes(3, {row("k", 5, 15, 1, "2", "2", "2")}, {}));
    EXPECT_EQ(d.stream().row_count(), 0U);
}

TEST_P(Rules, AnInsertBridges) {
    d.feed(tx({ins("a", "k", 0, "1"), ins("c", "k", 20, "3")}));
    EXPECT_EQ(d.feed(tx({ins("b", "k", 10, "2")})),
              changes(2, {row("k", 0, 10, 1, "1", "1", "1"), row("k", 20, 30, 1, "3", "3", "3")},
                      {row("k", 0, 30, 3, "6", "1", "3")}));
}

TEST_P(Rules, KeysAreSeparateAndRowsSortedByKeyThenStart) {
    EXPECT_EQ(d.feed(tx({ins("x", "b", 0, "1"), ins("y", "a", 50, "2"), ins("z", "a", 0, "3")})),
              changes(1, {},
                      {row("a", 0, 10, 1, "3", "3", "3"), row("a", 50, 60, 1, "2", "2", "2"),
                       row("b", 0, 10, 1, "1", "1", "1")}));
}

TEST_P(Rules, EqualTimestampsShareASession) {
    EXPECT_EQ(d.feed(tx({ins("a", "k", 7, "1"), ins("b", "k", 7, "-1")})),
              changes(1, {}, {row("k", 7, 17, 2, "0", "-1", "1")}));
    EXPECT_EQ(d.feed(tx({ret("a", "k", 7)})),
              changes(2, {row("k", 7, 17, 2, "0", "-1", "1")}, {row("k", 7, 17, 1, "-1", "-1", "-1")}));
}

TEST_P(Rules, AnUpdateIsARetractionThenAnInsert) {
    d.feed(tx({ins("a", "k", 0, "1")}));
    EXPECT_EQ(d.feed(tx({ret("a", "k", 0), ins("a", "k", 3, "5")})),
              changes(2, {row("k", 0, 10, 1, "1", "1", "1")}, {row("k", 3, 13, 1, "5", "5", "5")}));
}

TEST_P(Rules, ChangesThatCancelWithinATransactionAreNotListed) {
    d.feed(tx({ins("a", "k", 0, "1")}));
    EXPECT_EQ(d.feed(tx({ins("b", "k", 5, "2"), ret("b", "k", 5)})), changes(2, {}, {}));
    EXPECT_EQ(d.feed(tx({ins("c", "j", 5, "2"), ret("c", "j", 5)})), changes(3, {}, {}));
    EXPECT_EQ(d.feed(tx({})), changes(4, {}, {}));
}

TEST_P(Rules, LateInsert) {
    d.feed(wm(100));  // horizon 80
    EXPECT_EQ(d.feed(tx({ins("a", "k", 79, "1"), ins("b", "k", 80, "2")})),
              changes(1, {}, {row("k", 80, 90, 1, "2", "2", "2")},
                      R"({"index":0,"id":"a","key":"k","ts":79})"));
    EXPECT_EQ(d.stream().active_events(), 1U);
}

TEST_P(Rules, ATransactionWhoseMutationsAreAllLateStillCounts) {
    d.feed(wm(100));
    EXPECT_EQ(d.feed(tx({ins("a", "k", 1, "1"), ret("b", "k", 2)})),
              changes(1, {}, {}, R"({"index":0,"id":"a","key":"k","ts":1},{"index":1,"id":"b","key":"k","ts":2})"));
    EXPECT_EQ(d.stream().version(), 1);
}

TEST_P(Rules, LateRetraction) {
    d.feed(tx({ins("a", "k", 85, "1")}));
    d.feed(wm(110));  // horizon 90: a (ts 85) is sealed, its session [85,95) open
    EXPECT_EQ(d.feed(tx({ret("a", "k", 85)})), changes(2, {}, {}, R"({"index":0,"id":"a","key":"k","ts":85})"));
    EXPECT_EQ(d.feed("{\"snapshot\":true}"),
              R"({"version":2,"watermark":110,"rows":[)" + row("k", 85, 95, 1, "1", "1", "1") + "]}");
}

TEST_P(Rules, ASealedEventsRetractionIsLateWhileItsSessionIsOpen) {
    d.feed(tx({ins("a", "k", 75, "1"), ins("b", "k", 85, "2"), ins("c", "k", 95, "4")}));
    EXPECT_EQ(d.feed(wm(105)), R"({"version":1,"watermark":105,"finalized":[]})");  // horizon 85
    // a is sealed (75 < 85) inside the open session [75,105): late, kept.
    EXPECT_EQ(d.feed(tx({ret("a", "k", 75)})), changes(2, {}, {}, R"({"index":0,"id":"a","key":"k","ts":75})"));
    // b is at the horizon itself: admissible; removing it splits the session.
    EXPECT_EQ(d.feed(tx({ret("b", "k", 85)})),
              changes(3, {row("k", 75, 105, 3, "7", "1", "4")},
                      {row("k", 75, 85, 1, "1", "1", "1"), row("k", 95, 105, 1, "4", "4", "4")}));
    // [75,85) ends exactly at the horizon: not final yet.
    EXPECT_EQ(d.feed(wm(105)), R"({"version":3,"watermark":105,"finalized":[]})");
    EXPECT_EQ(d.feed(wm(106)), R"({"version":3,"watermark":106,"finalized":[)" +
                                   row("k", 75, 85, 1, "1", "1", "1", true) + "]}");
}

TEST_P(Rules, AnInsertMayJoinASessionWithSealedEvents) {
    d.feed(tx({ins("a", "k", 75, "1")}));
    d.feed(wm(100));  // horizon 80, session [75,85) open
    EXPECT_EQ(d.feed(tx({ins("b", "k", 82, "2")})),
              changes(2, {row("k", 75, 85, 1, "1", "1", "1")}, {row("k", 75, 92, 2, "3", "1", "2")}));
}

TEST_P(Rules, FinalityAtTheBoundary) {
    d.feed(tx({ins("a", "k", 0, "1")}));  // end 10
    EXPECT_EQ(d.feed(wm(30)), R"({"version":1,"watermark":30,"finalized":[]})");  // end == H: not final
    EXPECT_EQ(d.feed(wm(31)),
              R"({"version":1,"watermark":31,"finalized":[)" + row("k", 0, 10, 1, "1", "1", "1", true) + "]}");
    // Reported once only.
    EXPECT_EQ(d.feed(wm(1000)), R"({"version":1,"watermark":1000,"finalized":[]})");
    EXPECT_EQ(d.feed("{\"snapshot\":true}"), R"({"version":1,"watermark":1000,"rows":[)" +
                                                  row("k", 0, 10, 1, "1", "1", "1", true) + "]}");
}

TEST_P(Rules, FinalizedRowsAreSortedByKeyThenStart) {
    d.feed(tx({ins("a", "z", 0, "1"), ins("b", "y", 40, "2"), ins("c", "y", 0, "3")}));
    EXPECT_EQ(d.feed(wm(100)), R"({"version":1,"watermark":100,"finalized":[)" +
                                   row("y", 0, 10, 1, "3", "3", "3", true) + "," +
                                   row("y", 40, 50, 1, "2", "2", "2", true) + "," +
                                   row("z", 0, 10, 1, "1", "1", "1", true) + "]}");
}

TEST_P(Rules, AWatermarkThatGoesBackIsAnError) {
    d.feed(wm(50));
    EXPECT_EQ(d.feed(wm(49)), R"({"error":{"line":2,"message":"watermark: 49 is behind the current watermark 50"}})");
    EXPECT_EQ(d.last_outcome(), Stream::Outcome::error);
    EXPECT_EQ(d.feed(wm(50)), R"({"version":0,"watermark":50,"finalized":[]})");
}

// Mutations are parsed ahead of their identity checks (to prefetch the index);
// the error reported must still be the first one in mutation order.
TEST_P(Rules, TheFirstErrorInMutationOrderIsReported) {
    d.feed(tx({ins("a", "k", 0, "1")}));
    EXPECT_EQ(d.feed(tx({ins("b", "k", 1, "1"), ins("a", "k", 2, "2"), R"({"insert":{"id":"c"}})"})),
              R"j({"error":{"line":2,"index":1,"message":"tx[1].insert: an active event with id \"a\" already exists (key \"k\", ts 0)"}})j");
    EXPECT_EQ(d.feed(tx({ins("b", "k", 1, "1"), R"({"insert":{"id":"c"}})", ins("a", "k", 2, "2")})),
              R"j({"error":{"line":3,"index":1,"message":"tx[1].insert: missing member \"key\""}})j");
    EXPECT_EQ(d.feed(tx({ins("b", "k", 1, "1")})),
              changes(2, {row("k", 0, 10, 1, "1", "1", "1")}, {row("k", 0, 11, 2, "2", "1", "1")}));
}

// forget drops sealed ids from the identity index, one by one or in one
// sweep when they are many; an id used again since must stay either way.
TEST_P(Rules, AnIdUsedAgainAfterSealingSurvivesForget) {
    for (const int others : {0, 100}) {
        Driver fresh(GetParam());
        std::vector<std::string> open;
        for (int i = 0; i < others; ++i) open.push_back(ins("o" + std::to_string(i), "open", 1000 + i, "1"));
        if (!open.empty()) {
            std::string line = "{\"tx\":[";
            for (std::size_t i = 0; i < open.size(); ++i) line += (i == 0 ? "" : ",") + open[i];
            fresh.feed(line + "]}");
        }
        fresh.feed(tx({ins("a", "k", 0, "1"), ins("x", "k", 3, "1")}));
        fresh.feed(wm(25));  // horizon 5: a and x sealed
        fresh.feed(tx({ins("a", "k", 8, "2")}));
        fresh.feed("{\"forget\":true}");
        const std::string v = std::to_string(others == 0 ? 3 : 4);
        EXPECT_EQ(fresh.feed(tx({ret("a", "k", 8)})),
                  changes(std::stoll(v), {row("k", 0, 18, 3, "4", "1", "2")}, {row("k", 0, 13, 2, "2", "1", "1")}))
            << others;
        EXPECT_EQ(fresh.feed(tx({ins("x", "k", 9, "1")})).substr(0, 11), "{\"version\":") << others;
    }
}

// A rejected transaction leaves no trace: keys it named first are released
// again (before, they stayed registered for good).
TEST_P(Rules, ARejectedTransactionRegistersNoKey) {
    d.feed(tx({ins("a", "k", 0, "1")}));
    ASSERT_EQ(d.stream().key_count(), 1U);
    const std::string before = d.feed("{\"snapshot\":true}");
    EXPECT_EQ(d.feed(tx({ins("b", "new1", 1, "1"), ins("c", "new2", 1, "1"), ins("a", "k", 2, "2")})).substr(0, 28),
              R"({"error":{"line":3,"index":2)");
    EXPECT_EQ(d.stream().key_count(), 1U);
    EXPECT_EQ(d.feed(tx({ins("d", "new3", 1, "1"), R"({"insert":{"id":"e"}})"})).substr(0, 28),
              R"({"error":{"line":4,"index":1)");
    EXPECT_EQ(d.stream().key_count(), 1U);
    EXPECT_EQ(d.feed("{\"snapshot\":true}"), before);
    // A key the rejected transaction only touched again stays.
    EXPECT_EQ(d.feed(tx({ins("f", "k", 3, "1"), ins("a", "k", 4, "1")})).substr(0, 28),
              R"({"error":{"line":6,"index":1)");
    EXPECT_EQ(d.stream().key_count(), 1U);
    // The released ids are reused correctly.
    EXPECT_EQ(d.feed(tx({ins("b", "new1", 1, "1")})),
              changes(2, {}, {row("new1", 1, 11, 1, "1", "1", "1")}));
    EXPECT_EQ(d.stream().key_count(), 2U);
    EXPECT_EQ(d.feed(tx({ins("c", "k", 5, "1")})),
              changes(3, {row("k", 0, 10, 1, "1", "1", "1")}, {row("k", 0, 15, 2, "2", "1", "1")}));
}

TEST_P(Rules, DuplicateIdsAreErrors) {
    d.feed(tx({ins("a", "k", 0, "1")}));
    EXPECT_EQ(d.feed(tx({ins("b", "k", 1, "1"), ins("a", "j", 5, "2")})),
              R"j({"error":{"line":2,"index":1,"message":"tx[1].insert: an active event with id \"a\" already exists (key \"k\", ts 0)"}})j");
    EXPECT_EQ(d.feed(tx({ins("c", "k", 1, "1"), ins("c", "k", 2, "2")})),
              R"j({"error":{"line":3,"index":1,"message":"tx[1].insert: an active event with id \"c\" already exists (key \"k\", ts 1)"}})j");
    EXPECT_EQ(d.stream().version(), 1);
    EXPECT_EQ(d.stream().active_events(), 1U);
}

TEST_P(Rules, ASealedEventsIdMayBeUsedAgain) {
    d.feed(tx({ins("a", "k", 0, "1")}));
    d.feed(wm(25));  // horizon 5: a sealed
    EXPECT_EQ(d.feed(tx({ins("a", "k", 8, "2")})),
              changes(2, {row("k", 0, 10, 1, "1", "1", "1")}, {row("k", 0, 18, 2, "3", "1", "2")}));
    EXPECT_EQ(d.feed(tx({ret("a", "k", 8)})),
              changes(3, {row("k", 0, 18, 2, "3", "1", "2")}, {row("k", 0, 10, 1, "1", "1", "1")}));
}

TEST_P(Rules, ARetractionThatDoesNotMatchIsAnError) {
    d.feed(tx({ins("a", "k", 5, "1.5")}));
    EXPECT_EQ(d.feed(tx({ret("zz", "k", 5)})),
              R"({"error":{"line":2,"index":0,"message":"tx[0].retract: no active event with id \"zz\""}})");
    EXPECT_EQ(d.feed(tx({ret("a", "j", 5)})),
              R"({"error":{"line":3,"index":0,"message":"tx[0].retract: event \"a\" has key \"k\", not \"j\""}})");
    EXPECT_EQ(d.feed(tx({ret("a", "k", 6)})),
              R"({"error":{"line":4,"index":0,"message":"tx[0].retract: event \"a\" has ts 5, not 6"}})");
    EXPECT_EQ(d.feed(R"({"tx":[{"retract":{"id":"a","key":"k","ts":5,"value":2}}]})"),
              R"({"error":{"line":5,"index":0,"message":"tx[0].retract: event \"a\" has value 1.5, not 2"}})");
    EXPECT_EQ(d.feed(R"({"tx":[{"retract":{"id":"a","key":"k","ts":5,"value":1.5}}]})"),
              changes(2, {row("k", 5, 15, 1, "1.5", "1.5", "1.5")}, {}));
    // Retracted ids are gone.
    EXPECT_EQ(d.feed(tx({ret("a", "k", 5)})),
              R"({"error":{"line":7,"index":0,"message":"tx[0].retract: no active event with id \"a\""}})");
}

TEST_P(Rules, AnErrorRejectsTheWholeTransaction) {
    d.feed(tx({ins("a", "k", 0, "1")}));
    const std::string before = d.feed("{\"snapshot\":true}");
    EXPECT_EQ(d.feed(tx({ins("b", "k", 5, "2"), ret("a", "k", 0), R"({"insert":{"id":"c","key":"k","ts":"x","value":1}})"})),
              R"({"error":{"line":3,"index":2,"message":"tx[2].insert.ts: expected an integer in [-2^60, 2^60]"}})");
    EXPECT_EQ(d.feed(tx({ins("b", "k", 5, "2"), ret("a", "k", 0), ret("a", "k", 0)})),
              R"({"error":{"line":4,"index":2,"message":"tx[2].retract: no active event with id \"a\""}})");
    EXPECT_EQ(d.feed("{\"snapshot\":true}"), before);
    EXPECT_EQ(d.stream().version(), 1);
    // The ids the rejected transactions touched are as before.
    EXPECT_EQ(d.feed(tx({ins("b", "k", 5, "2")})),
              changes(2, {row("k", 0, 10, 1, "1", "1", "1")}, {row("k", 0, 15, 2, "3", "1", "2")}));
}

TEST_P(Rules, ChecksRunShapeThenLatenessThenIdentity) {
    d.feed(tx({ins("a", "k", 100, "1")}));
    d.feed(wm(200));  // horizon 180
    // Late before identity: a late duplicate of an active id is just late.
    d.feed(tx({ins("b", "k", 190, "1")}));
    EXPECT_EQ(d.feed(tx({ins("b", "k", 5, "1")})), changes(3, {}, {}, R"({"index":0,"id":"b","key":"k","ts":5})"));
    // Shape before lateness: a late mutation with a bad value is an error.
    EXPECT_EQ(d.feed(tx({ins("c", "k", 5, "true")})),
              R"({"error":{"line":5,"index":0,"message":"tx[0].insert.value: expected a number"}})");
}

TEST_P(Rules, SumsAreExactAndOrderIndependent) {
    EXPECT_EQ(d.feed(tx({ins("a", "k", 0, "1e16"), ins("b", "k", 1, "1"), ins("c", "k", 2, "-1e16")})),
              changes(1, {}, {row("k", 0, 12, 3, "1", "-1e+16", "1e+16")}));
    EXPECT_EQ(d.feed(tx({ret("b", "k", 1)})),
              changes(2, {row("k", 0, 12, 3, "1", "-1e+16", "1e+16")}, {row("k", 0, 12, 2, "0", "-1e+16", "1e+16")}));
    Driver other(GetParam());
    for (int i = 0; i < 10; ++i) other.feed(tx({ins("x" + std::to_string(i), "k", i, "0.1")}));
    EXPECT_EQ(other.feed("{\"snapshot\":true}"),
              R"({"version":10,"watermark":null,"rows":[)" + row("k", 0, 19, 10, "1", "0.1", "0.1") + "]}");
}

TEST_P(Rules, InsertThenRetractEqualsNeverSeen) {
    Driver with(GetParam()), without(GetParam());
    for (Driver* x : {&with, &without}) x->feed(tx({ins("a", "k", 0, "0.1"), ins("b", "k", 3, "0.7")}));
    with.feed(tx({ins("c", "k", 1, "1e300"), ins("d", "k", 2, "3e-300")}));
    with.feed(tx({ret("c", "k", 1)}));
    with.feed(tx({ret("d", "k", 2)}));
    without.feed(tx({}));
    without.feed(tx({}));
    without.feed(tx({}));
    EXPECT_EQ(with.feed("{\"snapshot\":true}"), without.feed("{\"snapshot\":true}"));
}

TEST_P(Rules, ASumBeyondTheDoubleRangeRejectsTheTransaction) {
    d.feed(tx({ins("a", "k", 0, "1.7976931348623157e308")}));
    EXPECT_EQ(d.feed(tx({ins("b", "j", 0, "1"), ins("c", "k", 1, "1.7976931348623157e308")})),
              R"({"error":{"line":2,"message":"tx: the sum of the session of key \"k\" starting at 0 would exceed the double range"}})");
    EXPECT_EQ(d.feed("{\"snapshot\":true}"),
              R"({"version":1,"watermark":null,"rows":[)" +
                  row("k", 0, 10, 1, "1.7976931348623157e+308", "1.7976931348623157e+308", "1.7976931348623157e+308") +
                  "]}");
    EXPECT_EQ(d.stream().active_events(), 1U);
    // The rejected ids are free again.
    EXPECT_EQ(d.feed(tx({ins("c", "j", 1, "2")})), changes(2, {}, {row("j", 1, 11, 1, "2", "2", "2")}));
}

TEST_P(Rules, ForgetDropsFinalRowsAndFoldsSealedEvents) {
    d.feed(tx({ins("a", "k", 0, "1"), ins("b", "k", 50, "2"), ins("c", "k", 58, "3"), ins("d", "j", 0, "4")}));
    d.feed(wm(75));  // horizon 55: [0,10) of k and j final; b sealed in [50,68)
    EXPECT_EQ(d.feed("{\"forget\":true}"), R"({"version":1,"forgotten":2,"folded":1})");
    EXPECT_EQ(d.stream().active_events(), 1U);
    EXPECT_EQ(d.stream().row_count(), 1U);
    EXPECT_EQ(d.feed("{\"snapshot\":true}"),
              R"({"version":1,"watermark":75,"rows":[)" + row("k", 50, 68, 2, "5", "2", "3") + "]}");
    // The folded session still grows, splits after its block, and finalizes.
    EXPECT_EQ(d.feed(tx({ins("e", "k", 66, "4")})),
              changes(2, {row("k", 50, 68, 2, "5", "2", "3")}, {row("k", 50, 76, 3, "9", "2", "4")}));
    EXPECT_EQ(d.feed(tx({ret("c", "k", 58)})),
              changes(3, {row("k", 50, 76, 3, "9", "2", "4")},
                      {row("k", 50, 60, 1, "2", "2", "2"), row("k", 66, 76, 1, "4", "4", "4")}));
    EXPECT_EQ(d.feed("{\"forget\":true}"), R"({"version":3,"forgotten":0,"folded":0})");
    EXPECT_EQ(d.feed(wm(100)), R"({"version":3,"watermark":100,"finalized":[)" +
                                   row("k", 50, 60, 1, "2", "2", "2", true) + "," +
                                   row("k", 66, 76, 1, "4", "4", "4", true) + "]}");
    EXPECT_EQ(d.feed("{\"forget\":true}"), R"({"version":3,"forgotten":2,"folded":0})");
    EXPECT_EQ(d.stream().active_events(), 0U);
    EXPECT_EQ(d.feed("{\"snapshot\":true}"), R"({"version":3,"watermark":100,"rows":[]})");
}

TEST_P(Rules, SnapshotBeforeAnyWatermark) {
    EXPECT_EQ(d.feed("{\"snapshot\":true}"), R"({"version":0,"watermark":null,"rows":[]})");
}

TEST_P(Rules, NegativeAndExtremeTimestamps) {
    const long long top = 1LL << 60;
    EXPECT_EQ(d.feed(tx({ins("a", "k", -top, "1"), ins("b", "k", top, "2")})),
              changes(1, {},
                      {row("k", -top, -top + 10, 1, "1", "1", "1"), row("k", top, top + 10, 1, "2", "2", "2")}));
    EXPECT_EQ(d.feed(wm(-top)), R"({"version":1,"watermark":-1152921504606846976,"finalized":[]})");
}

}  // namespace
}  // namespace sluice::tideweave::testing
