// Source transactions applied in parts (issue 25; SessionApplier::apply_part
// and finish, TransactionMapper::split_into_parts): every part size gives
// the batch and engine state that applying each transaction whole gives, a
// transaction the engine refuses in a later part is read again and rejected
// whole, a worker's late rows keep their index in the whole transaction,
// and an abandoned transaction leaves nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "sluice/pipeline/open_sink_rows.hpp"
#include "sluice/pipeline/session_applier.hpp"
#include "sluice/tideweave/checkpoint.hpp"

namespace sluice::pipeline {
namespace {

using V = SourceValue;
namespace tw = sluice::tideweave;
using Changes = std::vector<SourceChange>;

// Keys as text the changes view: they must outlive the mapper's parts.
const std::vector<std::string>& keys() {
    static const std::vector<std::string> k = {"a", "b", "c", "d", "e", "f", "g"};
    return k;
}

RowImage row(std::int64_t id, std::size_t key, std::int64_t ts, double value) {
    return {V::of_signed(id), V::of_text(keys()[key % keys().size()]), V::of_signed(ts), V::of_double(value)};
}
SourceChange insert(std::int64_t id, std::size_t key, std::int64_t ts, double value) {
    return {SourceChange::Op::insert, std::nullopt, row(id, key, ts, value)};
}
SourceChange remove(std::int64_t id, std::size_t key, std::int64_t ts, double value) {
    return {SourceChange::Op::remove, row(id, key, ts, value), std::nullopt};
}
SourceChange update(std::int64_t id, std::size_t key, std::int64_t ts, double value, std::size_t key2,
                    std::int64_t ts2, double value2) {
    return {SourceChange::Op::update, row(id, key, ts, value), row(id, key2, ts2, value2)};
}

// Transactions with what each path must get right: many sessions, a
// mapping rejection (a NULL id), late rows (after the watermark moved),
// updates of every row, a delete of a third, and two transactions the
// engine refuses: in a middle part, and at its last change.
std::vector<Changes> workload() {
    std::vector<Changes> txs;
    Changes big;
    for (int i = 0; i < 40; ++i) big.push_back(insert(i, static_cast<std::size_t>(i), 100 + i * 4, i));
    big.push_back({SourceChange::Op::insert, std::nullopt, RowImage{V::null_value(), V::of_text("a"), V::of_signed(1), V::of_double(1)}});
    txs.push_back(big);
    txs.push_back({insert(100, 0, 400, 1)});  // moves the watermark: 390 - lateness
    Changes updates;
    for (int i = 0; i < 40; ++i)
        updates.push_back(update(i, static_cast<std::size_t>(i), 100 + i * 4, i, static_cast<std::size_t>(i + 1), 300 + i * 3, i + 0.5));
    txs.push_back(updates);  // the before images are late (sealed): late retractions, inserts late too
    Changes refused_middle;
    for (int i = 0; i < 12; ++i) refused_middle.push_back(insert(200 + i, static_cast<std::size_t>(i), 420 + i, 2));
    refused_middle.push_back(remove(999, 0, 430, 1));  // never inserted
    for (int i = 0; i < 12; ++i) refused_middle.push_back(insert(300 + i, static_cast<std::size_t>(i), 440 + i, 3));
    txs.push_back(refused_middle);
    Changes more;
    for (int i = 0; i < 30; ++i) more.push_back(insert(500 + i, static_cast<std::size_t>(i), 450 + i, 1));
    txs.push_back(more);
    Changes deletes;
    for (int i = 0; i < 30; i += 3) deletes.push_back(remove(500 + i, static_cast<std::size_t>(i), 450 + i, 1));
    txs.push_back(deletes);
    Changes refused_last = {insert(600, 1, 470, 1), insert(601, 2, 471, 1), insert(600, 1, 472, 1)};  // a held id
    txs.push_back(refused_last);
    txs.push_back({insert(700, 3, 480, 4)});
    return txs;
}

// What a batch holds, as comparable text.
struct Seen {
    std::vector<std::string> net, late, rejected;
    std::size_t transactions = 0, row_changes = 0;
    std::string engine;
    friend bool operator==(const Seen&, const Seen&) = default;
};

Seen seen(const SinkBatch& b, const tw::Engine& e) {
    Seen s;
    for (const NetChange& c : b.net())
        s.net.push_back(c.row->key + "/" + std::to_string(c.row->start) +
                        (c.removed ? " removed"
                                   : " " + std::to_string(c.row->end) + " " + std::to_string(c.row->count) + " " +
                                         std::to_string(c.row->sum) + (c.row->final ? " final" : "")));
    for (const LateRow& l : b.late_rows())
        s.late.push_back(l.gtid + " " + std::to_string(l.seq) + " " + l.op + " " + l.id + " " + l.key + " " +
                         std::to_string(l.ts));
    for (const RejectedSinkRow& r : b.rejected_rows())
        s.rejected.push_back(r.gtid + " " + std::to_string(r.row.change) + " " + r.row.image + " " +
                             r.row.id.value_or("NULL") + " " + r.row.reason);
    s.transactions = b.source_transactions();
    s.row_changes = b.row_changes();
    s.engine = tw::encode_binary(e.checkpoint());
    return s;
}

// Every transaction whole (the path before issue 25).
Seen whole(Partition p) {
    tw::Engine engine(tw::Config{10, 20});
    WatermarkRule rule(10);
    SessionApplier applier(engine, rule, p);
    TransactionMapper m({"id", "key", "ts", "value"});
    SinkBatch batch;
    const auto txs = workload();
    for (std::size_t t = 0; t < txs.size(); ++t) {
        m.begin();
        for (const SourceChange& c : txs[t]) m.add(c);
        applier.apply(m, "0-1-" + std::to_string(t + 1), batch);
    }
    return seen(batch, engine);
}

// Every transaction in parts of `part` changes, as the run loop gives them.
Seen in_parts(std::size_t part, Partition p, std::size_t* read_again = nullptr) {
    tw::Engine engine(tw::Config{10, 20});
    WatermarkRule rule(10);
    SessionApplier applier(engine, rule, p);
    TransactionMapper m({"id", "key", "ts", "value"});
    SinkBatch batch;
    m.split_into_parts(part, [&](TransactionMapper& mapped) { applier.apply_part(mapped, batch); });
    const auto txs = workload();
    for (std::size_t t = 0; t < txs.size(); ++t) {
        const std::string gtid = "0-1-" + std::to_string(t + 1);
        auto read = [&] {
            m.begin();
            for (const SourceChange& c : txs[t]) m.add(c);
        };
        read();
        if (!applier.in_transaction()) {
            applier.apply(m, gtid, batch);
            continue;
        }
        auto outcome = applier.finish(m, gtid, batch);
        if (!outcome) {
            if (read_again) ++*read_again;
            read();
            outcome = applier.finish(m, gtid, batch);
            EXPECT_TRUE(outcome.has_value());
            EXPECT_FALSE(outcome->accepted);
        }
        EXPECT_FALSE(applier.in_transaction());
    }
    return seen(batch, engine);
}

TEST(TransactionParts, EveryPartSizeGivesWhatWholeTransactionsGive) {
    const Seen expected = whole({});
    // The workload exercises what it should.
    ASSERT_FALSE(expected.late.empty());
    ASSERT_GE(expected.rejected.size(), 25U + 3U + 1U);
    for (std::size_t part : {1U, 2U, 5U, 12U, 13U, 41U, 100U}) {
        SCOPED_TRACE("parts of " + std::to_string(part));
        std::size_t read_again = 0;
        const Seen got = in_parts(part, {}, &read_again);
        EXPECT_EQ(got.net, expected.net);
        EXPECT_EQ(got.late, expected.late);
        EXPECT_EQ(got.rejected, expected.rejected);
        EXPECT_EQ(got.transactions, expected.transactions);
        EXPECT_EQ(got.row_changes, expected.row_changes);
        EXPECT_EQ(got.engine, expected.engine);
        // Refused transactions given in more than one part are read again.
        EXPECT_EQ(read_again, (part < 3 ? 2U : part < 25 ? 1U : 0U));
    }
}

TEST(TransactionParts, AWorkerInPartsWritesWhatItWritesWhole) {
    for (std::uint32_t index = 0; index < 3; ++index) {
        SCOPED_TRACE("partition " + std::to_string(index) + "/3");
        const Seen expected = whole({index, 3});
        for (std::size_t part : {1U, 4U, 13U}) {
            SCOPED_TRACE("parts of " + std::to_string(part));
            const Seen got = in_parts(part, {index, 3});
            EXPECT_EQ(got, expected);
        }
    }
}

// A sink transaction as a table (key/start -> the row's text) taking a
// huge transaction's slices in order, as Sink::write_slice does: the rows
// before a slice's savepoint, the savepoint, the rest; take_back_slices()
// goes back to the savepoint.
struct SlicedSink : SliceOut {
    using Table = std::map<std::string, std::string>;
    Table table, at_savepoint;
    std::size_t slices = 0, taken_back = 0, most_rows = 0;
    // What NAME holds open (or final ahead), planned as Sink::write_rows
    // plans, and what the plans wrote.
    OpenSinkRows open;
    std::size_t inserted = 0, upserted = 0, in_place = 0, reopened = 0;

    static std::string at(const SessionRow& r) { return r.key + "/" + std::to_string(r.start); }
    static std::string text(const SessionRow& r) {
        return std::to_string(r.end) + " " + std::to_string(r.count) + " " + std::to_string(r.sum) +
               (r.final ? " final" : "");
    }
    // The net changes straight onto a table (what a run without the
    // open-rows plan leaves).
    static void take(Table& t, const std::vector<NetChange>& net) {
        for (const NetChange& c : net) {
            if (c.removed) t.erase(at(*c.row));
            else t[at(*c.row)] = text(*c.row);
        }
    }
    // Through the plan, as the sink writes: a COPY of a row NAME holds, an
    // upsert or delete of one it does not, or a row left in place that is
    // not the finalized row, fails the test.
    void write(const std::vector<NetChange>& net) {
        const OpenSinkRows::Plan plan = open.plan(net, false);
        std::size_t placed = plan.in_place;
        for (const SessionRow* r : plan.insert) {
            EXPECT_FALSE(table.contains(at(*r))) << "COPY of a row NAME holds: " << at(*r);
            table[at(*r)] = text(*r);
        }
        for (const SessionRow* r : plan.upsert) {
            EXPECT_TRUE(table.contains(at(*r))) << "upsert of a row NAME does not hold: " << at(*r);
            table[at(*r)] = text(*r);
        }
        for (const SessionRow* r : plan.remove) {
            EXPECT_TRUE(table.contains(at(*r))) << "delete of a row NAME does not hold: " << at(*r);
            table.erase(at(*r));
        }
        for (const NetChange& c : net) {
            if (c.removed || !c.finalized_only || !table.contains(at(*c.row)) || placed == 0) continue;
            if (table[at(*c.row)] == text(*c.row)) --placed;  // the finalized row, in place
        }
        EXPECT_EQ(placed, 0U) << "a row left in place that is not the finalized row";
        inserted += plan.insert.size();
        upserted += plan.upsert.size();
        in_place += plan.in_place;
        open.committed(net);
    }
    // As Sink::reopen_left_ahead: rows still held final ahead are open.
    void reopen_left_ahead() {
        for (const auto& [key, start] : open.left_ahead({})) {
            std::string& row = table[key + "/" + std::to_string(start)];
            row.resize(row.size() - std::string(" final").size());
            ++reopened;
        }
        open.none_ahead();
    }
    void commit(const std::vector<NetChange>& net) {
        write(net);
        reopen_left_ahead();
    }
    void send_slice(SinkBatch& batch) override {
        SinkBatch slice;
        batch.move_sessions_to(slice);
        EXPECT_EQ(batch.logged(), 0U);
        most_rows = std::max(most_rows, slice.logged());
        const std::size_t split = slice.savepoint_at().value_or(0);
        write(slice.net(0, split));
        if (slice.savepoint_at()) {
            reopen_left_ahead();
            at_savepoint = table;
        }
        write(slice.net(split, slice.logged()));
        ++slices;
    }
    void take_back_slices() override {
        table = at_savepoint;
        open = OpenSinkRows{};
        for (const auto& [row_at, row] : table) {
            if (row.ends_with(" final")) continue;
            const std::size_t slash = row_at.rfind('/');
            open.add(row_at.substr(0, slash), std::stoll(row_at.substr(slash + 1)));
        }
        ++taken_back;
    }
};

// Every transaction in parts of `part` changes, slices sent once `sessions`
// sessions changed; the batch of the last commit then goes onto the sliced
// table. Returns the table, the rest as Seen (net emptied).
Seen in_slices(std::size_t part, std::size_t sessions, Partition p, SlicedSink& sink) {
    tw::Engine engine(tw::Config{10, 20});
    WatermarkRule rule(10);
    SessionApplier applier(engine, rule, p);
    applier.slice_into(sink, sessions);
    TransactionMapper m({"id", "key", "ts", "value"});
    SinkBatch batch;
    m.split_into_parts(part, [&](TransactionMapper& mapped) { applier.apply_part(mapped, batch); });
    const auto txs = workload();
    for (std::size_t t = 0; t < txs.size(); ++t) {
        const std::string gtid = "0-1-" + std::to_string(t + 1);
        auto read = [&] {
            m.begin();
            for (const SourceChange& c : txs[t]) m.add(c);
        };
        read();
        if (!applier.in_transaction()) {
            applier.apply(m, gtid, batch);
            continue;
        }
        auto outcome = applier.finish(m, gtid, batch);
        if (!outcome) {
            read();
            outcome = applier.finish(m, gtid, batch);
            EXPECT_TRUE(outcome.has_value());
        }
    }
    sink.commit(batch.net());
    Seen s = seen(batch, engine);
    s.net.clear();
    return s;
}

// Issue 25: slices of a transaction in parts, written in order into one
// sink transaction, then its commit, give the table the whole transactions
// give; the refused transactions' slices are taken back; and no slice holds
// more than a part's sessions (two rows each: before and after).
TEST(TransactionParts, SlicesSentWhileTheTransactionIsOpenGiveTheWholeTransactionsTable) {
    for (Partition p : {Partition{}, Partition{1, 3}}) {
        Seen expected = whole(p);
        SlicedSink::Table want;
        {
            tw::Engine engine(tw::Config{10, 20});
            WatermarkRule rule(10);
            SessionApplier applier(engine, rule, p);
            TransactionMapper m({"id", "key", "ts", "value"});
            SinkBatch batch;
            const auto txs = workload();
            for (std::size_t t = 0; t < txs.size(); ++t) {
                m.begin();
                for (const SourceChange& c : txs[t]) m.add(c);
                applier.apply(m, "0-1-" + std::to_string(t + 1), batch);
            }
            SlicedSink::take(want, batch.net());
        }
        expected.net.clear();
        for (std::size_t part : {1U, 2U, 5U, 13U}) {
            SCOPED_TRACE("parts of " + std::to_string(part) + ", partition " + std::to_string(p.index));
            SlicedSink sink;
            const Seen got = in_slices(part, part, p, sink);
            EXPECT_EQ(sink.table, want);
            EXPECT_EQ(got, expected);
            EXPECT_EQ(sink.reopened, 0U);  // every row put final ahead was final at its commit
            EXPECT_GT(sink.slices, 0U);
            // The two refused transactions, where they got a slice before the refusal.
            if (p.count == 1 && part < 3) {
                EXPECT_EQ(sink.taken_back, 2U);
            }
            if (p.count == 1 && part == 5) {
                EXPECT_EQ(sink.taken_back, 1U);
            }
        }
    }
}

TEST(TransactionParts, AnAbandonedTransactionLeavesNothing) {
    tw::Engine engine(tw::Config{10, 20});
    WatermarkRule rule(10);
    SessionApplier applier(engine, rule);
    TransactionMapper m({"id", "key", "ts", "value"});
    SinkBatch batch;
    m.begin();
    m.add(insert(1, 0, 0, 1));
    applier.apply(m, "0-1-1", batch);
    ASSERT_TRUE(engine.advance_watermark(100).ok());  // horizon 80: the inserts below are late
    const std::string before = tw::encode_binary(engine.checkpoint());
    const std::size_t late_before = batch.late_rows().size();

    m.split_into_parts(2, [&](TransactionMapper& mapped) { applier.apply_part(mapped, batch); });
    m.begin();
    for (int i = 0; i < 5; ++i) m.add(insert(10 + i, 1, 70 + i, 1));  // late: into the batch at once
    m.add({SourceChange::Op::insert, std::nullopt, RowImage{V::null_value(), V::of_text("a"), V::of_signed(1), V::of_double(1)}});
    ASSERT_TRUE(applier.in_transaction());
    ASSERT_GT(batch.late_rows().size(), late_before);
    applier.abandon(batch);
    EXPECT_FALSE(applier.in_transaction());
    EXPECT_FALSE(engine.in_transaction());
    EXPECT_EQ(batch.late_rows().size(), late_before);
    EXPECT_TRUE(batch.rejected_rows().empty());
    EXPECT_EQ(tw::encode_binary(engine.checkpoint()), before);
}

// Transactions the engine accepts, in parts of `part` changes (0: whole),
// slices sent once `sessions` sessions changed (0: none), into `sink`: one
// commit of the whole batch at the end, or one after each transaction.
void run_accepted(const std::vector<Changes>& txs, std::size_t part, std::size_t sessions, SlicedSink& sink,
                  bool commit_each) {
    tw::Engine engine(tw::Config{10, 20});
    WatermarkRule rule(10);
    SessionApplier applier(engine, rule);
    if (sessions > 0) applier.slice_into(sink, sessions);
    TransactionMapper m({"id", "key", "ts", "value"});
    SinkBatch batch;
    if (part > 0) m.split_into_parts(part, [&](TransactionMapper& mapped) { applier.apply_part(mapped, batch); });
    for (std::size_t t = 0; t < txs.size(); ++t) {
        m.begin();
        for (const SourceChange& c : txs[t]) m.add(c);
        const std::string gtid = "0-1-" + std::to_string(t + 1);
        if (applier.in_transaction()) {
            ASSERT_TRUE(applier.finish(m, gtid, batch).has_value());
        } else {
            ASSERT_TRUE(applier.apply(m, gtid, batch).accepted);
        }
        if (commit_each) {
            sink.most_rows = std::max(sink.most_rows, batch.logged());
            sink.commit(batch.net());
            batch.clear();
        }
    }
    if (!commit_each) {
        sink.most_rows = std::max(sink.most_rows, batch.logged());
        sink.commit(batch.net());
    }
}

// Issue 25: a transaction holding a session per row open (its rows 100
// apart, gap 10), then one that moves the watermark past all of them: the
// jump is taken in steps (Engine::watermark_step) and the batch sent as
// slices, so no slice holds much more than `sessions` rows (twice that at
// most: a step's rows on top of a batch just short of the bound), and the
// table is the one an unsliced run gives, in parts or whole.
TEST(TransactionParts, AWatermarkJumpOverManySessionsGoesToTheSinkInBoundedSlices) {
    const std::vector<Changes> txs = [] {
        Changes big;
        for (int i = 0; i < 600; ++i) big.push_back(insert(i, static_cast<std::size_t>(i), i * 100, i));
        return std::vector<Changes>{big, {insert(1000, 0, 1'000'000, 1)}, {insert(1001, 1, 1'000'001, 1)}};
    }();
    auto run = [&](std::size_t part, bool sliced, SlicedSink& sink) {
        run_accepted(txs, part, sliced ? 32 : 0, sink, false);
    };
    SlicedSink want;
    run(0, false, want);
    ASSERT_EQ(want.slices, 0U);
    ASSERT_EQ(want.most_rows, 1202U);  // without slices the batch holds every session open, then final
    std::size_t finals = 0;
    for (const auto& [at, row] : want.table) finals += row.ends_with(" final") ? 1U : 0U;
    ASSERT_EQ(finals, 600U);
    for (std::size_t part : {0U, 50U}) {
        SCOPED_TRACE("parts of " + std::to_string(part));
        SlicedSink got;
        run(part, true, got);
        EXPECT_EQ(got.table, want.table);
        EXPECT_GE(got.slices, 600U / 64);
        // Whole (no parts), the transaction's 600 open rows are in the batch
        // before the jump, and go with its first step's slice; in parts its
        // slices took them.
        EXPECT_LE(got.most_rows, part == 0 ? 601U + 32U : 64U);
        EXPECT_EQ(got.reopened, 0U);
    }
}

// Issue 25: a transaction holding a session per row open writes each
// session once. Its slices put the rows that end below the horizon of the
// watermark its commit moves to at least (the largest ts so far less the
// lag, less the lateness) final ahead, and the commit's finalization finds
// them in NAME; the newest rows, not yet below it, are held back to the
// next slice; without that, each sliced row was written open, then upserted
// final. The rows are 4 apart (gap 10, lag 10, lateness 20: ten of them
// within the window at each slice, and a row put ahead that the commit
// does not finalize would be set back open: `reopened`). An update of
// every row in the next transaction, in parts, changes sessions that its
// earlier slices put ahead or held back: those are removed (or dropped)
// and put again, and the table still ends as the unsliced run's.
TEST(TransactionParts, ASessionPerRowTransactionInSlicesWritesEachSessionOnce) {
    const std::vector<Changes> txs = [] {
        Changes inserts, updates;
        for (int i = 0; i < 600; ++i) inserts.push_back(insert(i, static_cast<std::size_t>(i), i * 4, i));
        // Every row moves to a new session (the old one, final, keeps it: a
        // late retraction), and every third row's new session gets a second
        // event later in the transaction (a row put ahead or held, then
        // changed). A key's rows are 28 apart: no two of them join.
        for (int i = 0; i < 600; ++i)
            updates.push_back(update(i, static_cast<std::size_t>(i), i * 4, i, static_cast<std::size_t>(i),
                                     100'000 + i * 4 + (i % 3 == 0 ? 1 : 0), i + 1));
        for (int i = 0; i < 600; i += 3)
            updates.push_back(insert(2000 + i, static_cast<std::size_t>(i), 100'000 + i * 4 + 3, 1));
        return std::vector<Changes>{inserts, updates, {insert(5000, 0, 1'000'000, 1)}};
    }();
    auto run = [&](std::size_t part, bool sliced, SlicedSink& sink) {
        run_accepted(txs, part, sliced ? 32 : 0, sink, true);  // a sink commit after each source transaction
    };
    SlicedSink want;
    run(0, false, want);
    // Whole, each commit nets a session's open and final rows into one
    // COPY; only the sessions still open after it are upserted at a later
    // one (the first transaction's are deleted by their rows' update).
    ASSERT_LE(want.upserted, 20U);
    for (std::size_t part : {25U, 50U}) {
        SCOPED_TRACE("parts of " + std::to_string(part));
        SlicedSink got;
        run(part, true, got);
        EXPECT_EQ(got.table, want.table);
        EXPECT_EQ(got.reopened, 0U);
        EXPECT_GT(got.slices, 20U);
        EXPECT_GT(got.in_place, 900U);  // most of both transactions' sessions
        // Only these were written twice: the sessions a later part changed
        // after a slice put them (every third row's second insert lands on
        // its updated session). Without rows put final ahead, over 1,100.
        EXPECT_LE(got.upserted, want.upserted + 200U);
        EXPECT_EQ(got.inserted, want.inserted);
    }
}

}  // namespace
}  // namespace sluice::pipeline
