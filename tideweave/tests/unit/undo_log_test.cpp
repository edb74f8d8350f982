// The open transaction's undo log (undo_log.hpp): records come back newest
// first, whole, across the chunks it spilled to its temporary file; memory
// stays one chunk whatever the log's size; emptied, it is reused.
#include "undo_log.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

namespace sluice::tideweave {
namespace {

struct Expected {
    std::int64_t ts;
    double value;
    KeyId key;
    Mutation::Kind kind;
    std::string id;
};

std::vector<Expected> records(std::size_t n, std::uint64_t seed) {
    std::vector<Expected> out;
    for (std::size_t i = 0; i < n; ++i) {
        const std::uint64_t r = (i + 1) * 0x9E3779B97F4A7C15ULL ^ seed;
        // Ids of 1 to 256 bytes, some empty-looking and binary.
        std::string id(1 + r % 256, static_cast<char>('a' + i % 26));
        id[0] = static_cast<char>(r >> 8);
        out.push_back({static_cast<std::int64_t>(r >> 4) - (std::int64_t{1} << 59), static_cast<double>(i) * 0.25,
                       static_cast<KeyId>(r >> 33), (r & 1) ? Mutation::Kind::retract : Mutation::Kind::insert, id});
    }
    return out;
}

void check_taken_back(UndoLog& log, const std::vector<Expected>& appended) {
    std::size_t next = appended.size();
    log.take_back([&](const UndoLog::Record& r) {
        ASSERT_GT(next, 0U) << "more records than appended";
        const Expected& e = appended[--next];
        EXPECT_EQ(r.ts, e.ts) << next;
        EXPECT_EQ(r.value, e.value) << next;
        EXPECT_EQ(r.key, e.key) << next;
        EXPECT_EQ(r.kind, e.kind) << next;
        EXPECT_EQ(r.id, e.id) << next;
    });
    EXPECT_EQ(next, 0U) << "records missing";
    EXPECT_EQ(log.records(), 0U);
    EXPECT_EQ(log.spilled_bytes(), 0U);
}

TEST(UndoLog, RecordsComeBackNewestFirstAcrossSpilledChunks) {
    UndoLog log(4096);
    const std::vector<Expected> appended = records(20000, 7);
    for (const Expected& e : appended) log.append(e.ts, e.value, e.key, e.kind, e.id);
    EXPECT_EQ(log.records(), appended.size());
    EXPECT_GT(log.spilled_bytes(), std::uint64_t{2} << 20) << "~2.7 MB of records, nearly all in the file";
    EXPECT_LT(log.memory_bytes(), std::size_t{16} << 10) << "one 4 KiB chunk in memory";
    check_taken_back(log, appended);
    // Emptied, the log is reused from the file's start.
    const std::vector<Expected> again = records(3000, 8);
    for (const Expected& e : again) log.append(e.ts, e.value, e.key, e.kind, e.id);
    EXPECT_LT(log.spilled_bytes(), std::uint64_t{1} << 20);
    check_taken_back(log, again);
}

TEST(UndoLog, ALogThatFitsOneChunkStaysInMemory) {
    UndoLog log;
    const std::vector<Expected> appended = records(100, 9);
    for (const Expected& e : appended) log.append(e.ts, e.value, e.key, e.kind, e.id);
    EXPECT_EQ(log.spilled_bytes(), 0U);
    check_taken_back(log, appended);
    log.clear();
    log.take_back([](const UndoLog::Record&) { ADD_FAILURE() << "an empty log has no records"; });
}

TEST(UndoLog, ClearDropsEveryRecordAndTheFile) {
    UndoLog log(1024);
    for (const Expected& e : records(5000, 10)) log.append(e.ts, e.value, e.key, e.kind, e.id);
    ASSERT_GT(log.spilled_bytes(), 0U);
    log.clear();
    EXPECT_EQ(log.records(), 0U);
    EXPECT_EQ(log.spilled_bytes(), 0U);
    log.take_back([](const UndoLog::Record&) { ADD_FAILURE() << "a cleared log has no records"; });
}

// A directory it cannot write names itself and the setting; the records
// appended stay (the transaction can still be taken back).
TEST(UndoLog, AFileThatCannotBeCreatedIsAnErrorNamingTheDirectoryAndKeepsTheRecords) {
    const char* old = std::getenv("TMPDIR");
    const std::string saved = old ? old : "";
    ::setenv("TMPDIR", "/nonexistent-sluice-undo-dir", 1);
    UndoLog log(256);
    std::vector<Expected> appended = records(40, 11);
    std::string error;
    std::size_t given = 0;
    for (const Expected& e : appended) {
        ++given;
        try {
            log.append(e.ts, e.value, e.key, e.kind, e.id);
        } catch (const std::runtime_error& x) {
            error = x.what();
            break;
        }
    }
    if (old) ::setenv("TMPDIR", saved.c_str(), 1);
    else ::unsetenv("TMPDIR");
    EXPECT_NE(error.find("undo log: cannot create a temporary file in /nonexistent-sluice-undo-dir (set TMPDIR"),
              std::string::npos)
        << error;
    appended.resize(given);
    check_taken_back(log, appended);
}

}  // namespace
}  // namespace sluice::tideweave
