// The replay argument of docs/pipeline.md, on random workloads: a restart
// restores the engine from the last checkpoint (position c), replays the
// source transactions c+1..k that the sink already holds (k = the stored
// GTID state) into ONE batch, and applies it to the sink tables as they are
// at k. The tables must come out exactly as at k, and the run that goes on
// from there must end with the uninterrupted run's tables (sessions, late
// rows and rejected rows, which the sink keys by (gtid, seq)).
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

#include "sluice/pipeline/open_sink_rows.hpp"
#include "sluice/pipeline/session_applier.hpp"
#include "sluice/pipeline/source_position.hpp"
#include "sluice/tideweave/checkpoint.hpp"

namespace sluice::pipeline {
namespace {

namespace tw = sluice::tideweave;
using V = SourceValue;

// The sink's tables, written as Sink::commit writes them: the batch's net
// changes planned by OpenSinkRows (what the writer knows the sink holds
// open), direct inserts checked against the primary key (a COPY into NAME
// fails on a row it holds), upserts, deletes.
struct SinkTables {
    std::map<std::pair<std::string, std::int64_t>, SessionRow> rows;
    std::set<std::pair<std::string, std::int64_t>> late;      // (gtid, seq): ON CONFLICT DO NOTHING
    std::set<std::pair<std::string, std::size_t>> rejected;  // (gtid, seq)
    // What a (re)started writer loads: the rows written with final = false.
    OpenSinkRows load() const {
        OpenSinkRows open;
        for (const auto& [k, r] : rows)
            if (!r.final) open.add(k.first, k.second);
        return open;
    }
    void apply(const SinkBatch& b, OpenSinkRows& open, bool replay) {
        const auto net = b.net();
        const auto plan = open.plan(net, replay);
        for (const SessionRow* r : plan.insert) {
            auto [it, fresh] = rows.emplace(std::pair{r->key, r->start}, *r);
            ASSERT_TRUE(fresh) << "a direct insert of (" << r->key << ", " << r->start << ") that the sink holds";
        }
        for (const SessionRow* r : plan.upsert) rows[{r->key, r->start}] = *r;
        for (const SessionRow* r : plan.remove) rows.erase({r->key, r->start});
        open.committed(net);
        for (const LateRow& l : b.late_rows()) late.insert({l.gtid, l.seq});
        for (const RejectedSinkRow& r : b.rejected_rows()) rejected.insert({r.gtid, r.row.change});
    }
    // The writer's set mirrors the sink's open rows.
    bool mirrors(OpenSinkRows& open) const {
        std::size_t n = 0;
        for (const auto& [k, r] : rows) {
            if (r.final) continue;
            ++n;
            if (!open.holds(k.first, k.second)) return false;
        }
        return n == open.size();
    }
    friend bool operator==(const SinkTables& a, const SinkTables& b) {
        return a.rows == b.rows && a.late == b.late && a.rejected == b.rejected;
    }
};

// A source table's life: inserts, updates moving rows in key and time,
// deletes, NULL timestamps, out-of-order data; one transaction per step.
struct SourceRowState {
    std::int64_t id;
    const char* key;  // a literal: the changes view it
    std::optional<std::int64_t> ts;
    double value;
};

struct Workload {
    std::vector<std::vector<SourceChange>> transactions;
};

RowImage image(const SourceRowState& r) {
    return {V::of_signed(r.id), V::of_text(r.key), r.ts ? V::of_signed(*r.ts) : V::null_value(), V::of_double(r.value)};
}

Workload random_workload(std::uint32_t seed, int steps) {
    std::mt19937 rng(seed);
    Workload w;
    std::map<std::int64_t, SourceRowState> table;
    std::int64_t next_id = 0, clock = 0;
    const char* keys[] = {"a", "b", "c", "d"};
    for (int s = 0; s < steps; ++s) {
        std::vector<SourceChange> tx;
        const int n = 1 + static_cast<int>(rng() % 4);
        for (int i = 0; i < n; ++i) {
            clock += static_cast<std::int64_t>(rng() % 4);
            const auto pick = rng() % 10;
            auto ts = [&]() -> std::optional<std::int64_t> {
                if (rng() % 25 == 0) return std::nullopt;
                return clock - static_cast<std::int64_t>(rng() % 40);  // some late
            };
            if (pick < 5 || table.empty()) {
                SourceRowState r{next_id++, keys[rng() % 4], ts(), static_cast<double>(rng() % 1000) / 8};
                table[r.id] = r;
                tx.push_back({SourceChange::Op::insert, std::nullopt, image(r)});
            } else {
                auto it = table.begin();
                std::advance(it, static_cast<long>(rng() % table.size()));
                SourceRowState before = it->second;
                if (pick < 8) {
                    SourceRowState after = before;
                    after.key = keys[rng() % 4];
                    after.ts = ts();
                    after.value += 1;
                    it->second = after;
                    tx.push_back({SourceChange::Op::update, image(before), image(after)});
                } else {
                    table.erase(it);
                    tx.push_back({SourceChange::Op::remove, image(before), std::nullopt});
                }
            }
        }
        w.transactions.push_back(std::move(tx));
    }
    return w;
}

std::string gtid_of(std::size_t t) { return "0-1-" + std::to_string(t + 1); }

TEST(Replay, FromAnOlderCheckpointLeavesTheSinkAsItWas) {
    const ColumnNames names{"id", "key", "ts", "value"};
    for (std::uint32_t seed = 1; seed <= 15; ++seed) {
        Workload w = random_workload(seed, 120);
        const std::size_t n = w.transactions.size();
        // The uninterrupted run: one batch per source transaction, a
        // checkpoint after each, the tables after each.
        tw::Engine engine(tw::Config{10, 15});
        WatermarkRule rule(5);
        SessionApplier applier(engine, rule);
        TransactionMapper mapper(names);
        SinkTables tables;
        OpenSinkRows open;
        std::vector<SinkTables> at;  // at[t]: after transaction t
        std::vector<std::string> checkpoints;
        for (std::size_t t = 0; t < n; ++t) {
            SinkBatch batch;
            mapper.begin();
            for (const SourceChange& c : w.transactions[t]) mapper.add(c);
            applier.apply(mapper, gtid_of(t), batch);
            if (t % 7 == 0) engine.forget();  // the pipeline forgets at every commit
            tables.apply(batch, open, false);
            ASSERT_TRUE(tables.mirrors(open)) << "seed " << seed << ", after " << t;
            at.push_back(tables);
            checkpoints.push_back(tw::encode_binary(engine.checkpoint(encode(SourcePosition{gtid_of(t), rule.max_ts()}))));
        }
        ASSERT_FALSE(tables.rows.empty());
        std::mt19937 rng(seed * 7919);
        for (int trial = 0; trial < 6; ++trial) {
            const std::size_t c = rng() % n;
            const std::size_t k = c + rng() % (n - c);
            auto cp = tw::decode_binary(checkpoints[c]);
            ASSERT_TRUE(cp);
            auto restored = tw::Engine::restore(*cp);
            ASSERT_TRUE(restored);
            auto pos = decode_source_position(restored->source_position());
            ASSERT_TRUE(pos);
            ASSERT_EQ(pos->gtid, gtid_of(c));
            WatermarkRule rule2(5, pos->max_ts, restored->watermark());
            SessionApplier applier2(*restored, rule2);
            SinkTables sink = at[k];
            OpenSinkRows loaded = sink.load();
            SinkBatch replay;
            for (std::size_t t = c + 1; t <= k; ++t) {
                mapper.begin();
                for (const SourceChange& ch : w.transactions[t]) mapper.add(ch);
                applier2.apply(mapper, gtid_of(t), replay);
            }
            sink.apply(replay, loaded, true);
            ASSERT_EQ(sink, at[k]) << "seed " << seed << ", checkpoint after " << c << ", sink at " << k;
            // And on to the end, in batches of three.
            for (std::size_t t = k + 1; t < n; t += 3) {
                SinkBatch b;
                for (std::size_t u = t; u < std::min(n, t + 3); ++u) {
                    mapper.begin();
                    for (const SourceChange& ch : w.transactions[u]) mapper.add(ch);
                    applier2.apply(mapper, gtid_of(u), b);
                }
                restored->forget();
                sink.apply(b, loaded, false);
                ASSERT_TRUE(sink.mirrors(loaded)) << "seed " << seed << ", checkpoint after " << c << ", sink at " << k;
            }
            ASSERT_EQ(sink, at[n - 1]) << "seed " << seed << ", checkpoint after " << c << ", sink at " << k;
        }
    }
}

}  // namespace
}  // namespace sluice::pipeline
