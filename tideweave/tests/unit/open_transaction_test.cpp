// A transaction given in parts (Engine::begin_transaction ... commit):
// the same result as apply() of the whole, atomic across parts (an error in
// a late part takes back the earlier ones), and parts whose strings are
// gone once apply_part() returned.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "sluice/tideweave/checkpoint.hpp"
#include "sluice/tideweave/engine.hpp"

namespace sluice::tideweave {
namespace {

using M = Mutation;

// Owned mutations, so that a part can be copied into a buffer that is
// overwritten after apply_part() (the engine must keep nothing of it).
struct Owned {
    M::Kind kind;
    std::string id, key;
    std::int64_t ts;
    double value;
    bool check_value;
};

Owned owned(const M& m) { return {m.kind, std::string(m.id), std::string(m.key), m.ts, m.value, m.check_value}; }

M view(const Owned& o) { return {o.kind, o.id, o.key, o.ts, o.value, o.check_value}; }

// A transaction over a held state: inserts (new keys and old), retractions
// of held events and of its own inserts, re-inserts of retracted ids, a
// late mutation and events that merge sessions.
std::vector<Owned> mixed_transaction() {
    std::vector<Owned> tx;
    for (int i = 0; i < 40; ++i)
        tx.push_back(owned(M::insert("n" + std::to_string(i), "k" + std::to_string(i % 7), 100 + i * 3, i * 0.5)));
    tx.push_back(owned(M::retract("h1", "k1", 60)));
    tx.push_back(owned(M::retract("n3", "k3", 109, 1.5)));
    tx.push_back(owned(M::insert("n3", "k3", 110, 4)));
    tx.push_back(owned(M::insert("h1", "k2", 61, 7)));
    tx.push_back(owned(M::insert("late", "k1", 5, 1)));  // below the horizon 50 - 20
    tx.push_back(owned(M::insert("bridge", "k0", 104, 1)));
    return tx;
}

void held_state(Engine& e) {
    ASSERT_TRUE(e.apply({M::insert("h1", "k1", 60, 1), M::insert("h2", "k1", 65, 2), M::insert("h3", "k9", 70, 3)}).ok());
    ASSERT_TRUE(e.advance_watermark(50).ok());
}

struct Published {
    std::vector<std::string> rows;  // "before|after key start end count sum min max final"
    std::vector<std::size_t> late;
};

std::string text(const char* side, const Row& r) {
    return std::string(side) + " " + std::string(r.key) + " " + std::to_string(r.start) + " " + std::to_string(r.end) +
           " " + std::to_string(r.count) + " " + std::to_string(r.sum) + " " + std::to_string(r.min) + " " +
           std::to_string(r.max) + (r.final ? " final" : "");
}

void publish(const Changes& c, Published& out) {
    for (const Row& r : c.before) out.rows.push_back(text("before", r));
    for (const Row& r : c.after) out.rows.push_back(text("after", r));
    for (const LateItem& l : c.late) out.late.push_back(l.index);
}

// Applies `tx` in parts of `part_size`, each copied into one reused buffer
// that is overwritten (with other text) once the engine has it.
Result<Changes> apply_in_parts(Engine& e, const std::vector<Owned>& tx, std::size_t part_size, Published& out) {
    e.begin_transaction();
    std::vector<Owned> buffer;
    std::vector<M> part;
    for (std::size_t at = 0; at < tx.size(); at += part_size) {
        buffer.assign(tx.begin() + static_cast<std::ptrdiff_t>(at),
                      tx.begin() + static_cast<std::ptrdiff_t>(std::min(tx.size(), at + part_size)));
        part.clear();
        for (const Owned& o : buffer) part.push_back(view(o));
        auto late = e.apply_part(part);
        if (!late) return late.error();
        for (const LateItem& l : *late) out.late.push_back(l.index);
        for (Owned& o : buffer) o.id.assign(o.id.size(), '#'), o.key.assign(o.key.size(), '#');
    }
    return e.commit_transaction();
}

TEST(OpenTransaction, PartsOfAnySizeGiveWhatTheWholeTransactionGives) {
    const std::vector<Owned> tx = mixed_transaction();
    Engine whole({.gap = 10, .lateness = 20});
    held_state(whole);
    std::vector<M> all;
    for (const Owned& o : tx) all.push_back(view(o));
    auto expected_changes = whole.apply(all);
    ASSERT_TRUE(expected_changes.ok()) << expected_changes.error().message;
    Published expected;
    publish(*expected_changes, expected);
    ASSERT_EQ(expected.late, std::vector<std::size_t>{44});
    const std::string expected_state = encode_binary(whole.checkpoint("p"));

    for (std::size_t part_size : {1U, 2U, 7U, 45U, 46U, 1000U}) {
        SCOPED_TRACE("parts of " + std::to_string(part_size));
        Engine parts({.gap = 10, .lateness = 20});
        held_state(parts);
        Published got;
        auto changes = apply_in_parts(parts, tx, part_size, got);
        ASSERT_TRUE(changes.ok()) << changes.error().message;
        EXPECT_TRUE(changes->late.empty());  // each part listed its own
        publish(*changes, got);
        EXPECT_EQ(got.rows, expected.rows);
        EXPECT_EQ(got.late, expected.late);
        EXPECT_EQ(changes->version, expected_changes->version);
        EXPECT_FALSE(parts.in_transaction());
        EXPECT_EQ(encode_binary(parts.checkpoint("p")), expected_state);
        EXPECT_EQ(parts.key_count(), whole.key_count());
    }
}

TEST(OpenTransaction, AnErrorInALatePartTakesBackEveryEarlierPart) {
    std::vector<Owned> tx = mixed_transaction();
    tx.push_back(owned(M::retract("nobody", "k1", 100)));  // mutation 46: no such event
    Engine e({.gap = 10, .lateness = 20});
    held_state(e);
    const std::string before = encode_binary(e.checkpoint("p"));
    const std::size_t keys = e.key_count();
    Published ignored;
    auto changes = apply_in_parts(e, tx, 5, ignored);
    ASSERT_FALSE(changes.ok());
    EXPECT_EQ(changes.error().kind, ErrorKind::identity);
    EXPECT_EQ(changes.error().index, 46U);  // counted in the whole transaction
    EXPECT_NE(changes.error().message.find("tx[46].retract"), std::string::npos) << changes.error().message;
    EXPECT_FALSE(e.in_transaction());
    EXPECT_EQ(e.version(), 1);
    EXPECT_EQ(e.key_count(), keys);  // the keys the parts named first are gone again
    EXPECT_EQ(encode_binary(e.checkpoint("p")), before);
    // The engine goes on as if the transaction had never come.
    EXPECT_TRUE(e.apply({M::insert("n1", "k1", 100, 1)}).ok());
}

// A transaction whose undo log is far over its 1 MiB chunk (most of it in
// the temporary file, undo_log.hpp): an update of every held row (a
// retraction and an insert each) refused at its last part leaves the state
// exactly as before, and so does a rollback; committed, it equals apply().
TEST(OpenTransaction, AHugeTransactionsSpilledUndoLogTakesBackEveryPart) {
    constexpr int rows = 60000;
    std::vector<Owned> held, update;
    for (int i = 0; i < rows; ++i) {
        const std::string id = "row-" + std::to_string(i), key = "k" + std::to_string(i % 300);
        held.push_back(owned(M::insert(id, key, 1000 + i, i)));
        update.push_back(owned(M::retract(id, key, 1000 + i, i)));
        update.push_back(owned(M::insert(id, key, 1000 + i, i + 0.5)));
    }
    auto fill = [&](Engine& e) {
        std::vector<M> all;
        for (const Owned& o : held) all.push_back(view(o));
        ASSERT_TRUE(e.apply(all).ok());
    };
    Engine whole({.gap = 10, .lateness = 20});
    fill(whole);
    std::vector<M> all;
    for (const Owned& o : update) all.push_back(view(o));
    ASSERT_TRUE(whole.apply(all).ok());

    for (const char* end : {"refused", "rolled back", "committed"}) {
        Engine e({.gap = 10, .lateness = 20});
        fill(e);
        const std::string before = encode_binary(e.checkpoint("p"));
        e.begin_transaction();
        for (std::size_t at = 0; at < update.size(); at += 1000) {
            std::vector<M> part;
            for (std::size_t i = at; i < std::min(update.size(), at + 1000); ++i) part.push_back(view(update[i]));
            ASSERT_TRUE(e.apply_part(part).ok()) << end << " at " << at;
        }
        if (std::string(end) == "refused") {
            auto bad = e.apply_part(std::vector<M>{M::retract("nobody", "k1", 1001)});
            ASSERT_FALSE(bad.ok());
            EXPECT_EQ(bad.error().index, update.size());
        } else if (std::string(end) == "rolled back") {
            e.rollback_transaction();
        } else {
            ASSERT_TRUE(e.commit_transaction().ok());
            EXPECT_EQ(encode_binary(e.checkpoint("p")), encode_binary(whole.checkpoint("p")));
            continue;
        }
        EXPECT_FALSE(e.in_transaction());
        EXPECT_EQ(encode_binary(e.checkpoint("p")), before) << end;
        // The engine goes on: the same update again, now committed.
        e.begin_transaction();
        ASSERT_TRUE(e.apply_part(all).ok());
        ASSERT_TRUE(e.commit_transaction().ok());
        EXPECT_EQ(encode_binary(e.checkpoint("p")), encode_binary(whole.checkpoint("p"))) << end;
    }
}

TEST(OpenTransaction, AShapeErrorInAPartTakesBackTheTransaction) {
    Engine e;
    e.begin_transaction();
    ASSERT_TRUE(e.apply_part(std::vector<M>{M::insert("a", "k", 0, 1)}).ok());
    auto bad = e.apply_part(std::vector<M>{M::insert("b", "k", 1, std::numeric_limits<double>::infinity())});
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().kind, ErrorKind::shape);
    EXPECT_EQ(bad.error().index, 1U);
    EXPECT_FALSE(e.in_transaction());
    EXPECT_EQ(e.active_events(), 0U);
    EXPECT_EQ(e.key_count(), 0U);
}

TEST(OpenTransaction, ASumBeyondTheDoubleRangeAtTheCommitTakesBackEveryPart) {
    Engine e;
    ASSERT_TRUE(e.apply({M::insert("a", "k", 0, 1)}).ok());
    const std::string before = encode_binary(e.checkpoint());
    const double big = std::numeric_limits<double>::max();
    e.begin_transaction();
    ASSERT_TRUE(e.apply_part(std::vector<M>{M::insert("b", "k", 1, big)}).ok());
    ASSERT_TRUE(e.apply_part(std::vector<M>{M::insert("c", "k", 2, big)}).ok());
    auto changes = e.commit_transaction();
    ASSERT_FALSE(changes.ok());
    EXPECT_EQ(changes.error().kind, ErrorKind::sum_overflow);
    EXPECT_FALSE(e.in_transaction());
    EXPECT_EQ(encode_binary(e.checkpoint()), before);
}

TEST(OpenTransaction, RollbackTakesBackEveryPart) {
    Engine e({.gap = 10, .lateness = 20});
    held_state(e);
    const std::string before = encode_binary(e.checkpoint());
    e.begin_transaction();
    std::vector<M> part;
    const std::vector<Owned> tx = mixed_transaction();
    for (const Owned& o : tx) part.push_back(view(o));
    ASSERT_TRUE(e.apply_part(part).ok());
    EXPECT_EQ(e.transaction_mutations(), tx.size());
    e.rollback_transaction();
    EXPECT_FALSE(e.in_transaction());
    EXPECT_EQ(e.transaction_mutations(), 0U);
    EXPECT_EQ(encode_binary(e.checkpoint()), before);
}

TEST(OpenTransaction, CallsThatWouldMoveOrReadTheStateRefuseWhileItIsOpen) {
    Engine e;
    e.begin_transaction();
    EXPECT_THROW(e.apply({M::insert("a", "k", 0, 1)}), std::logic_error);
    EXPECT_THROW((void)e.advance_watermark(5), std::logic_error);
    EXPECT_THROW((void)e.forget(), std::logic_error);
    EXPECT_THROW((void)e.snapshot(), std::logic_error);
    EXPECT_THROW((void)e.checkpoint(), std::logic_error);
    EXPECT_THROW(e.begin_transaction(), std::logic_error);
    auto empty = e.commit_transaction();  // an empty transaction counts, as apply({}) does
    ASSERT_TRUE(empty.ok());
    EXPECT_EQ(empty->version, 1);
    EXPECT_THROW((void)e.apply_part(std::vector<M>{}), std::logic_error);
    EXPECT_THROW((void)e.commit_transaction(), std::logic_error);
    EXPECT_THROW(e.rollback_transaction(), std::logic_error);
}

// Issue 25: take_changes() hands out the open transaction's changes in
// slices. A table (key start -> row) that takes each slice in order (its
// before rows removed, its after rows put), then the commit's changes, ends
// as a table taking the whole transaction's changes ends, for both engines
// and any part size; the version and state are the whole transaction's.
using Table = std::map<std::string, std::string>;  // "key start" -> the row's text

void take(Table& table, const Changes& c) {
    for (const Row& r : c.before) table.erase(std::string(r.key) + " " + std::to_string(r.start));
    for (const Row& r : c.after) table[std::string(r.key) + " " + std::to_string(r.start)] = text("row", r);
}

TEST(OpenTransaction, SlicesTakenAfterEveryPartThenTheCommitEqualTheWholeTransactionsChanges) {
    const std::vector<Owned> tx = mixed_transaction();
    for (EngineKind kind : {EngineKind::incremental, EngineKind::naive}) {
        Engine whole({.gap = 10, .lateness = 20}, kind);
        Table start;
        auto held = whole.apply({M::insert("h1", "k1", 60, 1), M::insert("h2", "k1", 65, 2), M::insert("h3", "k9", 70, 3)});
        ASSERT_TRUE(held.ok());
        take(start, *held);
        ASSERT_TRUE(whole.advance_watermark(50).ok());
        std::vector<M> all;
        for (const Owned& o : tx) all.push_back(view(o));
        auto expected_changes = whole.apply(all);
        ASSERT_TRUE(expected_changes.ok()) << expected_changes.error().message;
        Table expected = start;
        take(expected, *expected_changes);
        const std::string expected_state = encode_binary(whole.checkpoint("p"));

        for (std::size_t part_size : {1U, 3U, 7U, 45U, 1000U}) {
            SCOPED_TRACE("parts of " + std::to_string(part_size) + (kind == EngineKind::naive ? ", naive" : ""));
            Engine parts({.gap = 10, .lateness = 20}, kind);
            held_state(parts);
            Table got = start;
            parts.begin_transaction();
            std::size_t slices = 0;
            for (std::size_t at = 0; at < tx.size(); at += part_size) {
                std::vector<M> part;
                for (std::size_t i = at; i < std::min(tx.size(), at + part_size); ++i) part.push_back(view(tx[i]));
                ASSERT_TRUE(parts.apply_part(part).ok());
                auto slice = parts.take_changes();
                ASSERT_TRUE(slice.has_value());
                EXPECT_EQ(slice->version, 1);  // the commit moves it
                EXPECT_EQ(parts.changed_sessions(), 0U);
                take(got, *slice);
                ++slices;
            }
            auto changes = parts.commit_transaction();
            ASSERT_TRUE(changes.ok()) << changes.error().message;
            take(got, *changes);
            EXPECT_EQ(got, expected);
            EXPECT_EQ(changes->version, expected_changes->version);
            EXPECT_EQ(encode_binary(parts.checkpoint("p")), expected_state);
            EXPECT_EQ(slices, (tx.size() + part_size - 1) / part_size);
        }
    }
}

TEST(OpenTransaction, AnErrorOrARollbackAfterSlicesTakesBackEveryPart) {
    for (bool error : {true, false}) {
        SCOPED_TRACE(error ? "an error in the last part" : "rollback_transaction");
        Engine e({.gap = 10, .lateness = 20});
        held_state(e);
        const std::string before = encode_binary(e.checkpoint("p"));
        const std::size_t keys = e.key_count();
        const std::vector<Owned> tx = mixed_transaction();
        e.begin_transaction();
        for (const Owned& o : tx) {
            ASSERT_TRUE(e.apply_part(std::vector<M>{view(o)}).ok());
            ASSERT_TRUE(e.take_changes().has_value());
        }
        if (error) {
            auto bad = e.apply_part(std::vector<M>{M::retract("nobody", "k1", 100)});
            ASSERT_FALSE(bad.ok());
            EXPECT_EQ(bad.error().index, tx.size());
        } else {
            e.rollback_transaction();
        }
        EXPECT_FALSE(e.in_transaction());
        EXPECT_EQ(e.version(), 1);
        EXPECT_EQ(e.key_count(), keys);
        EXPECT_EQ(encode_binary(e.checkpoint("p")), before);
        EXPECT_TRUE(e.apply({M::insert("n1", "k1", 100, 1)}).ok());
    }
}

// A sum beyond the double range refuses the transaction only if it still is
// at the commit: no slice is taken while it is (a later retraction can
// bring it back), and one that stays refuses the commit after slices.
TEST(OpenTransaction, NoSliceIsTakenWhileASumIsBeyondTheDoubleRange) {
    const double big = std::numeric_limits<double>::max();
    {
        Engine e;
        e.begin_transaction();
        ASSERT_TRUE(e.apply_part(std::vector<M>{M::insert("a", "k", 0, big)}).ok());
        ASSERT_TRUE(e.take_changes().has_value());
        ASSERT_TRUE(e.apply_part(std::vector<M>{M::insert("b", "k", 1, big)}).ok());
        EXPECT_FALSE(e.take_changes().has_value());
        EXPECT_EQ(e.changed_sessions(), 1U);  // still to be taken
        ASSERT_TRUE(e.apply_part(std::vector<M>{M::retract("b", "k", 1, big)}).ok());
        auto slice = e.take_changes();
        ASSERT_TRUE(slice.has_value());
        // Back to the row the first slice took: no change since.
        EXPECT_TRUE(slice->before.empty());
        EXPECT_TRUE(slice->after.empty());
        EXPECT_TRUE(e.commit_transaction().ok());
    }
    {
        Engine e;
        ASSERT_TRUE(e.apply({M::insert("x", "other", 0, 1)}).ok());
        const std::string before = encode_binary(e.checkpoint());
        e.begin_transaction();
        ASSERT_TRUE(e.apply_part(std::vector<M>{M::insert("a", "k", 0, big), M::insert("b", "k", 1, big)}).ok());
        EXPECT_FALSE(e.take_changes().has_value());
        ASSERT_TRUE(e.apply_part(std::vector<M>{M::insert("c", "k2", 0, 1)}).ok());
        EXPECT_FALSE(e.take_changes().has_value());
        auto changes = e.commit_transaction();
        ASSERT_FALSE(changes.ok());
        EXPECT_EQ(changes.error().kind, ErrorKind::sum_overflow);
        EXPECT_EQ(encode_binary(e.checkpoint()), before);
    }
}

TEST(OpenTransaction, TakeChangesWithoutAnOpenTransactionIsABug) {
    Engine e;
    EXPECT_THROW((void)e.take_changes(), std::logic_error);
    EXPECT_EQ(e.changed_sessions(), 0U);
}

}  // namespace
}  // namespace sluice::tideweave
