// The watermark rule, the source position bytes, net-effect batches and
// applying source transactions to a real engine.
#include <gtest/gtest.h>

#include "sluice/pipeline/session_applier.hpp"
#include "sluice/pipeline/source_position.hpp"

namespace sluice::pipeline {
namespace {

using V = SourceValue;
namespace tw = sluice::tideweave;

TEST(WatermarkRule, AdvancesToLargestAfterTsMinusLagOnlyForward) {
    WatermarkRule rule(10);
    EXPECT_EQ(rule.advance(), std::nullopt);  // nothing seen
    rule.observe(100);
    EXPECT_EQ(rule.advance(), 90);
    rule.observe(50);  // older data does not move it back
    EXPECT_EQ(rule.advance(), std::nullopt);
    rule.observe(std::nullopt);
    EXPECT_EQ(rule.advance(), std::nullopt);
    rule.observe(101);
    EXPECT_EQ(rule.advance(), 91);
    EXPECT_EQ(rule.max_ts(), 101);
    // Below the contract's range it is not a watermark yet.
    WatermarkRule low(std::int64_t{1} << 60);
    low.observe(-5);
    EXPECT_EQ(low.advance(), std::nullopt);
    // A restored rule continues from what it had.
    WatermarkRule restored(10, 101, 91);
    restored.observe(95);
    EXPECT_EQ(restored.advance(), std::nullopt);
    restored.observe(120);
    EXPECT_EQ(restored.advance(), 110);
}

TEST(SourcePosition, RoundTripsAndRefusesOtherBytes) {
    for (const SourcePosition& p : {SourcePosition{"", std::nullopt}, SourcePosition{"0-1-42,1-2-7", -5},
                                    SourcePosition{"0-1-1", std::int64_t{1} << 60}}) {
        auto back = decode_source_position(encode(p));
        ASSERT_TRUE(back);
        EXPECT_EQ(*back, p);
    }
    EXPECT_EQ(encode({"0-1-42", 7}), "gtid=0-1-42\nmax_ts=7\n");
    EXPECT_FALSE(decode_source_position(""));
    EXPECT_FALSE(decode_source_position("gtid=0-1-1\nmax_ts=x\n"));
    EXPECT_FALSE(decode_source_position("gtid=0-1-1\nmax_ts=1"));
}

TEST(SinkBatch, KeepsOnlyTheLastStateOfEachKeyAndStart) {
    SinkBatch b;
    tw::Row r{"k", 0, 10, 1, 1, 1, 1, false};
    b.put(r);
    r.end = 20;
    r.count = 2;
    b.remove(tw::Row{"k", 0, 10, 1, 1, 1, 1, false});
    b.put(r);
    b.remove(tw::Row{"j", 5, 15, 1, 1, 1, 1, false});
    EXPECT_EQ(b.net_size(), 2U);
    EXPECT_EQ(b.puts(), 1U);
    EXPECT_EQ(b.removes(), 1U);
    b.for_each_net([&](const std::string& id, const SinkBatch::Entry& e) {
        if (SinkBatch::key_of(id) == "k") {
            ASSERT_TRUE(e.row);
            EXPECT_EQ(e.row->end, 20);
            EXPECT_EQ(SinkBatch::start_of(id), 0);
        } else {
            EXPECT_EQ(SinkBatch::key_of(id), "j");
            EXPECT_EQ(SinkBatch::start_of(id), 5);
            EXPECT_FALSE(e.row);
        }
    });
    // A key with a NUL byte and a negative start keep apart.
    EXPECT_NE(SinkBatch::identity(std::string_view("a\0b", 3), -1), SinkBatch::identity("a", -1));
    EXPECT_EQ(SinkBatch::start_of(SinkBatch::identity("x", -123)), -123);
    b.clear();
    EXPECT_TRUE(b.empty());
}

RowImage row(std::int64_t id, const char* key, std::int64_t ts, double value) {
    return {V::of_signed(id), V::of_text(key), V::of_signed(ts), V::of_double(value)};
}

TEST(SessionApplier, SessionsLateDataFinalRowsAndRefusedTransactions) {
    tw::Engine engine(tw::Config{10, 5});
    WatermarkRule rule(10);
    SessionApplier applier(engine, rule);
    TransactionMapper m({"id", "key", "ts", "value"});
    SinkBatch batch;

    m.begin();
    m.add({SourceChange::Op::insert, std::nullopt, row(1, "a", 0, 1)});
    m.add({SourceChange::Op::insert, std::nullopt, row(2, "a", 8, 2)});
    auto o = applier.apply(m, "0-1-1", batch);
    EXPECT_TRUE(o.accepted);
    EXPECT_EQ(engine.watermark(), -2);  // 8 - 10

    m.begin();
    m.add({SourceChange::Op::insert, std::nullopt, row(3, "b", 100, 5)});  // W = 90, H = 85: a's session final
    applier.apply(m, "0-1-2", batch);
    EXPECT_EQ(engine.watermark(), 90);

    m.begin();
    m.add({SourceChange::Op::insert, std::nullopt, row(4, "a", 9, 7)});     // late insert
    m.add({SourceChange::Op::remove, row(1, "a", 0, 1), std::nullopt});     // late retraction of a sealed event
    m.add({SourceChange::Op::update, row(3, "b", 100, 5), row(3, "c", 101, 6)});  // moves key and time
    o = applier.apply(m, "0-1-3", batch);
    EXPECT_EQ(o.late, 2U);
    ASSERT_EQ(batch.late_rows().size(), 2U);
    EXPECT_EQ(batch.late_rows()[0], (LateRow{"4", "a", 9, "0-1-3", 0, "insert", 7}));
    EXPECT_EQ(batch.late_rows()[1], (LateRow{"1", "a", 0, "0-1-3", 1, "retract", 1}));

    // A retraction of an event the engine never saw refuses the transaction.
    m.begin();
    m.add({SourceChange::Op::insert, std::nullopt, row(5, "c", 200, 1)});
    m.add({SourceChange::Op::remove, row(77, "c", 150, 1), std::nullopt});
    o = applier.apply(m, "0-1-4", batch);
    EXPECT_FALSE(o.accepted);
    EXPECT_EQ(o.rejected, 2U);
    EXPECT_EQ(engine.watermark(), 91);  // the refused transaction's ts 200 did not count
    ASSERT_EQ(batch.rejected_rows().size(), 2U);
    EXPECT_EQ(batch.rejected_rows()[0].gtid, "0-1-4");
    EXPECT_NE(batch.rejected_rows()[1].row.reason.find("transaction rejected by Tideweave: tx[1].retract"), std::string::npos)
        << batch.rejected_rows()[1].row.reason;

    std::map<std::pair<std::string, std::int64_t>, SessionRow> table;
    batch.for_each_net([&](const std::string& id, const SinkBatch::Entry& e) {
        if (e.row) table[{std::string(SinkBatch::key_of(id)), SinkBatch::start_of(id)}] = *e.row;
    });
    ASSERT_EQ(table.size(), 2U);
    EXPECT_EQ(table.at({"a", 0}), (SessionRow{"a", 0, 18, 2, 3, 1, 2, true}));
    EXPECT_EQ(table.at({"c", 101}), (SessionRow{"c", 101, 111, 1, 6, 6, 6, false}));
    EXPECT_EQ(batch.source_transactions(), 4U);
    EXPECT_EQ(batch.row_changes(), 8U);
}

}  // namespace
}  // namespace sluice::pipeline
