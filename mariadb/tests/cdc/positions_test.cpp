// GTID states, table filters and the --out file scan: no server.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>

#include "sluice/mariadb/cdc/gtid_state.hpp"
#include "sluice/mariadb/cdc/ndjson_file.hpp"
#include "sluice/mariadb/cdc/table_filter.hpp"
#include "sluice/mariadb/error.hpp"

namespace sluice::mariadb::cdc {
namespace {

std::string message_of(auto&& f) {
    try {
        f();
    } catch (const Error& e) {
        return e.what();
    }
    return "(no error)";
}

TEST(GtidState, ParsesFormatsAndKeepsDomainsInOrder) {
    GtidState s = GtidState::parse("1-2-7, 0-1-42");
    EXPECT_EQ(s.to_string(), "0-1-42,1-2-7");
    ASSERT_TRUE(s.domain(1));
    EXPECT_EQ(s.domain(1)->seq_no, 7U);
    EXPECT_FALSE(s.domain(2));
    s.advance({1, 3, 8});
    s.advance({5, 1, 1});
    EXPECT_EQ(s.to_string(), "0-1-42,1-3-8,5-1-1");
    EXPECT_TRUE(GtidState::parse("").empty());
    EXPECT_EQ(GtidState::parse("4294967295-4294967295-18446744073709551615").to_string(),
              "4294967295-4294967295-18446744073709551615");
}

TEST(GtidState, RejectsMalformedStatesNamingThePart) {
    EXPECT_NE(message_of([] { GtidState::parse("0-1"); }).find("'0-1'"), std::string::npos);
    EXPECT_NE(message_of([] { GtidState::parse("0-1-x"); }).find("sequence number 'x'"), std::string::npos);
    EXPECT_NE(message_of([] { GtidState::parse("0-1-2,0-1-3"); }).find("domain 0 appears twice"), std::string::npos);
    EXPECT_NE(message_of([] { GtidState::parse("4294967296-1-1"); }).find("domain"), std::string::npos);
    EXPECT_NE(message_of([] { GtidState::parse("0-1-2,"); }).find("invalid GTID ''"), std::string::npos);
    EXPECT_NE(message_of([] { GtidState::parse("-1-1-1"); }).find("invalid GTID"), std::string::npos);
}

TEST(TableFilter, MatchesExactNamesAndWholePartWildcards) {
    TableFilter f = TableFilter::parse("shop.orders,logs.*, *.audit");
    EXPECT_TRUE(f.selects("shop", "orders"));
    EXPECT_FALSE(f.selects("shop", "order"));
    EXPECT_FALSE(f.selects("Shop", "orders"));
    EXPECT_TRUE(f.selects("logs", "anything"));
    EXPECT_TRUE(f.selects("x", "audit"));
    EXPECT_FALSE(f.selects("x", "audits"));
    EXPECT_TRUE(f.selects_database("shop"));
    EXPECT_TRUE(f.selects_database("x"));  // *.audit
    TableFilter g = TableFilter::parse("shop.orders");
    EXPECT_FALSE(g.selects_database("logs"));
    EXPECT_TRUE(TableFilter{}.selects("a", "b"));
}

TEST(TableFilter, RejectsPatternsWithoutDbAndTable) {
    for (const char* bad : {"orders", "shop.", ".orders", "a.b.c", "a.b,,c.d", "`a`.b", ""}) {
        EXPECT_NE(message_of([&] { TableFilter::parse(bad); }).find("invalid table pattern"), std::string::npos) << bad;
    }
}

std::string txn(int seq) {
    return "{\"gtid\":\"0-1-" + std::to_string(seq) + "\",\"server_id\":1,\"ts\":1,\"changes\":[]}\n";
}

TEST(OutFile, ResumesAfterTheLastCompleteLineAndCutsATornOne) {
    std::string text = txn(5) + txn(6) + "{\"gtid\":\"1-2-9\",\"server_id\":2,\"ts\":1,\"db\":\"d\",\"ddl\":\"DROP TABLE t\"}\n";
    std::size_t complete = text.size();
    text += "{\"gtid\":\"0-1-7\",\"server_id\":1,\"ts\":1,\"chan";  // torn by a kill
    std::size_t keep = 0;
    FileResume r = scan_cdc_lines(text, GtidState{}, keep);
    EXPECT_TRUE(r.has_lines);
    EXPECT_EQ(keep, complete);
    EXPECT_EQ(r.cut_bytes, text.size() - complete);
    EXPECT_EQ(r.position.to_string(), "0-1-6,1-2-9");
}

TEST(OutFile, StartStateKeepsDomainsTheFileNeverMentions) {
    std::size_t keep = 0;
    FileResume r = scan_cdc_lines(txn(3), GtidState::parse("0-1-1,7-1-100"), keep);
    EXPECT_EQ(r.position.to_string(), "0-1-3,7-1-100");
    FileResume empty = scan_cdc_lines("", GtidState::parse("0-1-1"), keep);
    EXPECT_FALSE(empty.has_lines);
    EXPECT_EQ(keep, 0U);
}

TEST(OutFile, AnUnfinishedSnapshotIsCutBackToItsFirstChunk) {
    std::string done = "{\"snapshot\":{\"gtid\":\"0-1-41\",\"db\":\"d\",\"table\":\"t\"},\"rows\":[{\"id\":1}]}\n"
                       "{\"snapshot\":{\"gtid\":\"0-1-41\",\"done\":true}}\n";
    std::size_t keep = 0;
    FileResume r = scan_cdc_lines(done + txn(42), GtidState{}, keep);
    EXPECT_TRUE(r.snapshot_done);
    EXPECT_EQ(r.position.to_string(), "0-1-42");
    EXPECT_EQ(r.cut_bytes, 0U);

    std::string unfinished = "{\"snapshot\":{\"gtid\":\"0-1-41\",\"db\":\"d\",\"table\":\"t\"},\"rows\":[{\"s\":\"\\\"done\\\":true}}\"}]}\n"
                             "{\"snapshot\":{\"gtid\":\"0-1-41\",\"db\":\"d\",\"table\":\"u\"},\"rows\":[{\"id\":1}]}\n";
    FileResume u = scan_cdc_lines(unfinished, GtidState{}, keep);
    EXPECT_FALSE(u.has_lines);
    EXPECT_FALSE(u.snapshot_done);
    EXPECT_EQ(keep, 0U);
    EXPECT_EQ(u.cut_bytes, unfinished.size());
}

std::string part(int seq, int k, bool last) {
    return "{\"gtid\":\"0-1-" + std::to_string(seq) + "\",\"server_id\":1,\"ts\":1,\"part\":" + std::to_string(k) +
           (last ? ",\"last\":true" : "") + ",\"changes\":[{\"op\":\"insert\",\"db\":\"d\",\"table\":\"t\",\"after\":{}}]}\n";
}

TEST(OutFile, ATransactionInPartsCountsOnlyOnceItsLastPartIsIn) {
    std::size_t keep = 0;
    const std::string whole = txn(5) + part(6, 1, false) + part(6, 2, false) + part(6, 3, true) + txn(7);
    FileResume r = scan_cdc_lines(whole, GtidState{}, keep);
    EXPECT_EQ(r.position.to_string(), "0-1-7");
    EXPECT_EQ(keep, whole.size());
    // Killed after part 2 (and inside part 3's line): cut back to part 1.
    const std::string head = txn(5);
    const std::string cut = head + part(6, 1, false) + part(6, 2, false) + part(6, 3, true).substr(0, 20);
    r = scan_cdc_lines(cut, GtidState{}, keep);
    EXPECT_EQ(keep, head.size());
    EXPECT_EQ(r.cut_bytes, cut.size() - head.size());
    EXPECT_EQ(r.position.to_string(), "0-1-5");
    EXPECT_TRUE(r.has_lines);
    // Nothing but the first parts: as an empty file.
    r = scan_cdc_lines(part(6, 1, false), GtidState{}, keep);
    EXPECT_FALSE(r.has_lines);
    EXPECT_EQ(keep, 0U);
    // A rolled-back group's void parts still move the position past it.
    const std::string voided = part(8, 1, false) +
                               "{\"gtid\":\"0-1-8\",\"server_id\":1,\"ts\":1,\"part\":2,\"last\":true,\"rolled_back\":true,"
                               "\"changes\":[]}\n";
    r = scan_cdc_lines(voided, GtidState{}, keep);
    EXPECT_EQ(r.position.to_string(), "0-1-8");
    EXPECT_EQ(keep, voided.size());
}

TEST(OutFile, PartsOutOfOrderOrInterruptedAreRefusedNamingTheLine) {
    std::size_t keep = 0;
    auto error_of = [&](const std::string& text) { return message_of([&] { scan_cdc_lines(text, GtidState{}, keep); }); };
    EXPECT_NE(error_of(txn(1) + part(6, 2, true)).find("line 2, \"part\" of 0-1-6: part 2 without part 1 before it"),
              std::string::npos)
        << error_of(txn(1) + part(6, 2, true));
    EXPECT_NE(error_of(part(6, 1, false) + part(6, 3, true)).find("line 2, \"part\" of 0-1-6: part 3 where part 2 belongs"),
              std::string::npos);
    EXPECT_NE(error_of(part(6, 1, false) + part(7, 2, true))
                  .find("line 2: part 2 of 0-1-7 inside transaction 0-1-6, whose part 2 (or last part) is missing"),
              std::string::npos)
        << error_of(part(6, 1, false) + part(7, 2, true));
    EXPECT_NE(error_of(part(6, 1, false) + txn(7)).find("line 2: the line of 0-1-7 inside transaction 0-1-6"),
              std::string::npos);
}

TEST(OutFile, RefusesAFileThatIsNotCdcOutput) {
    std::size_t keep = 0;
    std::string text = txn(1) + "hello\n";
    EXPECT_NE(message_of([&] { scan_cdc_lines(text, GtidState{}, keep); }).find("line 2 is not a line of sluice-mariadb cdc"),
              std::string::npos);
    std::string bad_gtid = "{\"gtid\":\"0-x-1\",\"server_id\":1}\n";
    EXPECT_NE(message_of([&] { scan_cdc_lines(bad_gtid, GtidState{}, keep); }).find("line 1"), std::string::npos);
}

// The file is read in 1 MiB blocks: lines that straddle blocks, a torn
// tail, and the cut made on disk.
TEST(OutFile, OpenScansABigFileInBlocksAndCutsItsTornTail) {
    const std::string path = ::testing::TempDir() + "/cdc-out-" + std::to_string(::getpid()) + ".ndjson";
    std::string text;
    int seq = 0;
    while (text.size() < 3 * (1U << 20)) {
        ++seq;
        // Lines of varying length (up to ~300 KiB) so boundaries fall anywhere.
        std::string pad(static_cast<std::size_t>((seq * 7919) % 300000), 'x');
        text += "{\"gtid\":\"0-1-" + std::to_string(seq) + "\",\"server_id\":1,\"ts\":1,\"changes\":[{\"p\":\"" + pad + "\"}]}\n";
    }
    const std::size_t complete = text.size();
    text += "{\"gtid\":\"0-1-999999\",\"server_id\":1,\"ts\":1,\"changes\":[{\"p\":\"xxxxxxxx";
    {
        std::FILE* f = std::fopen(path.c_str(), "wb");
        ASSERT_NE(f, nullptr);
        std::fwrite(text.data(), 1, text.size(), f);
        std::fclose(f);
    }
    {
        NdjsonFile file = NdjsonFile::open(path, GtidState{});
        EXPECT_TRUE(file.resume().has_lines);
        EXPECT_EQ(file.resume().position.to_string(), "0-1-" + std::to_string(seq));
        EXPECT_EQ(file.resume().cut_bytes, text.size() - complete);
        file.append("{\"gtid\":\"0-1-999999\",\"server_id\":1,\"ts\":1,\"changes\":[]}\n");
    }
    std::FILE* f = std::fopen(path.c_str(), "rb");
    ASSERT_NE(f, nullptr);
    std::string back(text.size() + 100, '\0');
    back.resize(std::fread(back.data(), 1, back.size(), f));
    std::fclose(f);
    std::remove(path.c_str());
    EXPECT_EQ(back.substr(0, complete), text.substr(0, complete));
    EXPECT_EQ(back.substr(complete), "{\"gtid\":\"0-1-999999\",\"server_id\":1,\"ts\":1,\"changes\":[]}\n");
}

TEST(OutFile, OpenRefusesForeignFilesNamingThePath) {
    const std::string path = ::testing::TempDir() + "/cdc-foreign-" + std::to_string(::getpid()) + ".txt";
    std::FILE* f = std::fopen(path.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    std::fputs("hello\n", f);
    std::fclose(f);
    std::string m = message_of([&] { NdjsonFile::open(path, GtidState{}); });
    std::remove(path.c_str());
    EXPECT_NE(m.find(path), std::string::npos) << m;
    EXPECT_NE(m.find("line 1 is not a line of sluice-mariadb cdc"), std::string::npos) << m;
}

}  // namespace
}  // namespace sluice::mariadb::cdc
