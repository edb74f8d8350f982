// The typed API directly: results and typed errors of each call, and the
// checkpoint codec (JSON and binary, the source position, hostile bytes with
// the place named).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "driver.hpp"
#include "sluice/tideweave/checkpoint.hpp"
#include "sluice/tideweave/engine.hpp"

namespace sluice::tideweave {
namespace {

using M = Mutation;

TEST(TypedApi, ChangesListRowsGoneAndNewAndLateItems) {
    Engine e({.gap = 10, .lateness = 20});
    auto c = e.apply({M::insert("a", "k", 0, 1), M::insert("b", "k", 10, 2), M::insert("c", "j", 5, 0.5)});
    ASSERT_TRUE(c.ok()) << c.error().message;
    EXPECT_EQ(c->version, 1);
    EXPECT_TRUE(c->before.empty());
    ASSERT_EQ(c->after.size(), 2U);
    EXPECT_EQ(c->after[0].key, "j");  // sorted by (key, start)
    EXPECT_EQ(c->after[1].key, "k");
    EXPECT_EQ(c->after[1].end, 20);
    EXPECT_EQ(c->after[1].count, 2);
    EXPECT_EQ(c->after[1].sum, 3);

    ASSERT_TRUE(e.advance_watermark(50).ok());  // horizon 30: both sessions final
    c = e.apply({M::insert("d", "k", 40, 1), M::insert("late", "k", 29, 1)});
    ASSERT_TRUE(c.ok());
    ASSERT_EQ(c->late.size(), 1U);
    EXPECT_EQ(c->late[0].index, 1U);
    EXPECT_EQ(c->late[0].id, "late");
    EXPECT_EQ(c->late[0].ts, 29);
    ASSERT_EQ(c->after.size(), 1U);
    EXPECT_EQ(c->after[0].start, 40);
}

TEST(TypedApi, ARetractAndReinsertLeavingTheRowAsItWasListsNothing) {
    Engine e;
    ASSERT_TRUE(e.apply({M::insert("a", "k", 0, 1), M::insert("b", "k", 5, 2)}).ok());
    auto c = e.apply({M::retract("b", "k", 5, 2), M::insert("b", "k", 5, 2)});
    ASSERT_TRUE(c.ok());
    EXPECT_TRUE(c->before.empty());
    EXPECT_TRUE(c->after.empty());
    EXPECT_EQ(c->version, 2);
}

TEST(TypedApi, ErrorsAreTypedAndChangeNothing) {
    Engine e;
    ASSERT_TRUE(e.apply({M::insert("a", "k", 0, 1)}).ok());
    const std::size_t keys = e.key_count();

    auto dup = e.apply({M::insert("n", "new-key", 3, 1), M::insert("a", "k", 1, 1)});
    ASSERT_FALSE(dup.ok());
    EXPECT_EQ(dup.error().kind, ErrorKind::identity);
    EXPECT_EQ(dup.error().index, 1U);
    EXPECT_EQ(dup.error().message, "tx[1].insert: an active event with id \"a\" already exists (key \"k\", ts 0)");
    EXPECT_EQ(e.version(), 1);
    EXPECT_EQ(e.key_count(), keys);  // "new-key" released again
    EXPECT_EQ(e.active_events(), 1U);

    auto mismatch = e.apply({M::retract("a", "k", 0, 2)});
    ASSERT_FALSE(mismatch.ok());
    EXPECT_EQ(mismatch.error().message, "tx[0].retract: event \"a\" has value 1, not 2");

    const double nan = std::numeric_limits<double>::quiet_NaN();
    const std::string bad_utf8 = "\xff";
    const std::string long_id(257, 'x');
    const std::vector<std::pair<Mutation, std::string>> shapes = {
        {M::insert("", "k", 0, 1), "tx[0].insert.id: expected a non-empty string of at most 256 bytes"},
        {M::insert(long_id, "k", 0, 1), "tx[0].insert.id: expected a non-empty string of at most 256 bytes"},
        {M::insert("x", bad_utf8, 0, 1), "tx[0].insert.key: not valid UTF-8"},
        {M::insert("x", "k", (std::int64_t{1} << 60) + 1, 1), "tx[0].insert.ts: expected an integer in [-2^60, 2^60]"},
        {M::insert("x", "k", 0, nan), "tx[0].insert.value: expected a finite number"},
        {M::retract("a", "k", 0, std::numeric_limits<double>::infinity()), "tx[0].retract.value: expected a finite number"},
    };
    for (const auto& [m, message] : shapes) {
        auto r = e.apply({m});
        ASSERT_FALSE(r.ok()) << message;
        EXPECT_EQ(r.error().kind, ErrorKind::shape);
        EXPECT_EQ(r.error().index, 0U);
        EXPECT_EQ(r.error().message, message);
    }
    EXPECT_EQ(e.version(), 1);

    auto overflow = e.apply({M::insert("m1", "k", 1, 1.7976931348623157e308), M::insert("m2", "k", 2, 1.7976931348623157e308)});
    ASSERT_FALSE(overflow.ok());
    EXPECT_EQ(overflow.error().kind, ErrorKind::sum_overflow);
    EXPECT_FALSE(overflow.error().index.has_value());

    ASSERT_TRUE(e.advance_watermark(50).ok());
    auto behind = e.advance_watermark(49);
    ASSERT_FALSE(behind.ok());
    EXPECT_EQ(behind.error().kind, ErrorKind::watermark_behind);
    EXPECT_EQ(behind.error().message, "watermark: 49 is behind the current watermark 50");
    EXPECT_EQ(e.watermark(), 50);
    EXPECT_THROW(static_cast<void>(behind.value()), std::logic_error);
    EXPECT_THROW(Engine({.gap = 0}), std::invalid_argument);
}

// The insert path settles ASCII ids and short keys from bytes it reads
// anyway (the ids' hashing pass, the key's 8-byte word) and tests ranges as
// one unsigned comparison each: non-ASCII but valid UTF-8 ids and keys of
// every length class are accepted (a short key "é" once was not: its
// word's high bits were taken as invalid), invalid ones are rejected at
// their own index, and the range bounds are inclusive.
TEST(TypedApi, ShapeChecksOnTheInsertPathMatchTheContract) {
    Engine e;
    const std::string id_256(256, 'i');
    auto ok = e.apply({M::insert("a1", "\xc3\xa9", 0, 1),                              // "é": 2 bytes
                       M::insert("\xd0\xb8\xd0\xb4-2", "\xd0\xba\xd0\xbb\xd1\x8e\xd1\x87", 1, 1),  // 8 bytes
                       M::insert("a3", "\xd0\xba\xd0\xbb\xd1\x8e\xd1\x87!", 2, 1),      // 9 bytes
                       M::insert(id_256, "k", -(std::int64_t{1} << 60), 1),
                       M::insert("a5", std::string(256, 'k'), std::int64_t{1} << 60, 1)});
    ASSERT_TRUE(ok.ok()) << ok.error().message;
    EXPECT_EQ(e.active_events(), 5U);
    EXPECT_EQ(e.key_count(), 5U);

    const std::string key_257(257, 'k');  // outlives the mutations viewing it
    const std::vector<std::pair<std::vector<Mutation>, std::string>> bad = {
        {{M::insert("b0", "k", 5, 1), M::insert("b1", "k", 6, 1), M::insert("\xff", "k", 7, 1)},
         "tx[2].insert.id: not valid UTF-8"},
        {{M::insert("b0", "k", 5, 1), M::insert("\xc3\xa9", "k", 6, 1), M::insert("b\xc3", "k", 7, 1)},
         "tx[2].insert.id: not valid UTF-8"},
        {{M::insert("b0", "k", 5, 1), M::insert("b1", "\xc3", 6, 1)}, "tx[1].insert.key: not valid UTF-8"},
        {{M::insert("b0", "k", 5, 1), M::insert("b1", "abcdefgh\xff", 6, 1)}, "tx[1].insert.key: not valid UTF-8"},
        {{M::insert("b0", "k", -(std::int64_t{1} << 60) - 1, 1)}, "tx[0].insert.ts: expected an integer in [-2^60, 2^60]"},
        {{M::insert("b0", key_257, 5, 1)}, "tx[0].insert.key: expected a string of at most 256 bytes"},
    };
    for (const auto& [tx, message] : bad) {
        auto r = e.apply(tx);
        ASSERT_FALSE(r.ok()) << message;
        EXPECT_EQ(r.error().kind, ErrorKind::shape);
        EXPECT_EQ(r.error().message, message);
    }
    EXPECT_EQ(e.version(), 1);
    EXPECT_EQ(e.active_events(), 5U);
    EXPECT_EQ(e.key_count(), 5U);
}

// The identity index holds no value: a retraction reads the event's value
// from its leaf (SessionEngine::retract returns it). A value that was to
// match and does not puts the event back, here after a retraction that
// split a session; a rejected transaction re-inserts a retracted event with
// the value its leaf had. Both engines; the state is as before each error.
TEST(TypedApi, RetractionsReadTheValueFromTheSessionEngine) {
    for (const EngineKind kind : {EngineKind::incremental, EngineKind::naive}) {
        Engine e({.gap = 5, .lateness = 0}, kind);
        ASSERT_TRUE(e.apply({M::insert("a", "k", 0, 1), M::insert("b", "k", 5, 2.5), M::insert("c", "k", 10, 4)}).ok());
        const auto rows_of = [&] {
            std::vector<std::string> out;
            for (const Row& r : e.snapshot().rows)
                out.push_back(std::to_string(r.start) + ".." + std::to_string(r.end) + " n" + std::to_string(r.count) +
                              " sum " + std::to_string(r.sum) + " min " + std::to_string(r.min) + " max " +
                              std::to_string(r.max));
            return out;
        };
        const std::vector<std::string> held = rows_of();
        ASSERT_EQ(held.size(), 1U);

        auto wrong = e.apply({M::retract("b", "k", 5, 2)});
        ASSERT_FALSE(wrong.ok());
        EXPECT_EQ(wrong.error().message, "tx[0].retract: event \"b\" has value 2.5, not 2");
        EXPECT_EQ(rows_of(), held);
        EXPECT_EQ(e.active_events(), 3U);

        auto later = e.apply({M::retract("c", "k", 10, 4), M::retract("b", "k", 5, 3)});
        ASSERT_FALSE(later.ok());
        EXPECT_EQ(later.error().index, 1U);
        EXPECT_EQ(rows_of(), held);

        // b's retraction is undone by the duplicate after it: b comes back
        // with 2.5, its leaf's value.
        auto undone = e.apply({M::retract("b", "k", 5), M::insert("a", "k", 7, 1)});
        ASSERT_FALSE(undone.ok());
        EXPECT_EQ(rows_of(), held);
        EXPECT_EQ(e.version(), 1);

        auto ok = e.apply({M::retract("b", "k", 5, 2.5)});
        ASSERT_TRUE(ok.ok()) << ok.error().message;
        ASSERT_EQ(ok->after.size(), 2U);  // the gap split the session
        EXPECT_EQ(ok->after[0].sum, 1);
        EXPECT_EQ(ok->after[1].sum, 4);
        EXPECT_EQ(e.active_events(), 2U);
        // Inserted again, with a new value: the new value is the one held.
        ASSERT_TRUE(e.apply({M::insert("b", "k", 5, 8)}).ok());
        auto again = e.apply({M::retract("b", "k", 5, 8)});
        ASSERT_TRUE(again.ok()) << again.error().message;
    }
}

TEST(TypedApi, ForgetAndSnapshot) {
    Engine e({.gap = 10, .lateness = 0});
    ASSERT_TRUE(e.apply({M::insert("a", "k", 0, 1), M::insert("b", "k", 100, 2), M::insert("c", "k", 95, 3)}).ok());
    auto f = e.advance_watermark(99);  // horizon 99: [0, 10) final; 95 sealed, its session open
    ASSERT_TRUE(f.ok());
    ASSERT_EQ(f->rows.size(), 1U);
    EXPECT_TRUE(f->rows[0].final);
    const Forgotten g = e.forget();
    EXPECT_EQ(g.rows_dropped, 1U);
    EXPECT_EQ(g.events_folded, 1U);
    const Snapshot s = e.snapshot();
    EXPECT_EQ(s.watermark, 99);
    ASSERT_EQ(s.rows.size(), 1U);
    EXPECT_EQ(s.rows[0].start, 95);
    EXPECT_EQ(s.rows[0].sum, 5);
}

// A state with a folded block, a final session and two keys.
Engine sample_engine(EngineKind kind = EngineKind::incremental) {
    Engine e({.gap = 10, .lateness = 5}, kind);
    EXPECT_TRUE(e.apply({M::insert("a", "k", 0, 0.1), M::insert("b", "k", 30, 0.2), M::insert("c", "k", 38, 0.3),
                         M::insert("d", "m\u00e9", 50, 1e16)})
                    .ok());
    EXPECT_TRUE(e.advance_watermark(40).ok());  // horizon 35: [0, 10) final, 30 sealed
    e.forget();
    EXPECT_TRUE(e.apply({M::insert("e", "k", 45, -1)}).ok());
    EXPECT_TRUE(e.advance_watermark(41).ok());
    return e;
}

TEST(CheckpointCodec, BothEncodingsRoundTripWithTheSourcePosition) {
    Engine e = sample_engine();
    const std::string position("0-1-42,\0\xff", 9);
    const Checkpoint c = e.checkpoint(position);
    EXPECT_EQ(c.source_position, position);
    ASSERT_EQ(c.keys.size(), 2U);
    ASSERT_EQ(c.keys[0].blocks.size(), 1U);

    const std::string json = encode_json(c);
    EXPECT_NE(json.find(",\"watermark\":41,\"source\":\"302d312d34322c00ff\",\"keys\":"), std::string::npos) << json;
    for (const bool binary : {false, true}) {
        const auto decoded = binary ? decode_binary(encode_binary(c)) : decode_json(json);
        ASSERT_TRUE(decoded.ok()) << decoded.error().message;
        EXPECT_TRUE(*decoded == c);
        for (const auto kind : {EngineKind::incremental, EngineKind::naive}) {
            auto restored = Engine::restore(*decoded, kind);
            ASSERT_TRUE(restored.ok()) << restored.error().message;
            EXPECT_EQ(restored->source_position(), position);
            EXPECT_TRUE(restored->checkpoint(position) == c);
        }
    }
    // Without a source position the member is absent (the CLI's bytes).
    EXPECT_EQ(encode_json(e.checkpoint()).find("source"), std::string::npos);
    EXPECT_LT(encode_binary(c).size(), json.size());
}

TEST(CheckpointCodec, RestoredEnginesContinueIdentically) {
    Engine original = sample_engine();
    const Checkpoint c = original.checkpoint("pos");
    auto from_json = Engine::restore(*decode_json(encode_json(c)), EngineKind::naive);
    auto from_binary = Engine::restore(*decode_binary(encode_binary(c)));
    ASSERT_TRUE(from_json.ok() && from_binary.ok());
    const std::vector<Mutation> next = {M::insert("f", "k", 47, 2), M::retract("c", "k", 38), M::insert("g", "z", 60, 1)};
    const auto text = [](Engine& e, std::span<const Mutation> tx) {
        auto r = e.apply(tx);
        std::string s = std::to_string(r->version);
        for (const Row& row : r->before) s += " -" + std::string(row.key) + ":" + std::to_string(row.start) + ":" + std::to_string(row.sum);
        for (const Row& row : r->after) s += " +" + std::string(row.key) + ":" + std::to_string(row.start) + ":" + std::to_string(row.sum);
        return s;
    };
    const std::string expected = text(original, next);
    EXPECT_EQ(text(*from_json, next), expected);
    EXPECT_EQ(text(*from_binary, next), expected);
}

TEST(CheckpointCodec, TheStreamsCheckpointLineIsTheJsonEncoding) {
    Stream s({.gap = 10, .lateness = 5});
    std::string out;
    s.process_line(R"({"tx":[{"insert":{"id":"a","key":"k","ts":0,"value":1}}]})", 1, out);
    out.clear();
    s.process_line(R"({"checkpoint":true})", 2, out);
    Checkpoint c = s.engine().checkpoint();
    c.line = 2;
    EXPECT_EQ(out, "{\"version\":1,\"checkpoint\":" + encode_json(c) + "}\n");
    const auto decoded = decode_json(out.substr(0, out.size() - 1));
    ASSERT_TRUE(decoded.ok());
    EXPECT_TRUE(*decoded == c);
}

TEST(CheckpointCodec, HostileBinaryBytesNameThePlace) {
    const std::string good = encode_binary(sample_engine().checkpoint("p"));
    const auto message = [](std::string_view bytes) {
        auto r = decode_binary(bytes);
        return r.ok() ? std::string("decoded") : r.error().message;
    };
    EXPECT_EQ(message(""), "malformed tideweave checkpoint: format: expected the binary checkpoint magic \"TWCK\"");
    EXPECT_EQ(message("TWCK"), "malformed tideweave checkpoint: format: truncated");
    EXPECT_EQ(message(std::string("TWCK\x02", 5)),
              "malformed tideweave checkpoint: format: binary checkpoint format 2 is not supported (expected 1)");
    EXPECT_EQ(message(good + "x"), "malformed tideweave checkpoint: checkpoint: 1 bytes after the end of the checkpoint");
    EXPECT_EQ(message(good.substr(0, good.size() - 1)), "malformed tideweave checkpoint: keys[1].final: truncated");
    // Every prefix fails cleanly, naming a place.
    for (std::size_t n = 0; n < good.size(); ++n) {
        const std::string m = message(good.substr(0, n));
        EXPECT_EQ(m.rfind("malformed tideweave checkpoint: ", 0), 0U) << n << ": " << m;
    }
    // A count larger than the bytes left is refused before allocating.
    const auto header = encode_binary(Checkpoint{});  // no keys: the last byte is the key count 0
    std::string bogus = header.substr(0, header.size() - 1) + std::string("\xff\xff\xff\xff\x0f", 5);
    EXPECT_EQ(message(bogus), "malformed tideweave checkpoint: keys: a count of 4294967295 items is more than the bytes left");
    // A non-finite value.
    Checkpoint c;
    c.keys.push_back({"k", {}, {{0, "a", 1.0}}, {}});
    std::string nan_bytes = encode_binary(c);
    const double inf = std::numeric_limits<double>::infinity();
    std::memcpy(nan_bytes.data() + nan_bytes.size() - 9, &inf, 8);  // the value, before the empty final list
    EXPECT_EQ(message(nan_bytes), "malformed tideweave checkpoint: keys[0].events[0]: expected a finite number");
}

TEST(CheckpointCodec, RestoreChecksTheStateTheSameForBothEncodings) {
    Checkpoint c;
    c.config = {.gap = 10, .lateness = 20};
    c.keys.push_back({"k", {}, {{5, "b", 1.0}, {5, "a", 1.0}}, {}});  // not in (ts, id) order
    for (const bool binary : {false, true}) {
        const auto decoded = binary ? decode_binary(encode_binary(c)) : decode_json(encode_json(c));
        ASSERT_TRUE(decoded.ok());
        auto r = Engine::restore(*decoded);
        ASSERT_FALSE(r.ok());
        EXPECT_EQ(r.error().kind, ErrorKind::checkpoint);
        EXPECT_EQ(r.error().message,
                  "malformed tideweave checkpoint: keys[0].events[1]: events must be in (ts, id) order, without repeats");
    }
    c.keys[0].events = {{5, "a", 1.0}};
    c.keys[0].key = "\xff";
    EXPECT_EQ(Engine::restore(*decode_binary(encode_binary(c))).error().message,
              "malformed tideweave checkpoint: keys[0].key: not valid UTF-8");
}

TEST(CheckpointCodec, JsonSourceMustBeHex) {
    const std::string base = encode_json(Checkpoint{});
    const auto with_source = [&](const std::string& value) {
        std::string s = base;
        s.insert(s.find(",\"keys\""), ",\"source\":" + value);
        return s;
    };
    auto ok = decode_json(with_source("\"00ff\""));
    ASSERT_TRUE(ok.ok()) << ok.error().message;
    EXPECT_EQ(ok->source_position, std::string("\0\xff", 2));
    EXPECT_EQ(decode_json(with_source("\"0g\"")).error().message,
              "malformed tideweave checkpoint: source: expected a string of lowercase hex digits, two per byte");
    EXPECT_EQ(decode_json(with_source("\"abc\"")).error().message,
              "malformed tideweave checkpoint: source: expected a string of lowercase hex digits, two per byte");
    EXPECT_EQ(decode_json(with_source("1")).error().message,
              "malformed tideweave checkpoint: source: expected a string of lowercase hex digits, two per byte");
}

// Engine::watermark_step (issue 25): a watermark jump that finalizes many
// sessions, taken in steps, gives each step at most `rows` rows (ties at
// one end go together) and, over all steps, exactly the rows one jump gives.
// horizon_at() is the line advance_watermark() finalizes by and apply()
// calls late at: a row ending one below the horizon of a watermark is final
// there, one ending at it is not; an insert at it is applied, one below late.
TEST(TypedApi, TheHorizonOfAWatermarkIsWhereRowsBecomeFinalAndMutationsLate) {
    for (const EngineKind kind : {EngineKind::incremental, EngineKind::naive}) {
        SCOPED_TRACE(kind == EngineKind::incremental ? "incremental" : "naive");
        Engine e(Config{10, 20}, kind);
        const std::int64_t h = e.horizon_at(1000);
        EXPECT_EQ(h, 980);
        // Sessions ending at h - 1 and at h (end = ts + gap).
        ASSERT_TRUE(e.apply({Mutation::insert("a", "a", h - 11, 1), Mutation::insert("b", "b", h - 10, 1)}).ok());
        auto finalized = e.advance_watermark(1000);
        ASSERT_TRUE(finalized.ok());
        ASSERT_EQ(finalized->rows.size(), 1U);
        EXPECT_EQ(finalized->rows[0].key, "a");
        EXPECT_EQ(finalized->rows[0].end, h - 1);
        auto changes = e.apply({Mutation::insert("c", "c", h, 1), Mutation::insert("d", "d", h - 1, 1)});
        ASSERT_TRUE(changes.ok());
        ASSERT_EQ(changes->late.size(), 1U);
        EXPECT_EQ(changes->late[0].id, "d");
    }
}

TEST(TypedApi, WatermarkStepsFinalizeInBoundedPiecesWhatOneJumpFinalizes) {
    for (const EngineKind kind : {EngineKind::incremental, EngineKind::naive}) {
        SCOPED_TRACE(kind == EngineKind::incremental ? "incremental" : "naive");
        auto fill = [](Engine& e) {
            std::vector<Mutation> ms;
            std::vector<std::string> ids, keys;
            // 300 sessions, each of one event 100 apart (gap 10): ends 10,
            // 110, ...; then 40 keys with a session ending at the same ts
            // (50,010), and one session that grew after it was queued.
            for (int i = 0; i < 300; ++i) {
                ids.push_back("s" + std::to_string(i));
                keys.push_back("k" + std::to_string(i % 7));
            }
            for (int i = 0; i < 40; ++i) {
                ids.push_back("t" + std::to_string(i));
                keys.push_back("tie" + std::to_string(i));
            }
            for (std::size_t i = 0; i < 300; ++i)
                ms.push_back(Mutation::insert(ids[i], keys[i], static_cast<std::int64_t>(i) * 100, 1));
            for (std::size_t i = 300; i < 340; ++i) ms.push_back(Mutation::insert(ids[i], keys[i], 50'000, 2));
            ASSERT_TRUE(e.apply(ms).ok());
            ASSERT_TRUE(e.apply({Mutation::insert("grew", "k0", 7, 3)}).ok());
        };
        using Seen = std::vector<std::tuple<std::string, std::int64_t, std::int64_t, std::int64_t>>;
        auto take = [](Seen& seen, const Finalized& f) {
            for (const Row& r : f.rows) seen.emplace_back(std::string(r.key), r.start, r.end, r.count);
        };
        const std::int64_t target = 60'000;
        Engine whole({.gap = 10, .lateness = 20}, kind);
        fill(whole);
        Seen once;
        auto f = whole.advance_watermark(target);
        ASSERT_TRUE(f.ok());
        take(once, *f);
        ASSERT_EQ(once.size(), 340U);

        Engine stepped({.gap = 10, .lateness = 20}, kind);
        fill(stepped);
        Seen pieces;
        std::size_t steps = 0, most = 0, ties_step = 0;
        for (std::int64_t w = std::numeric_limits<std::int64_t>::min(); w != target; ++steps) {
            const std::int64_t next = stepped.watermark_step(target, 16);
            ASSERT_LE(next, target);
            ASSERT_GT(next, w);  // progress at every step
            w = next;
            auto g = stepped.advance_watermark(w);
            ASSERT_TRUE(g.ok()) << g.error().message;
            ASSERT_EQ(g->watermark, w);
            if (g->rows.size() > 16) ties_step = g->rows.size();
            most = std::max(most, g->rows.size() > 16 ? 0 : g->rows.size());
            take(pieces, *g);
        }
        EXPECT_GE(steps, 300U / 16);
        EXPECT_EQ(most, 16U);
        EXPECT_EQ(ties_step, 40U);  // the 40 sessions ending together: one step, not a stall
        std::sort(once.begin(), once.end());
        std::sort(pieces.begin(), pieces.end());
        EXPECT_EQ(pieces, once);
        // Nothing left to finalize: the step is the target; behind the
        // watermark and out of range the step is what it was asked
        // (advance_watermark says why).
        EXPECT_EQ(stepped.watermark_step(target + 1, 1), target + 1);
        EXPECT_EQ(stepped.watermark_step(target - 5, 1), target - 5);
        EXPECT_EQ(stepped.watermark_step(std::int64_t{1} << 62, 1), std::int64_t{1} << 62);
    }
}

// Retracting a session's first event while a later one stays (no folded
// block before it): the session starts at the next event. (With the block
// out of line, the predecessor's ts was read through a null block here:
// caught by UBSan in a pipeline test, now a test of its own.)
TEST(TypedApi, RetractingTheFirstEventOfASessionWithoutABlockKeepsTheRest) {
    for (const EngineKind kind : {EngineKind::incremental, EngineKind::naive}) {
        Engine e({.gap = 10, .lateness = 20}, kind);
        ASSERT_TRUE(e.apply({M::insert("a", "k", 0, 1), M::insert("b", "k", 5, 2), M::insert("c", "k", 9, 4)}).ok());
        auto c = e.apply({M::retract("a", "k", 0)});
        ASSERT_TRUE(c.ok()) << c.error().message;
        ASSERT_EQ(c->after.size(), 1U);
        EXPECT_EQ(c->after[0].start, 5);
        EXPECT_EQ(c->after[0].count, 2);
        EXPECT_EQ(c->after[0].sum, 6);
    }
}

// Sessions of one, two and three events (the incremental engine holds a
// session's first two events in the session itself and makes them a leaf
// at the third, or at any other change): rows, a retraction inside such a
// session, a bridge of two of them, a checkpoint restored and forget give
// what the naive engine gives.
TEST(TypedApi, SessionsOfOneTwoAndThreeEventsAgreeAcrossEnginesAndCheckpoints) {
    using Seen = std::vector<std::tuple<std::string, std::int64_t, std::int64_t, std::int64_t, double, double, double, bool>>;
    auto rows = [](Engine& e) {
        Seen seen;
        for (const Row& r : e.snapshot().rows)
            seen.emplace_back(std::string(r.key), r.start, r.end, r.count, r.sum, r.min, r.max, r.final);
        return seen;
    };
    std::vector<Seen> per_kind;
    for (const EngineKind kind : {EngineKind::incremental, EngineKind::naive}) {
        SCOPED_TRACE(kind == EngineKind::incremental ? "incremental" : "naive");
        Engine e({.gap = 10, .lateness = 5}, kind);
        ASSERT_TRUE(e.apply({M::insert("a1", "one", 0, 1.5), M::insert("b1", "two", 0, 2), M::insert("b2", "two", 4, -3),
                             M::insert("c1", "three", 0, 1), M::insert("c2", "three", 3, 2), M::insert("c3", "three", 6, 4),
                             M::insert("d1", "bridge", 0, 1), M::insert("d2", "bridge", 20, 2)})
                        .ok());
        Seen first = rows(e);
        ASSERT_EQ(first.size(), 5U);
        EXPECT_EQ(first[3], std::make_tuple(std::string("three"), 0, 16, 3, 7.0, 1.0, 4.0, false));
        EXPECT_EQ(first[4], std::make_tuple(std::string("two"), 0, 14, 2, -1.0, -3.0, 2.0, false));
        // A checkpoint of sessions still held in the session restores to the same rows.
        auto restored = Engine::restore(*decode_binary(encode_binary(e.checkpoint())), kind);
        ASSERT_TRUE(restored.ok()) << restored.error().message;
        EXPECT_EQ(rows(*restored), first);
        // A retraction inside a two-event session; an event bridging two one-event sessions.
        ASSERT_TRUE(e.apply({M::retract("b1", "two", 0), M::insert("d3", "bridge", 10, 4)}).ok());
        // A sealed part folded, then more events after it (a block and held events).
        ASSERT_TRUE(e.advance_watermark(60).ok());
        (void)e.forget();
        ASSERT_TRUE(e.apply({M::insert("e1", "late-start", 100, 1), M::insert("e2", "late-start", 105, 1)}).ok());
        per_kind.push_back(rows(e));
        EXPECT_EQ(e.active_events(), 2U);
        ASSERT_EQ(per_kind.back().size(), 1U);  // the rest final and forgotten
    }
    EXPECT_EQ(per_kind[0], per_kind[1]);
}

}  // namespace
}  // namespace sluice::tideweave
