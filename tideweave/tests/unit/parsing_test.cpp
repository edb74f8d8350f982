// Strict input (every member, type and range the contract names) and the
// exact output forms: numbers, strings, error objects, empty lines.
#include <gtest/gtest.h>

#include "driver.hpp"

namespace sluice::tideweave::testing {
namespace {

class Parsing : public ::testing::TestWithParam<EngineKind> {
protected:
    // The error message for `line` (fed as line 1 of a fresh stream).
    std::string error_of(std::string_view line) {
        Driver d(GetParam());
        const std::string out = d.feed(line);
        EXPECT_EQ(d.last_outcome(), Stream::Outcome::error) << out;
        EXPECT_EQ(d.stream().version(), 0);
        return out;
    }
    std::string message_of(std::string_view line) {
        const std::string out = error_of(line);
        const auto at = out.find("\"message\":\"");
        if (at == std::string::npos) return out;
        return out.substr(at + 11, out.size() - at - 11 - 3);
    }
};

INSTANTIATE_TEST_SUITE_P(Engines, Parsing, ::testing::Values(EngineKind::incremental, EngineKind::naive), engine_name);

TEST_P(Parsing, EmptyLinesProduceNothing) {
    Driver d(GetParam());
    EXPECT_EQ(d.feed(""), "");
    EXPECT_EQ(d.last_outcome(), Stream::Outcome::empty);
    EXPECT_EQ(d.feed(" \t\r"), "");
    EXPECT_EQ(d.last_outcome(), Stream::Outcome::empty);
    // Line numbers count every line, empty ones included.
    EXPECT_EQ(d.feed("{}"),
              R"({"error":{"line":3,"message":"expected a JSON object with one member: tx, watermark, forget, snapshot or checkpoint"}})");
}

TEST_P(Parsing, NotJson) {
    EXPECT_EQ(error_of("{\"tx\":["), R"({"error":{"line":1,"message":"invalid JSON: The JSON document has an improper structure: missing or superfluous commas, braces, missing keys, etc."}})");
    EXPECT_EQ(message_of("{\"snapshot\":true} x").substr(0, 13), "invalid JSON:");
    EXPECT_EQ(message_of("\"tx\"").substr(0, 26), "expected a JSON object wit");
    EXPECT_EQ(message_of("[1]").substr(0, 26), "expected a JSON object wit");
}

TEST_P(Parsing, InvalidUtf8IsAnError) {
    EXPECT_EQ(message_of("{\"tx\":[{\"insert\":{\"id\":\"\xff\",\"key\":\"k\",\"ts\":1,\"value\":1}}]}"),
              "invalid JSON: The input is not valid UTF-8");
}

TEST_P(Parsing, CommandMembers) {
    EXPECT_EQ(message_of(R"({"tx":[],"tx":[]})"), R"(duplicate member \"tx\")");
    EXPECT_EQ(message_of(R"({"tx":[],"snapshot":true})"), R"(more than one command in a line: \"tx\" and \"snapshot\")");
    EXPECT_EQ(message_of(R"({"snapshot":true,"extra":1})"),
              R"(unknown member \"extra\" (expected one of tx, watermark, forget, snapshot, checkpoint))");
    EXPECT_EQ(message_of(R"({"forget":false})"), "forget: expected true");
    EXPECT_EQ(message_of(R"({"snapshot":1})"), "snapshot: expected true");
    EXPECT_EQ(message_of(R"({"checkpoint":null})"), "checkpoint: expected true");
    EXPECT_EQ(message_of(R"({"tx":{}})"), "tx: expected an array of mutations");
    EXPECT_EQ(message_of(R"({"watermark":1.5})"),
              "watermark: expected an integer in [-2^60, 2^60] (no fraction or exponent)");
    EXPECT_EQ(message_of(R"({"watermark":"5"})"), "watermark: expected an integer in [-2^60, 2^60]");
    EXPECT_EQ(message_of(R"({"watermark":1152921504606846977})"), "watermark: expected an integer in [-2^60, 2^60]");
    EXPECT_EQ(message_of(R"({"watermark":-100000000000000000000000})"), "watermark: expected an integer in [-2^60, 2^60]");
    EXPECT_EQ(message_of(R"({"watermark":1e400})"),
              "watermark: expected an integer in [-2^60, 2^60] (no fraction or exponent)");
}

TEST_P(Parsing, MutationShape) {
    EXPECT_EQ(error_of(R"({"tx":[1]})"),
              R"({"error":{"line":1,"index":0,"message":"tx[0]: expected an object with one member, \"insert\" or \"retract\""}})");
    EXPECT_EQ(message_of(R"({"tx":[{"insert":{"id":"a","key":"k","ts":1,"value":1},"retract":{}}]})"),
              R"(tx[0]: expected an object with one member, \"insert\" or \"retract\")");
    EXPECT_EQ(message_of(R"({"tx":[{"upsert":{}}]})"),
              R"(tx[0]: unknown member \"upsert\" (expected \"insert\" or \"retract\"))");
    EXPECT_EQ(message_of(R"({"tx":[{"insert":[]}]})"), "tx[0].insert: expected an object");
    EXPECT_EQ(message_of(R"({"tx":[{"insert":{"id":"a","key":"k","ts":1}}]})"),
              R"(tx[0].insert: missing member \"value\")");
    EXPECT_EQ(message_of(R"({"tx":[{"retract":{"id":"a","ts":1}}]})"), R"(tx[0].retract: missing member \"key\")");
    EXPECT_EQ(message_of(R"({"tx":[{"insert":{"id":"a","id":"b","key":"k","ts":1,"value":1}}]})"),
              R"(tx[0].insert: duplicate member \"id\")");
    EXPECT_EQ(message_of(R"({"tx":[{"insert":{"id":"a","key":"k","ts":1,"value":1,"note":2}}]})"),
              R"(tx[0].insert: unknown member \"note\" (expected id, key, ts and value))");
    // The index is the offending mutation's.
    EXPECT_EQ(error_of(R"({"tx":[{"insert":{"id":"a","key":"k","ts":1,"value":1}},{"insert":{"id":"","key":"k","ts":1,"value":1}}]})"),
              R"({"error":{"line":1,"index":1,"message":"tx[1].insert.id: expected a non-empty string of at most 256 bytes"}})");
}

TEST_P(Parsing, FieldRanges) {
    auto insert_with = [](std::string_view id, std::string_view key, std::string_view ts, std::string_view value) {
        return "{\"tx\":[{\"insert\":{\"id\":" + std::string(id) + ",\"key\":" + std::string(key) +
               ",\"ts\":" + std::string(ts) + ",\"value\":" + std::string(value) + "}}]}";
    };
    const std::string id256 = "\"" + std::string(256, 'i') + "\"";
    const std::string id257 = "\"" + std::string(257, 'i') + "\"";
    EXPECT_EQ(message_of(insert_with(id257, "\"k\"", "1", "1")),
              "tx[0].insert.id: expected a non-empty string of at most 256 bytes");
    EXPECT_EQ(message_of(insert_with("7", "\"k\"", "1", "1")),
              "tx[0].insert.id: expected a non-empty string of at most 256 bytes");
    EXPECT_EQ(message_of(insert_with("\"a\"", id257, "1", "1")),
              "tx[0].insert.key: expected a string of at most 256 bytes");
    EXPECT_EQ(message_of(insert_with("\"a\"", "\"k\"", "1.0", "1")),
              "tx[0].insert.ts: expected an integer in [-2^60, 2^60] (no fraction or exponent)");
    EXPECT_EQ(message_of(insert_with("\"a\"", "\"k\"", "1e1", "1")),
              "tx[0].insert.ts: expected an integer in [-2^60, 2^60] (no fraction or exponent)");
    EXPECT_EQ(message_of(insert_with("\"a\"", "\"k\"", "-1152921504606846977", "1")),
              "tx[0].insert.ts: expected an integer in [-2^60, 2^60]");
    EXPECT_EQ(message_of(insert_with("\"a\"", "\"k\"", "1", "9007199254740993")),
              "tx[0].insert.value: integer beyond 2^53 in magnitude");
    EXPECT_EQ(message_of(insert_with("\"a\"", "\"k\"", "1", "-9007199254740993")),
              "tx[0].insert.value: integer beyond 2^53 in magnitude");
    EXPECT_EQ(message_of(insert_with("\"a\"", "\"k\"", "1", "18446744073709551615")),
              "tx[0].insert.value: integer beyond 2^53 in magnitude");
    // Integer literals beyond 64 bits are still named by member (and strings
    // that look like them are left alone).
    EXPECT_EQ(error_of(R"({"tx":[{"insert":{"id":"123456789012345678901234","key":"k","ts":1,"value":1}},)"
                       R"({"insert":{"id":"b","key":"k","ts":1,"value":-123456789012345678901234}}]})"),
              R"({"error":{"line":1,"index":1,"message":"tx[1].insert.value: integer beyond 2^53 in magnitude"}})");
    EXPECT_EQ(message_of(insert_with("\"a\"", "\"k\"", "1", "null")), "tx[0].insert.value: expected a number");
    // A number that overflows a double is named by line and member too (it
    // used to be "invalid JSON" for the whole line), whatever else the line
    // holds; the largest double itself, in the same line, is still accepted.
    EXPECT_EQ(message_of(insert_with("\"a\"", "\"k\"", "1", "1e400")),
              "tx[0].insert.value: number beyond the double range");
    EXPECT_EQ(message_of(insert_with("\"a\"", "\"k\"", "1", "-17976931348623159e292")),
              "tx[0].insert.value: number beyond the double range");
    EXPECT_EQ(error_of(R"({"tx":[{"insert":{"id":"1e400","key":"k","ts":1,"value":1.7976931348623157e308}},)"
                       R"({"insert":{"id":"b","key":"k","ts":1,"value":-1.7976931348623157e308}},)"
                       R"({"insert":{"id":"c","key":"k","ts":1,"value":1e-400}},)"
                       R"({"insert":{"id":"d","key":"k","ts":1,"value":123456789012345678901234}},)"
                       R"({"insert":{"id":"e","key":"k","ts":1,"value":0.5e309}}]})"),
              R"({"error":{"line":1,"index":3,"message":"tx[3].insert.value: integer beyond 2^53 in magnitude"}})");
    EXPECT_EQ(error_of(R"({"tx":[{"insert":{"id":"a","key":"k","ts":1,"value":1.7976931348623157e308}},)"
                       R"({"insert":{"id":"e","key":"k","ts":1,"value":-0.5e309}}]})"),
              R"({"error":{"line":1,"index":1,"message":"tx[1].insert.value: number beyond the double range"}})");
    EXPECT_EQ(message_of(insert_with("\"a\"", "\"k\"", "1e400", "1")),
              "tx[0].insert.ts: expected an integer in [-2^60, 2^60] (no fraction or exponent)");
    EXPECT_EQ(error_of(R"({"watermark":-1e400})"),
              R"j({"error":{"line":1,"message":"watermark: expected an integer in [-2^60, 2^60] (no fraction or exponent)"}})j");
    EXPECT_EQ(error_of(R"({"tx":[{"insert":{"id":"a","key":"k","ts":1,"value":01}}]})"),
              R"({"error":{"line":1,"message":"invalid JSON: a number is malformed"}})");

    // The edges of every range are accepted.
    Driver d(GetParam());
    EXPECT_EQ(d.feed(insert_with(id256, "\"" + std::string(256, 'k') + "\"", "1152921504606846976",
                                 "9007199254740992")),
              changes(1, {},
                      {row(std::string(256, 'k'), 1152921504606846976, 1152921504606846986, 1, "9007199254740992",
                           "9007199254740992", "9007199254740992")}));
    EXPECT_EQ(d.feed(insert_with("\"b\"", "\"\"", "-1152921504606846976", "-9007199254740992")),
              changes(2, {},
                      {row("", -1152921504606846976, -1152921504606846966, 1, "-9007199254740992",
                           "-9007199254740992", "-9007199254740992")}));
}

TEST_P(Parsing, NumbersPrintShortestAndIntegralAsIntegers) {
    Driver d(GetParam());
    EXPECT_EQ(d.feed(tx({ins("a", "k", 0, "0.1")})), changes(1, {}, {row("k", 0, 10, 1, "0.1", "0.1", "0.1")}));
    EXPECT_EQ(d.feed(tx({ins("b", "j", 0, "2.50")})), changes(2, {}, {row("j", 0, 10, 1, "2.5", "2.5", "2.5")}));
    EXPECT_EQ(d.feed(tx({ins("c", "i", 0, "1e16")})),
              changes(3, {}, {row("i", 0, 10, 1, "1e+16", "1e+16", "1e+16")}));
    EXPECT_EQ(d.feed(tx({ins("d", "h", 0, "1.0E2")})), changes(4, {}, {row("h", 0, 10, 1, "100", "100", "100")}));
    EXPECT_EQ(d.feed(tx({ins("e", "g", 0, "-0.0")})), changes(5, {}, {row("g", 0, 10, 1, "0", "0", "0")}));
    EXPECT_EQ(d.feed(tx({ins("f", "f", 0, "1e-7")})),
              changes(6, {}, {row("f", 0, 10, 1, "1e-07", "1e-07", "1e-07")}));
    EXPECT_EQ(d.feed(tx({ins("g", "e", 0, "5e-324")})),
              changes(7, {}, {row("e", 0, 10, 1, "5e-324", "5e-324", "5e-324")}));
    // Beyond 2^53, integral doubles print in scientific form.
    EXPECT_EQ(d.feed(tx({ins("h", "d", 0, "10000000000000002.0")})),
              changes(8, {}, {row("d", 0, 10, 1, "1.0000000000000002e+16", "1.0000000000000002e+16",
                                  "1.0000000000000002e+16")}));
    EXPECT_EQ(d.feed(tx({ins("i", "c", 0, "123456789012345680000.0")})),
              changes(9, {}, {row("c", 0, 10, 1, "1.2345678901234568e+20", "1.2345678901234568e+20",
                                  "1.2345678901234568e+20")}));
}

TEST_P(Parsing, StringsAreEscapedForAnyUtf8) {
    Driver d(GetParam());
    EXPECT_EQ(d.feed(R"({"tx":[{"insert":{"id":"q\"\\\n\u0001","key":"é€😀\t\"","ts":1,"value":1}}]})"),
              R"({"version":1,"before":[],"after":[{"key":"é€😀\t\"","start":1,"end":11,"count":1,"sum":1,"min":1,"max":1,"final":false}],"late":[]})");
    d.feed(wm(100));
    EXPECT_EQ(d.feed(R"({"tx":[{"retract":{"id":"q\"\\\n\u0001","key":"\u00e9","ts":2}}]})"),
              R"({"version":2,"before":[],"after":[],"late":[{"index":0,"id":"q\"\\\n\u0001","key":"é","ts":2}]})");
}

}  // namespace
}  // namespace sluice::tideweave::testing
