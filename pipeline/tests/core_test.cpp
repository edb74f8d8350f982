// The watermark rule, the source position bytes, net-effect batches and
// applying source transactions to a real engine.
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "sluice/pipeline/open_sink_rows.hpp"
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

TEST(SinkBatch, KeepsOnlyTheLastStateOfEachKeyAndStartInKeyOrder) {
    SinkBatch b;
    tw::Row r{"k", 0, 10, 1, 1, 1, 1, false};
    b.put(r);
    r.end = 20;
    r.count = 2;
    b.remove(tw::Row{"k", 0, 10, 1, 1, 1, 1, false});
    b.put(r);
    b.remove(tw::Row{"j", 5, 15, 1, 1, 1, 1, false});
    b.put(tw::Row{"k", -3, 7, 1, 1, 1, 1, true});
    EXPECT_EQ(b.logged(), 5U);
    const std::vector<NetChange> net = b.net();
    ASSERT_EQ(net.size(), 3U);
    // Key order (bytes), then start.
    EXPECT_EQ(net[0].row->key, "j");
    EXPECT_EQ(net[0].row->start, 5);
    EXPECT_TRUE(net[0].removed);
    EXPECT_EQ(*net[1].row, (SessionRow{"k", -3, 7, 1, 1, 1, 1, true}));
    EXPECT_FALSE(net[1].removed);
    EXPECT_EQ(*net[2].row, (SessionRow{"k", 0, 20, 2, 1, 1, 1, false}));
    EXPECT_FALSE(net[2].removed);
    // A key with a NUL byte, a key above 0x7f, a longer key: apart, in byte order.
    SinkBatch c;
    c.put(tw::Row{std::string_view("a\0b", 3), -1, 9, 1, 1, 1, 1, false});
    c.put(tw::Row{"\xc3\xa9", -1, 9, 1, 1, 1, 1, false});
    c.put(tw::Row{"a", -1, 9, 1, 1, 1, 1, false});
    c.put(tw::Row{"a long key beyond the short string buffer", -1, 9, 1, 1, 1, 1, false});
    const std::vector<NetChange> n2 = c.net();
    ASSERT_EQ(n2.size(), 4U);
    EXPECT_EQ(n2[0].row->key, "a");
    EXPECT_EQ(n2[1].row->key, std::string_view("a\0b", 3));
    EXPECT_EQ(n2[2].row->key, "a long key beyond the short string buffer");
    EXPECT_EQ(n2[3].row->key, "\xc3\xa9");
    b.clear();
    EXPECT_TRUE(b.empty());
    EXPECT_TRUE(b.net().empty());
    // A cleared batch reuses its entries: the next one holds only its own.
    b.put(tw::Row{"z", 1, 11, 1, 2, 2, 2, false});
    ASSERT_EQ(b.net().size(), 1U);
    EXPECT_EQ(*b.net()[0].row, (SessionRow{"z", 1, 11, 1, 2, 2, 2, false}));
}

TEST(OpenSinkRows, NewRowsAreInsertedHeldOnesUpsertedAndRowsBornAndGoneInABatchNotWritten) {
    OpenSinkRows open;
    open.add("a", 0);  // the sink holds a 0 and b 10 open
    open.add("b", 10);
    SinkBatch b;
    b.put(tw::Row{"a", 0, 12, 2, 3, 1, 2, false});   // held: upsert
    b.remove(tw::Row{"b", 10, 20, 1, 1, 1, 1, false});  // held: delete
    b.put(tw::Row{"c", 5, 15, 1, 1, 1, 1, false});   // new: insert
    b.put(tw::Row{"d", 7, 17, 1, 1, 1, 1, false});   // new, then merged away: nothing
    b.remove(tw::Row{"d", 7, 17, 1, 1, 1, 1, false});
    b.put(tw::Row{"e", 1, 11, 1, 1, 1, 1, true});    // new and final at once: insert
    const auto net = b.net();
    const auto plan = open.plan(net, false);
    auto keys = [](const std::vector<const SessionRow*>& rows) {
        std::vector<std::string> k;
        for (const SessionRow* r : rows) k.push_back(r->key);
        return k;
    };
    EXPECT_EQ(keys(plan.insert), (std::vector<std::string>{"c", "e"}));
    EXPECT_EQ(keys(plan.upsert), (std::vector<std::string>{"a"}));
    EXPECT_EQ(keys(plan.remove), (std::vector<std::string>{"b"}));
    // Replayed: everything upserted or deleted, whatever the set says.
    const auto replay = open.plan(net, true);
    EXPECT_EQ(keys(replay.insert), std::vector<std::string>{});
    EXPECT_EQ(keys(replay.upsert), (std::vector<std::string>{"a", "c", "e"}));
    EXPECT_EQ(keys(replay.remove), (std::vector<std::string>{"b", "d"}));
    // After the commit: a and c open; b removed; e final; d never there.
    open.committed(net);
    EXPECT_TRUE(open.holds("a", 0));
    EXPECT_FALSE(open.holds("b", 10));
    EXPECT_TRUE(open.holds("c", 5));
    EXPECT_FALSE(open.holds("d", 7));
    EXPECT_FALSE(open.holds("e", 1));
    EXPECT_EQ(open.size(), 2U);
    // Finalizing an open row: upserted, then no longer held.
    SinkBatch f;
    f.put(tw::Row{"c", 5, 15, 1, 1, 1, 1, true});
    const auto fnet = f.net();
    EXPECT_EQ(keys(open.plan(fnet, false).upsert), (std::vector<std::string>{"c"}));
    open.committed(fnet);
    EXPECT_FALSE(open.holds("c", 5));
    // (key, start) pairs that differ only in where the key ends keep apart.
    open.add(std::string_view("x\0", 2), 1);
    EXPECT_FALSE(open.holds("x", 1));
}

// The set against a plain map, over thousands of batches of random puts,
// removals, finalizations and rows put ahead: what it holds, its plans and
// the rows left ahead stay the map's through its rebuilds (recent rows
// merged in, gone rows dropped) and through rows gone and held again.
TEST(OpenSinkRows, ThousandsOfBatchesAgreeWithAPlainMap) {
    std::mt19937 rng(7);
    OpenSinkRows open;
    std::map<std::pair<std::string, std::int64_t>, bool> model;  // held -> ahead
    const std::vector<std::string> keys = {"a", "b", "c", std::string("c\0", 2), "dd", "e"};
    for (int i = 0; i < 300; ++i) {  // loaded from the sink: out of order, some twice
        const std::string& k = keys[rng() % keys.size()];
        const std::int64_t start = static_cast<std::int64_t>(rng() % 2000);
        open.add(k, start);
        model[{k, start}] = false;
    }
    for (int batch = 0; batch < 3000; ++batch) {
        SinkBatch b;
        const int n = 1 + static_cast<int>(rng() % 40);
        for (int i = 0; i < n; ++i) {
            const tw::Row r{keys[rng() % keys.size()], static_cast<std::int64_t>(rng() % 2000), 1, 1, 1, 1, 1, false};
            switch (rng() % 5) {
                case 0: b.remove(r); break;
                case 1: b.put(r); break;
                case 2: b.put_final_ahead(r); break;
                case 3: b.finalize(tw::Row{r.key, r.start, 1, 1, 1, 1, 1, true}); break;
                default: b.put(tw::Row{r.key, r.start, 1, 1, 1, 1, 1, true}); break;
            }
        }
        const auto net = b.net();
        const auto plan = open.plan(net, false);
        std::size_t inserts = 0, upserts = 0, removes = 0, in_place = 0;
        for (const NetChange& c : net) {
            auto it = model.find({c.row->key, c.row->start});
            const bool held = it != model.end();
            if (c.removed) removes += held;
            else if (held && it->second && c.finalized_only) ++in_place;
            else (held ? upserts : inserts) += 1;
        }
        ASSERT_EQ(plan.insert.size(), inserts) << "batch " << batch;
        ASSERT_EQ(plan.upsert.size(), upserts) << "batch " << batch;
        ASSERT_EQ(plan.remove.size(), removes) << "batch " << batch;
        ASSERT_EQ(plan.in_place, in_place) << "batch " << batch;
        std::vector<std::pair<std::string, std::int64_t>> left;
        for (const auto& [at, ahead] : model) {
            if (!ahead) continue;
            auto c = std::find_if(net.begin(), net.end(),
                                  [&](const NetChange& x) { return x.row->key == at.first && x.row->start == at.second; });
            if (c == net.end()) left.push_back(at);
        }
        for (const NetChange& c : net)
            if (!c.removed && c.ahead) left.emplace_back(c.row->key, c.row->start);
        std::sort(left.begin(), left.end());
        ASSERT_EQ(open.left_ahead(net), left) << "batch " << batch;
        open.committed(net);
        for (const NetChange& c : net) {
            if (!c.removed && (c.ahead || !c.row->final)) model[{c.row->key, c.row->start}] = c.ahead;
            else model.erase({c.row->key, c.row->start});
        }
        if (batch % 97 == 0) {
            open.none_ahead();
            for (auto& [at, ahead] : model) ahead = false;
        }
        ASSERT_EQ(open.size(), model.size()) << "batch " << batch;
        for (int probe = 0; probe < 5; ++probe) {
            const std::string& k = keys[rng() % keys.size()];
            const std::int64_t start = static_cast<std::int64_t>(rng() % 2000);
            ASSERT_EQ(open.holds(k, start), model.contains({k, start})) << "batch " << batch;
        }
    }
}

// Issue 25: a huge transaction's slice puts rows final ahead of its commit;
// the commit's finalization of one no later change touched writes nothing;
// one a later part changed is written as any held row; one the commit did
// not reach is listed to be set back to open.
TEST(OpenSinkRows, RowsPutFinalAheadAreHeldUntilTheCommitFinalizesThemInPlace) {
    auto keys = [](const std::vector<const SessionRow*>& rows) {
        std::vector<std::string> k;
        for (const SessionRow* r : rows) k.push_back(r->key);
        return k;
    };
    OpenSinkRows open;
    SinkBatch slice;
    slice.put_final_ahead(tw::Row{"a", 0, 10, 1, 1, 1, 1, false});
    slice.put_final_ahead(tw::Row{"b", 0, 10, 1, 1, 1, 1, false});
    slice.put_final_ahead(tw::Row{"c", 0, 10, 1, 1, 1, 1, false});
    slice.put(tw::Row{"d", 0, 10, 1, 1, 1, 1, false});
    const auto snet = slice.net();
    ASSERT_EQ(snet.size(), 4U);
    EXPECT_TRUE(snet[0].ahead && snet[0].row->final);  // written with final = true
    EXPECT_FALSE(snet[3].ahead || snet[3].row->final);
    const auto splan = open.plan(snet, false);
    EXPECT_EQ(keys(splan.insert), (std::vector<std::string>{"a", "b", "c", "d"}));
    open.committed(snet);
    EXPECT_EQ(open.size(), 4U);  // all held until the commit
    // The commit: a finalized untouched (in place); b changed by a later
    // part, then finalized (an upsert); c not finalized (left ahead); d
    // finalized from open (an upsert, as before).
    SinkBatch commit;
    commit.finalize(tw::Row{"a", 0, 10, 1, 1, 1, 1, true});
    commit.remove(tw::Row{"b", 0, 10, 1, 1, 1, 1, false});
    commit.put(tw::Row{"b", 0, 14, 2, 3, 1, 2, false});
    commit.finalize(tw::Row{"b", 0, 14, 2, 3, 1, 2, true});
    commit.finalize(tw::Row{"d", 0, 10, 1, 1, 1, 1, true});
    const auto cnet = commit.net();
    ASSERT_EQ(cnet.size(), 3U);
    EXPECT_TRUE(cnet[0].finalized_only);
    EXPECT_FALSE(cnet[1].finalized_only);
    const auto cplan = open.plan(cnet, false);
    EXPECT_EQ(cplan.in_place, 1U);
    EXPECT_EQ(keys(cplan.insert), std::vector<std::string>{});
    EXPECT_EQ(keys(cplan.upsert), (std::vector<std::string>{"b", "d"}));
    // The same finalization in idempotent mode writes a in place too: the
    // sink holds that very row, written in this transaction.
    EXPECT_EQ(open.plan(cnet, true).in_place, 1U);
    const auto left = open.left_ahead(cnet);
    ASSERT_EQ(left.size(), 1U);
    EXPECT_EQ(left[0], (std::pair<std::string, std::int64_t>{"c", 0}));
    open.committed(cnet);
    open.none_ahead();
    EXPECT_FALSE(open.holds("a", 0));
    EXPECT_FALSE(open.holds("b", 0));
    EXPECT_TRUE(open.holds("c", 0));  // open after all
    EXPECT_FALSE(open.holds("d", 0));
    EXPECT_TRUE(open.left_ahead({}).empty());
    // Held open now, c's finalization is an upsert, not in place.
    SinkBatch later;
    later.finalize(tw::Row{"c", 0, 10, 1, 1, 1, 1, true});
    const auto lplan = open.plan(later.net(), false);
    EXPECT_EQ(lplan.in_place, 0U);
    EXPECT_EQ(keys(lplan.upsert), (std::vector<std::string>{"c"}));
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
    for (const NetChange& c : batch.net())
        if (!c.removed) table[{c.row->key, c.row->start}] = *c.row;
    ASSERT_EQ(table.size(), 2U);
    EXPECT_EQ(table.at({"a", 0}), (SessionRow{"a", 0, 18, 2, 3, 1, 2, true}));
    EXPECT_EQ(table.at({"c", 101}), (SessionRow{"c", 101, 111, 1, 6, 6, 6, false}));
    EXPECT_EQ(batch.source_transactions(), 4U);
    EXPECT_EQ(batch.row_changes(), 8U);
}

}  // namespace
}  // namespace sluice::pipeline
