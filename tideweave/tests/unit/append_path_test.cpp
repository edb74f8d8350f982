// The incremental engine's append path (events past a session's last one go
// to an unlinked tail leaf, linked when full or before any other change)
// against the naive engine, on streams where event time mostly grows: every
// other operation then meets a session with a tail (a retraction inside it,
// an insert before it, an equal timestamp, a split, a bridge, a watermark, a
// forget, a checkpoint taken and restored from both encodings). Sessions
// run to hundreds of events, so tails fill and link many times.
#include <gtest/gtest.h>

#include <deque>
#include <random>
#include <string>
#include <vector>

#include "sluice/tideweave/checkpoint.hpp"
#include "sluice/tideweave/engine.hpp"

namespace sluice::tideweave {
namespace {

std::string text(std::span<const Row> rows) {
    std::string out;
    for (const Row& r : rows)
        out += std::string(r.key) + "|" + std::to_string(r.start) + "|" + std::to_string(r.end) + "|" +
               std::to_string(r.count) + "|" + std::to_string(r.sum) + "|" + std::to_string(r.min) + "|" +
               std::to_string(r.max) + "|" + (r.final ? "F" : "-") + ";";
    return out;
}

template <typename T>
std::string text(const Result<T>& r) {
    if (!r) return "error " + r.error().message;
    if constexpr (std::is_same_v<T, Changes>) {
        std::string late;
        for (const LateItem& l : r->late) late += std::to_string(l.index) + ",";
        return std::to_string(r->version) + " B " + text(r->before) + " A " + text(r->after) + " L " + late;
    } else {
        return std::to_string(r->version) + " W " + std::to_string(r->watermark) + " " + text(r->rows);
    }
}

// One engine per kind, fed the same calls; every result must be the same.
struct Pair {
    Engine incremental;
    Engine naive;
    std::int64_t longest = 0;  // the most events seen in one session
    explicit Pair(Config c) : incremental(c, EngineKind::incremental), naive(c, EngineKind::naive) {}

    void apply(const std::vector<Mutation>& tx) {
        const std::string a = text(incremental.apply(tx));
        const std::string b = text(naive.apply(tx));
        ASSERT_EQ(a, b);
    }
    void watermark(std::int64_t w) {
        const std::string a = text(incremental.advance_watermark(w));
        const std::string b = text(naive.advance_watermark(w));
        ASSERT_EQ(a, b);
    }
    void forget() {
        const Forgotten a = incremental.forget();
        const Forgotten b = naive.forget();
        ASSERT_EQ(a.rows_dropped, b.rows_dropped);
        ASSERT_EQ(a.events_folded, b.events_folded);
    }
    void same_snapshot() {
        const Snapshot a = incremental.snapshot();
        const std::string at = text(a.rows);
        const Snapshot b = naive.snapshot();
        ASSERT_EQ(at, text(b.rows));
        ASSERT_EQ(incremental.active_events(), naive.active_events());
        for (const Row& r : a.rows) longest = std::max(longest, r.count);
    }
};

struct Held {
    std::string_view id;  // into the test's deque of ids
    std::string_view key;
    std::int64_t ts;
};

TEST(AppendPath, AgreesWithTheNaiveEngineOnMostlyGrowingEventTime) {
    std::mt19937_64 rng(12);
    const Config config{.gap = 10, .lateness = 30};
    Pair p(config);
    std::vector<std::string> keys = {"a", "b", "c"};
    std::vector<std::int64_t> last(keys.size(), 0);
    std::vector<Held> held;  // inserted, maybe retracted since (a wrong retraction is an error, both agree)
    std::deque<std::string> strings;  // the mutations' ids live here (a deque: they never move)
    int next_id = 0;
    std::int64_t watermark = -1000;
    for (int round = 0; round < 600; ++round) {
        std::vector<Mutation> tx;
        const int n = 1 + static_cast<int>(rng() % 12);
        for (int i = 0; i < n; ++i) {
            const std::size_t k = rng() % keys.size();
            const auto roll = rng() % 1000;
            if (roll < 120 && !held.empty()) {  // retract a recent event (often still in a tail)
                const Held& h = held[held.size() - 1 - rng() % std::min<std::size_t>(held.size(), 40)];
                tx.push_back(Mutation::retract(h.id, h.key, h.ts));
                continue;
            }
            std::int64_t ts = last[k];
            if (roll < 750) {
                ts += 1 + static_cast<std::int64_t>(rng() % 9);  // joins the last session
            } else if (roll < 754) {
                ts += 11 + static_cast<std::int64_t>(rng() % 20);  // starts a new session
            } else if (roll < 870) {
                ts -= static_cast<std::int64_t>(rng() % 25);  // before the last event: inside, or bridging
            }  // else: the same ts as the key's last event
            last[k] = std::max(last[k], ts);
            // Long ids now and then (held on the heap, not inline).
            strings.push_back((rng() % 7 == 0 ? std::string(20, 'x') : std::string()) + "e" + std::to_string(next_id++));
            const std::string& id = strings.back();
            held.push_back({id, keys[k], ts});
            tx.push_back(Mutation::insert(id, keys[k], ts, static_cast<double>(rng() % 1000) * 0.25 - 50));
        }
        ASSERT_NO_FATAL_FAILURE(p.apply(tx));
        if (round % 40 == 39) {
            std::int64_t low = last[0];
            for (std::int64_t l : last) low = std::min(low, l);
            watermark = std::max(watermark, low - 5);
            ASSERT_NO_FATAL_FAILURE(p.watermark(watermark));
            if (round % 80 == 79) {
                ASSERT_NO_FATAL_FAILURE(p.forget());
            }
        }
        if (round % 100 == 50) {
            // Restore both engines from the other encoding each time, with a source position.
            const Checkpoint ci = p.incremental.checkpoint("pos-" + std::to_string(round));
            const Checkpoint cn = p.naive.checkpoint("pos-" + std::to_string(round));
            ASSERT_EQ(encode_json(ci), encode_json(cn));
            auto from_binary = decode_binary(encode_binary(ci));
            auto from_json = decode_json(encode_json(cn));
            ASSERT_TRUE(from_binary.ok() && from_json.ok());
            auto ri = Engine::restore(*from_binary, EngineKind::incremental);
            auto rn = Engine::restore(*from_json, EngineKind::naive);
            ASSERT_TRUE(ri.ok()) << ri.error().message;
            ASSERT_TRUE(rn.ok()) << rn.error().message;
            EXPECT_EQ(ri->source_position(), "pos-" + std::to_string(round));
            p.incremental = std::move(*ri);
            p.naive = std::move(*rn);
        }
        ASSERT_NO_FATAL_FAILURE(p.same_snapshot());
    }
    // The stream did what the test is for: sessions of several full leaves
    // (32 events each), so tails were linked into treaps many times.
    EXPECT_GT(p.longest, 4 * 32);
}

}  // namespace
}  // namespace sluice::tideweave
