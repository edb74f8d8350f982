// The scaled-out pipeline's core on values: the stable key hash, the CDC
// NDJSON line read as the binlog adapter reads a row, and N partition
// appliers (SessionApplier on partition I of 3) together equal to one
// SessionApplier on random workloads.
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "ndjson_error.hpp"
#include "sluice/pipeline/error.hpp"
#include "sluice/pipeline/ndjson_transaction.hpp"
#include "sluice/pipeline/session_applier.hpp"

namespace sluice::pipeline {
namespace {

namespace tw = sluice::tideweave;
using V = SourceValue;

TEST(KeyPartition, IsFnv1a64OfTheKeyBytesModuloN) {
    // The published FNV-1a test vectors: the hash must never change, or a
    // restarted worker would own other keys than its stored state.
    EXPECT_EQ(fnv1a64(""), 0xcbf29ce484222325ULL);
    EXPECT_EQ(fnv1a64("a"), 0xaf63dc4c8601ec8cULL);
    EXPECT_EQ(fnv1a64("foobar"), 0x85944171f73967e8ULL);
    EXPECT_EQ(partition_of("foobar", 7), static_cast<std::uint32_t>(0x85944171f73967e8ULL % 7));
    EXPECT_EQ(partition_of("anything", 1), 0U);
    Partition p{1, 3};
    int owned = 0;
    for (int i = 0; i < 3000; ++i) owned += p.owns("key" + std::to_string(i));
    EXPECT_GT(owned, 800);  // roughly a third
    EXPECT_LT(owned, 1200);
}

TEST(NdjsonTransactions, ReadsTheTableChangesAsTheBinlogAdapterDoes) {
    NdjsonTransactions r({"id", "k", "t", "v"}, "shop", "ev");
    const ParsedLine& l = r.parse(
        R"({"gtid":"0-1-42","server_id":1,"ts":1764576000,"changes":[)"
        R"({"op":"insert","db":"shop","table":"ev","after":{"id":1,"k":"a","t":5,"v":2.5,"other":[1]}},)"
        R"({"op":"insert","db":"shop","table":"other","after":{"id":9}},)"
        R"({"op":"update","db":"shop","table":"ev","before":{"id":1,"k":"a","t":5,"v":2.5},"after":{"id":1,"k":null,"t":18446744073709551615,"v":"1.50"}},)"
        R"({"op":"delete","db":"shop","table":"ev","before":{"id":-3,"k":"b","t":-7,"v":1}}]})",
        "here");
    ASSERT_TRUE(l.transaction);
    EXPECT_EQ(l.gtid, "0-1-42");
    EXPECT_EQ(l.timestamp, 1764576000U);
    ASSERT_EQ(l.changes.size(), 3U);  // the other table's change is not ours
    EXPECT_EQ(l.changes[0].op, SourceChange::Op::insert);
    EXPECT_FALSE(l.changes[0].before);
    EXPECT_EQ((*l.changes[0].after)[0].kind, V::Kind::signed_integer);
    EXPECT_EQ((*l.changes[0].after)[1].text, "a");
    EXPECT_EQ((*l.changes[0].after)[3].d, 2.5);
    EXPECT_EQ(l.changes[1].op, SourceChange::Op::update);
    EXPECT_EQ((*l.changes[1].after)[1].kind, V::Kind::null);
    EXPECT_EQ((*l.changes[1].after)[2].kind, V::Kind::unsigned_integer);
    EXPECT_EQ((*l.changes[1].after)[2].u, 18446744073709551615ULL);
    EXPECT_EQ((*l.changes[1].after)[3].text, "1.50");  // DECIMAL: its digits, as text
    EXPECT_EQ(l.changes[2].op, SourceChange::Op::remove);
    EXPECT_EQ((*l.changes[2].before)[0].i, -3);
    EXPECT_FALSE(l.changes[2].after);
    // DDL and snapshot lines have nothing to apply.
    EXPECT_FALSE(r.parse(R"({"gtid":"0-1-43","server_id":1,"ts":1,"db":"shop","ddl":"ALTER TABLE ev ADD x INT"})", "h").transaction);
}

using test::error_of;

TEST(NdjsonTransactions, BrokenLinesAreErrorsNamingThePlace) {
    EXPECT_NE(error_of("{\"gtid\":").find("stream \"S\" sequence 9: malformed JSON"), std::string::npos);
    EXPECT_NE(error_of("[1]").find("stream \"S\" sequence 9: not a JSON object"), std::string::npos);
    EXPECT_NE(error_of(R"({"changes":[]})").find("without a \"gtid\""), std::string::npos);
    EXPECT_NE(error_of(R"({"gtid":"0-1-1","ts":1,"changes":{}})").find("\"changes\" is not an array"), std::string::npos);
    EXPECT_NE(error_of(R"({"gtid":"0-1-1","ts":1,"changes":[{"op":"insert"}]})").find("change 0: a change without"),
              std::string::npos);
    EXPECT_NE(error_of(R"({"gtid":"0-1-1","ts":1,"changes":[{"op":"upsert","db":"shop","table":"ev"}]})")
                  .find("unknown op \"upsert\""),
              std::string::npos);
    EXPECT_EQ(error_of(R"({"gtid":"0-1-1","ts":1,"changes":[{"op":"insert","db":"shop","table":"ev","after":{"id":1,"k":"a","v":1}}]})"),
              "stream \"S\" sequence 9, change 0: the after image of a row of shop.ev lacks column \"t\" (--ts; set "
              "binlog_row_image=FULL)");
    EXPECT_NE(error_of(R"({"gtid":"0-1-1","ts":1,"changes":[{"op":"delete","db":"shop","table":"ev","after":{}}]})")
                  .find("a delete without a \"before\" object"),
              std::string::npos);
}

// Random source transactions (inserts, updates moving rows between keys
// and in time, deletes, late rows, NULL ts) through one engine and through
// three partitioned engines: the union of the partitions' sink batches is
// the single engine's, commit by commit.
TEST(PartitionApplier, ThreePartitionsTogetherGiveTheSingleEnginesRows) {
    const ColumnNames names{"id", "k", "t", "v"};
    struct Row {
        std::string id, key;
        std::optional<std::int64_t> ts;
        double value;
    };
    std::mt19937 rng(77);
    std::map<int, Row> rows;
    int next_id = 1;
    std::int64_t clock = 0;
    std::vector<std::string> keep;  // text the SourceValues view
    keep.reserve(100000);
    auto image = [&](const Row& r) {
        keep.push_back(r.id);
        const std::string& id = keep.back();
        keep.push_back(r.key);
        const std::string& key = keep.back();
        return RowImage{V::of_text(id), V::of_text(key), r.ts ? V::of_signed(*r.ts) : V::null_value(),
                        V::of_double(r.value)};
    };

    tw::Engine single_engine(tw::Config{10, 5});
    WatermarkRule single_rule(3);
    SessionApplier single(single_engine, single_rule);
    std::vector<tw::Engine> engines;
    std::vector<WatermarkRule> rules;
    for (int i = 0; i < 3; ++i) {
        engines.emplace_back(tw::Config{10, 5});
        rules.emplace_back(3);
    }
    std::vector<SessionApplier> parts;
    for (std::uint32_t i = 0; i < 3; ++i) parts.emplace_back(engines[i], rules[i], Partition{i, 3});

    auto net = [](const SinkBatch& b) {
        std::map<std::string, std::optional<SessionRow>> out;
        for (const NetChange& c : b.net()) {
            const std::string k = c.row->key + '\x1f' + std::to_string(c.row->start);
            out[k] = c.removed ? std::nullopt : std::optional<SessionRow>(*c.row);
        }
        return out;
    };
    auto late = [](const SinkBatch& b) {
        std::vector<std::string> out;
        for (const LateRow& l : b.late_rows()) out.push_back(l.gtid + "/" + std::to_string(l.seq) + " " + l.id + " " + l.op);
        std::sort(out.begin(), out.end());
        return out;
    };
    auto rejected = [](const SinkBatch& b) {
        std::vector<std::string> out;
        for (const RejectedSinkRow& r : b.rejected_rows())
            out.push_back(r.gtid + "/" + std::to_string(r.row.change) + " " + r.row.image + " " + r.row.reason);
        std::sort(out.begin(), out.end());
        return out;
    };
    std::size_t late_total = 0, rejected_total = 0, puts_total = 0;
    for (int commit = 0; commit < 60; ++commit) {
        SinkBatch want;
        std::vector<SinkBatch> have(3);
        for (int t = 0; t < 10; ++t) {
            std::vector<SourceChange> changes;
            const int n = 1 + static_cast<int>(rng() % 4);
            for (int i = 0; i < n; ++i) {
                clock += static_cast<std::int64_t>(rng() % 3);
                auto ts = [&]() -> std::optional<std::int64_t> {
                    if (rng() % 25 == 0) return std::nullopt;
                    return clock - static_cast<std::int64_t>(rng() % 20);
                };
                const auto pick = rng() % 10;
                SourceChange c;
                if (pick < 5 || rows.empty()) {
                    Row r{std::to_string(next_id), "k" + std::to_string(rng() % 9), ts(), double(rng() % 100)};
                    rows[next_id++] = r;
                    c.op = SourceChange::Op::insert;
                    c.after = image(r);
                } else {
                    auto it = rows.begin();
                    std::advance(it, static_cast<long>(rng() % rows.size()));
                    c.before = image(it->second);
                    if (pick < 8) {
                        if (rng() % 2) it->second.key = "k" + std::to_string(rng() % 9);
                        it->second.ts = ts();
                        it->second.value += 1;
                        c.op = SourceChange::Op::update;
                        c.after = image(it->second);
                    } else {
                        c.op = SourceChange::Op::remove;
                        rows.erase(it);
                    }
                }
                changes.push_back(c);
            }
            const std::string gtid = "0-1-" + std::to_string(commit * 10 + t);
            TransactionMapper m(names);
            m.begin();
            for (const auto& c : changes) m.add(c);
            EXPECT_TRUE(single.apply(m, gtid, want).accepted);
            for (std::size_t p = 0; p < 3; ++p) {
                TransactionMapper mp(names);
                mp.begin();
                for (const auto& c : changes) mp.add(c);
                EXPECT_TRUE(parts[p].apply(mp, gtid, have[p]).accepted);
            }
        }
        std::map<std::string, std::optional<SessionRow>> union_net;
        std::vector<std::string> union_late, union_rejected;
        for (const SinkBatch& b : have) {
            for (auto& [k, v] : net(b)) EXPECT_TRUE(union_net.emplace(k, v).second) << "two partitions wrote " << k;
            for (auto& l : late(b)) union_late.push_back(l);
            for (auto& r : rejected(b)) union_rejected.push_back(r);
        }
        std::sort(union_late.begin(), union_late.end());
        std::sort(union_rejected.begin(), union_rejected.end());
        EXPECT_EQ(union_net, net(want)) << "commit " << commit;
        EXPECT_EQ(union_late, late(want)) << "commit " << commit;
        EXPECT_EQ(union_rejected, rejected(want)) << "commit " << commit;
        late_total += want.late_rows().size();
        rejected_total += want.rejected_rows().size();
        puts_total += want.logged();
        for (std::size_t p = 0; p < 3; ++p) EXPECT_EQ(rules[p].current(), single_rule.current());
        single_engine.forget();
        for (auto& e : engines) e.forget();
    }
    EXPECT_GT(late_total, 10U);
    EXPECT_GT(rejected_total, 5U);
    EXPECT_GT(puts_total, 100U);
}

}  // namespace

// Part lines (a transaction in several messages) are checked in order by the
// reader: the JetStream source applies each part as it comes, so a broken
// sequence must stop it at the broken line, before the transaction commits.
TEST(NdjsonTransactions, PartLinesAreCheckedInOrderAndBrokenSequencesNameTheLine) {
    using Parts = mariadb::cdc::ndjson::PartSequence::Step;
    const auto part = [](const char* gtid, int k, bool last) {
        return std::string(R"({"gtid":")") + gtid + R"(","server_id":1,"ts":5,"part":)" + std::to_string(k) +
               (last ? R"(,"last":true)" : "") +
               R"(,"changes":[{"op":"insert","db":"shop","table":"ev","after":{"id":1,"k":"a","t":3,"v":1}}]})";
    };
    NdjsonTransactions r({"id", "k", "t", "v"}, "shop", "ev");
    EXPECT_EQ(r.parse(part("0-1-7", 1, false), "s1").part_step, Parts::opens);
    EXPECT_TRUE(r.inside_parts());
    EXPECT_EQ(r.parse(part("0-1-7", 2, false), "s2").part_step, Parts::continues);
    const ParsedLine& last = r.parse(part("0-1-7", 3, true), "s3");
    EXPECT_EQ(last.part_step, Parts::completes);
    EXPECT_EQ(last.part, 3U);
    EXPECT_EQ(last.changes.size(), 1U);
    EXPECT_FALSE(r.inside_parts());

    const auto error_after_part_1 = [&](const std::string& second) {
        NdjsonTransactions q({"id", "k", "t", "v"}, "shop", "ev");
        q.parse(part("0-1-8", 1, false), "seq 1");
        try {
            q.parse(second, "seq 2");
        } catch (const Error& e) {
            EXPECT_EQ(e.kind(), ErrorKind::source_image);
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_NE(error_after_part_1(part("0-1-8", 3, false)).find("seq 2, \"part\": part 3 while transaction 0-1-8 awaits its part 2"),
              std::string::npos);
    EXPECT_NE(error_after_part_1(part("0-1-9", 2, true)).find("seq 2, \"gtid\": 0-1-9 while transaction 0-1-8 awaits"),
              std::string::npos);
    EXPECT_NE(error_after_part_1(R"({"gtid":"0-1-9","server_id":1,"ts":5,"changes":[]})").find("a line that is not a part"),
              std::string::npos);
    // A part 2 with no part 1 before it.
    NdjsonTransactions q({"id", "k", "t", "v"}, "shop", "ev");
    try {
        q.parse(part("0-1-8", 2, false), "seq 5");
        ADD_FAILURE() << "part 2 first was read";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("seq 5, \"part\": part 2 of 0-1-8 without its part 1"), std::string::npos);
    }
}

}  // namespace sluice::pipeline
