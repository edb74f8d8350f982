// The snapshot lines of a CDC stream (chunks, done, aborted) as the stream
// worker reads them: bytes alone, no server.
#include <gtest/gtest.h>

#include "ndjson_error.hpp"
#include "sluice/pipeline/error.hpp"
#include "sluice/pipeline/ndjson_transaction.hpp"

namespace sluice::pipeline {
namespace {

using V = SourceValue;

TEST(NdjsonSnapshotLines, AChunkGivesItsRowsOfTheTableAsInserts) {
    NdjsonTransactions r({"id", "k", "t", "v"}, "shop", "ev");
    const ParsedLine& l = r.parse(R"({"snapshot":{"gtid":"0-1-41,1-2-3","db":"shop","table":"ev"},"rows":[)"
                                  R"({"id":1,"k":"a","t":5,"v":2.5,"other":"x"},{"id":2,"k":null,"t":6,"v":"1.50"}]})",
                                  "here");
    EXPECT_FALSE(l.transaction);
    EXPECT_EQ(l.snapshot, SnapshotPart::chunk);
    EXPECT_EQ(l.snapshot_gtid, "0-1-41,1-2-3");
    ASSERT_EQ(l.changes.size(), 2U);
    EXPECT_EQ(l.changes[0].op, SourceChange::Op::insert);
    EXPECT_FALSE(l.changes[0].before);
    EXPECT_EQ((*l.changes[0].after)[0].kind, V::Kind::signed_integer);
    EXPECT_EQ((*l.changes[0].after)[1].text, "a");
    EXPECT_EQ((*l.changes[0].after)[3].d, 2.5);
    EXPECT_EQ((*l.changes[1].after)[1].kind, V::Kind::null);
    EXPECT_EQ((*l.changes[1].after)[3].text, "1.50");
}

TEST(NdjsonSnapshotLines, AChunkOfAnotherTableIsASnapshotLineWithoutRows) {
    NdjsonTransactions r({"id", "k", "t", "v"}, "shop", "ev");
    const ParsedLine& l = r.parse(R"({"snapshot":{"gtid":"0-1-41","db":"shop","table":"other"},"rows":[{"id":1}]})", "h");
    EXPECT_EQ(l.snapshot, SnapshotPart::chunk);
    EXPECT_TRUE(l.changes.empty());
}

TEST(NdjsonSnapshotLines, DoneAndAbortedLinesNameTheirSnapshot) {
    NdjsonTransactions r({"id", "k", "t", "v"}, "shop", "ev");
    const ParsedLine& done = r.parse(R"({"snapshot":{"gtid":"0-1-41","done":true}})", "h");
    EXPECT_EQ(done.snapshot, SnapshotPart::done);
    EXPECT_EQ(done.snapshot_gtid, "0-1-41");
    EXPECT_TRUE(done.changes.empty());
    const ParsedLine& aborted = r.parse(R"({"snapshot":{"gtid":"","aborted":true}})", "h");
    EXPECT_EQ(aborted.snapshot, SnapshotPart::aborted);
    EXPECT_EQ(aborted.snapshot_gtid, "");
    // A transaction after them is no snapshot line.
    const ParsedLine& t = r.parse(R"({"gtid":"0-1-42","server_id":1,"ts":1,"changes":[]})", "h");
    EXPECT_TRUE(t.transaction);
    EXPECT_EQ(t.snapshot, SnapshotPart::none);
}

using test::error_of;

TEST(NdjsonSnapshotLines, BrokenSnapshotLinesAreErrorsNamingThePlace) {
    EXPECT_NE(error_of(R"({"snapshot":{"db":"shop","table":"ev"},"rows":[]})").find("stream \"S\" sequence 9: a snapshot line without a \"gtid\""),
              std::string::npos);
    EXPECT_NE(error_of(R"({"snapshot":{"gtid":"0-1-1","done":false}})").find("\"done\" false"), std::string::npos);
    EXPECT_NE(error_of(R"({"snapshot":{"gtid":"0-1-1"}})").find("a snapshot chunk without \"db\" and \"table\""),
              std::string::npos);
    EXPECT_NE(error_of(R"({"snapshot":{"gtid":"0-1-1","db":"shop","table":"ev"}})").find("without a \"rows\" array"),
              std::string::npos);
    EXPECT_NE(error_of(R"({"snapshot":{"gtid":"0-1-1","db":"shop","table":"ev"},"rows":[1]})")
                  .find("sequence 9, row 0: a snapshot row that is not an object"),
              std::string::npos);
    EXPECT_EQ(error_of(R"({"snapshot":{"gtid":"0-1-1","db":"shop","table":"ev"},"rows":[{"id":1,"k":"a","t":5}]})"),
              "stream \"S\" sequence 9, row 0: a snapshot row of shop.ev lacks column \"v\" (--value)");
}

}  // namespace
}  // namespace sluice::pipeline
